/**
 * Applies pending migrations. Two processes migrating at once are safe: MariaDB serialises them
 * with GET_LOCK (DDL there is not transactional, so each file is re-runnable and its row is
 * written as `applying` first, then `applied`); SQLite runs the whole batch inside one
 * BEGIN IMMEDIATE transaction. A database that is ahead of the code is refused.
 */
import type { Connection } from 'mysql2/promise';
import { createConnection } from 'mysql2/promise';
import type BetterSqlite3 from 'better-sqlite3';
import type { MysqlConfig } from './connection-url.js';
import { mysqlConnectionOptions } from './connection-url.js';
import type { Database } from './database.js';
import type { MigrationFile } from './migration-files.js';
import { loadMigrationFiles, MIGRATIONS_TABLE_SQL } from './migration-files.js';
import { mysqlDialect, sqliteDialect } from './dialect.js';

export interface MigrateResult {
  /** Versions applied by this call (empty when the database was current). */
  readonly applied: readonly number[];
  readonly current: number;
}

interface AppliedRow {
  version: number;
  checksum: string;
  state: string;
}

/** Seconds to wait for another node's migration to finish before giving up. */
const MIGRATION_LOCK_TIMEOUT_S = 120;

export async function migrate(database: Database): Promise<MigrateResult> {
  if (database.sqliteHandle !== undefined) {
    return migrateSqlite(database.sqliteHandle);
  }
  if (database.config.kind !== 'mysql') {
    throw new Error('unreachable: a mysql database without mysql config');
  }
  return migrateMysql(database.config);
}

/** The migrations that still have to run; throws when the database is ahead or was edited. */
export function pendingMigrations(files: readonly MigrationFile[], applied: readonly AppliedRow[]) {
  const known = new Map(files.map((f) => [f.version, f]));
  for (const row of applied) {
    const file = known.get(row.version);
    if (file === undefined) {
      throw new Error(
        `the database has migration ${row.version}, which this version of weave does not know: ` +
          'the database is ahead of the code',
      );
    }
    if (row.state === 'applied' && row.checksum !== file.checksum) {
      throw new Error(`migration ${row.version} (${file.name}) was changed after it was applied`);
    }
  }
  const done = new Set(applied.filter((r) => r.state === 'applied').map((r) => r.version));
  return files.filter((f) => !done.has(f.version));
}

async function migrateMysql(config: MysqlConfig): Promise<MigrateResult> {
  const files = loadMigrationFiles('mysql');
  // multipleStatements only on this connection (STYLE.md §3).
  const connection = mysqlConnectionOptions(config);
  const conn = await createConnection({
    ...connection,
    multipleStatements: true,
    charset: 'utf8mb4',
  });
  try {
    const [lockRows] = await conn.query('SELECT GET_LOCK(?, ?) AS ok', [
      'weave.migrate',
      MIGRATION_LOCK_TIMEOUT_S,
    ]);
    if (Number((lockRows as { ok: unknown }[])[0]?.ok) !== 1) {
      throw new Error('another process holds the migration lock for too long');
    }
    try {
      return await applyMysql(conn, files);
    } finally {
      await conn.query('SELECT RELEASE_LOCK(?)', ['weave.migrate']);
    }
  } finally {
    await conn.end();
  }
}

async function applyMysql(
  conn: Connection,
  files: readonly MigrationFile[],
): Promise<MigrateResult> {
  await conn.query(MIGRATIONS_TABLE_SQL.mysql);
  const [rows] = await conn.query('SELECT version, checksum, state FROM schema_migrations');
  const applied = (rows as { version: unknown; checksum: string; state: string }[]).map((r) => ({
    version: Number(r.version),
    checksum: r.checksum,
    state: r.state,
  }));
  const pending = pendingMigrations(files, applied);
  const nowSql = mysqlDialect.nowMicrosSql.replace(/^SELECT /, '').replace(/ AS now_us$/, '');
  for (const file of pending) {
    await conn.query(
      `INSERT INTO schema_migrations (version, name, checksum, state, applied_at)
       VALUES (?, ?, ?, 'applying', ${nowSql})
       ON DUPLICATE KEY UPDATE state = 'applying', checksum = VALUES(checksum)`,
      [file.version, file.name, file.checksum],
    );
    await conn.query(file.sql);
    await conn.query(
      `UPDATE schema_migrations SET state = 'applied', applied_at = ${nowSql} WHERE version = ?`,
      [file.version],
    );
  }
  return { applied: pending.map((f) => f.version), current: files.length };
}

function migrateSqlite(handle: BetterSqlite3.Database): MigrateResult {
  const files = loadMigrationFiles('sqlite');
  const nowSql = sqliteDialect.nowMicrosSql.replace(/^SELECT /, '').replace(/ AS now_us$/, '');
  handle.exec('BEGIN IMMEDIATE');
  try {
    handle.exec(MIGRATIONS_TABLE_SQL.sqlite);
    const applied = handle
      .prepare('SELECT version, checksum, state FROM schema_migrations')
      .all()
      .map((r) => {
        const row = r as { version: bigint; checksum: string; state: string };
        return { version: Number(row.version), checksum: row.checksum, state: row.state };
      });
    const pending = pendingMigrations(files, applied);
    const insert = handle.prepare(
      `INSERT INTO schema_migrations (version, name, checksum, state, applied_at)
       VALUES (?, ?, ?, 'applied', ${nowSql})`,
    );
    for (const file of pending) {
      handle.exec(file.sql);
      insert.run(file.version, file.name, file.checksum);
    }
    handle.exec('COMMIT');
    return { applied: pending.map((f) => f.version), current: files.length };
  } catch (e: unknown) {
    handle.exec('ROLLBACK');
    throw e;
  }
}
