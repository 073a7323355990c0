/**
 * Schema conventions (seed rule A4.7, DESIGN.md §3): contiguous migrations with the same numbers
 * in both folders, the same tables and columns on both engines, zero foreign keys, a Chinese
 * comment on every table and column, and exact-byte keys.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { MIGRATIONS_TABLE_SQL, loadMigrationFiles } from '../../src/store/migration-files.js';
import { createTestDatabase, forEachDialect } from '../support/databases.js';
import type { MigratedDatabase } from '../support/databases.js';
import { withTx } from '../../src/store/with-tx.js';

const HAN = /\p{Script=Han}/u;

test('migration folders are contiguous and hold the same numbers and names', () => {
  const mysql = loadMigrationFiles('mysql').map((f) => `${f.version}_${f.name}`);
  const sqlite = loadMigrationFiles('sqlite').map((f) => `${f.version}_${f.name}`);
  assert.ok(mysql.length > 0);
  assert.deepEqual(mysql, sqlite);
});

/** SQLite keeps no comments: each table's and column's comment is the `--` on its line. */
function sqliteComments(): Map<string, string> {
  const comments = new Map<string, string>();
  const sources = [MIGRATIONS_TABLE_SQL.sqlite, ...loadMigrationFiles('sqlite').map((f) => f.sql)];
  for (const source of sources) {
    let table = '';
    for (const line of source.split('\n')) {
      const create = /^CREATE TABLE (?:IF NOT EXISTS )?(\w+) \(\s*(?:--\s*(.*))?$/.exec(line);
      if (create) {
        table = create[1] ?? '';
        comments.set(table, create[2] ?? '');
        continue;
      }
      const added = /^ALTER TABLE (\w+) ADD COLUMN (\w+) [A-Z]+.*?(?:--\s*(.*))?$/.exec(line);
      if (added) {
        comments.set(`${added[1] ?? ''}.${added[2] ?? ''}`, added[3] ?? '');
        continue;
      }
      const column = /^\s+(\w+) [A-Z]+.*?(?:--\s*(.*))?$/.exec(line);
      if (table !== '' && column && !/^(PRIMARY|UNIQUE|KEY)$/.test(column[1] ?? '')) {
        comments.set(`${table}.${column[1] ?? ''}`, column[2] ?? '');
      }
      if (/^\);?$/.test(line.trim())) {
        table = '';
      }
    }
  }
  return comments;
}

async function columnsOf(db: MigratedDatabase): Promise<Map<string, string>> {
  const k = db.database.kysely;
  const out = new Map<string, string>();
  if (db.dialect === 'mysql') {
    const tables = await sql<{ t: string; c: string }>`
      SELECT TABLE_NAME AS t, TABLE_COMMENT AS c FROM information_schema.TABLES
      WHERE TABLE_SCHEMA = DATABASE()`.execute(k);
    tables.rows.forEach((r) => out.set(r.t, r.c));
    const cols = await sql<{ t: string; n: string; c: string }>`
      SELECT TABLE_NAME AS t, COLUMN_NAME AS n, COLUMN_COMMENT AS c FROM information_schema.COLUMNS
      WHERE TABLE_SCHEMA = DATABASE()`.execute(k);
    cols.rows.forEach((r) => out.set(`${r.t}.${r.n}`, r.c));
    return out;
  }
  const comments = sqliteComments();
  const tables = await sql<{ name: string }>`
    SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`.execute(k);
  for (const { name } of tables.rows) {
    out.set(name, comments.get(name) ?? '');
    const cols = await sql<{ name: string }>`SELECT name FROM pragma_table_info(${name})`.execute(
      k,
    );
    cols.rows.forEach((c) => out.set(`${name}.${c.name}`, comments.get(`${name}.${c.name}`) ?? ''));
  }
  return out;
}

async function foreignKeyCount(db: MigratedDatabase): Promise<number> {
  const k = db.database.kysely;
  if (db.dialect === 'mysql') {
    const r = await sql<{ n: number | string }>`
      SELECT COUNT(*) AS n FROM information_schema.REFERENTIAL_CONSTRAINTS
      WHERE CONSTRAINT_SCHEMA = DATABASE()`.execute(k);
    return Number(r.rows[0]?.n);
  }
  const r = await sql<{ n: number | bigint }>`
    SELECT COUNT(*) AS n FROM sqlite_master m, pragma_foreign_key_list(m.name) f
    WHERE m.type = 'table'`.execute(k);
  return Number(r.rows[0]?.n);
}

const shapes = new Map<string, string[]>();

forEachDialect((dialect) => {
  describe(`schema on ${dialect}`, () => {
    let db: MigratedDatabase;
    before(async () => {
      db = await createTestDatabase(dialect);
    });
    after(() => db.close());

    test('[A4.7] every table and every column has a Chinese comment', async () => {
      const columns = await columnsOf(db);
      assert.ok(columns.size > 10);
      const missing = [...columns]
        .filter(([, comment]) => !HAN.test(comment))
        .map(([name]) => name);
      assert.deepEqual(missing, []);
      shapes.set(dialect, [...columns.keys()].sort());
    });

    test('[A4.7] the schema has zero foreign keys', async () => {
      assert.equal(await foreignKeyCount(db), 0);
    });

    test('[A4.2] keys compare as exact bytes: "k", "k ", "K" and "k\\u00a0" are four keys', async () => {
      for (const key of ['k', 'k ', 'K', 'k\u00a0']) {
        await withTx(db.database, (tx) =>
          tx.db
            .insertInto('receipts')
            .values({
              namespace_id: 1,
              operation: 'op',
              idempotency_key: key,
              request_digest: '0'.repeat(64),
              status_code: 200,
              response: '{}',
              created_at: tx.now,
            })
            .execute(),
        );
      }
      const rows = await db.database.kysely
        .selectFrom('receipts')
        .select('idempotency_key')
        .where('idempotency_key', '=', 'k ')
        .execute();
      assert.deepEqual(
        rows.map((r) => r.idempotency_key),
        ['k '],
      );
      const all = await db.database.kysely
        .selectFrom('receipts')
        .select('idempotency_key')
        .execute();
      assert.deepEqual(
        all.map((r) => r.idempotency_key).sort(),
        ['K', 'k', 'k ', 'k\u00a0'].sort(),
      );
    });
  });
});

test('both engines produce the same tables and columns', () => {
  const [first, second] = [...shapes.values()];
  if (shapes.size < 2 || first === undefined || second === undefined) {
    assert.equal(shapes.size, 1, 'only one engine ran');
    return;
  }
  assert.deepEqual(first, second);
});
