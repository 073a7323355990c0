/**
 * The numbered, forward-only migration files: `migrations/<dialect>/NNNN_name.sql`, with the
 * same numbers in both folders (STYLE.md §3).
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import type { DialectName } from './dialect.js';

export interface MigrationFile {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
  /** sha256 of the file text: an applied migration must never change. */
  readonly checksum: string;
}

/** From build/src/store/ (compiled) and src/store/ (sources) alike: three levels up. */
export const MIGRATIONS_DIR = new URL('../../../migrations/', import.meta.url);

const FILE_PATTERN = /^(\d{4})_([a-z0-9_]+)\.sql$/;

export function loadMigrationFiles(dialect: DialectName): MigrationFile[] {
  const dir = new URL(`${dialect}/`, MIGRATIONS_DIR);
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.sql'))
    .sort()
    .map((file) => {
      const m = FILE_PATTERN.exec(file);
      if (m === null) {
        throw new Error(`migration file ${dialect}/${file} is not named NNNN_name.sql`);
      }
      const sql = readFileSync(new URL(file, dir), 'utf8');
      return {
        version: Number(m[1]),
        name: m[2] ?? '',
        sql,
        checksum: createHash('sha256').update(sql).digest('hex'),
      };
    });
  files.forEach((f, i) => {
    if (f.version !== i + 1) {
      throw new Error(
        `migrations/${dialect} is not contiguous: expected ${i + 1}, found ${f.version}`,
      );
    }
  });
  return files;
}

/** The bookkeeping table, created by the migrator itself before anything else. */
export const MIGRATIONS_TABLE_SQL: Readonly<Record<DialectName, string>> = {
  mysql: `CREATE TABLE IF NOT EXISTS schema_migrations (
  version BIGINT NOT NULL COMMENT '迁移编号',
  name VARCHAR(191) NOT NULL COMMENT '迁移文件名称',
  checksum CHAR(64) NOT NULL COMMENT '迁移文件SHA-256摘要（已应用的迁移不得修改）',
  state VARCHAR(16) NOT NULL COMMENT '状态：applying 正在应用，applied 已应用',
  applied_at BIGINT NOT NULL COMMENT '应用时间（数据库时钟，Unix微秒）',
  PRIMARY KEY (version)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin COMMENT='已应用的数据库迁移'`,
  sqlite: `CREATE TABLE IF NOT EXISTS schema_migrations ( -- 已应用的数据库迁移
  version INTEGER PRIMARY KEY, -- 迁移编号
  name TEXT NOT NULL, -- 迁移文件名称
  checksum TEXT NOT NULL, -- 迁移文件SHA-256摘要（已应用的迁移不得修改）
  state TEXT NOT NULL, -- 状态：applying 正在应用，applied 已应用
  applied_at INTEGER NOT NULL -- 应用时间（数据库时钟，Unix微秒）
)`,
};
