/** Migrations: applied once, re-runnable, refused when the database is ahead or was edited. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Database } from '../../src/store/database.js';
import { loadMigrationFiles } from '../../src/store/migration-files.js';
import { migrate, pendingMigrations } from '../../src/store/migrate.js';
import { createEmptyDatabase, forEachDialect, openTestDatabase } from '../support/databases.js';
import type { TestDatabase } from '../support/databases.js';
import { runWeave } from '../support/processes.js';

async function migrationRows(database: Database) {
  return database.kysely
    .selectFrom('schema_migrations')
    .select(['version', 'state'])
    .orderBy('version')
    .execute();
}

test('pendingMigrations refuses a database that is ahead of the code', () => {
  const files = loadMigrationFiles('sqlite');
  assert.throws(
    () =>
      pendingMigrations(files, [{ version: files.length + 1, checksum: 'x', state: 'applied' }]),
    /ahead of the code/,
  );
});

test('pendingMigrations refuses an applied migration whose file changed', () => {
  const files = loadMigrationFiles('sqlite');
  assert.throws(
    () => pendingMigrations(files, [{ version: 1, checksum: 'other', state: 'applied' }]),
    /changed/,
  );
});

test('pendingMigrations re-runs a migration left half-applied by a crash', () => {
  const files = loadMigrationFiles('mysql');
  const first = files[0];
  assert.ok(first);
  const pending = pendingMigrations(files, [
    { version: 1, checksum: first.checksum, state: 'applying' },
  ]);
  assert.equal(pending[0]?.version, 1);
});

forEachDialect((dialect) => {
  describe(`migrate on ${dialect}`, () => {
    let empty: TestDatabase;
    before(async () => {
      empty = await createEmptyDatabase(dialect);
    });
    after(() => empty.drop());

    test('two `weave migrate` processes started at once both exit 0 and apply each migration once', async () => {
      const [a, b] = await Promise.all([
        runWeave(['migrate', '--db', empty.url]),
        runWeave(['migrate', '--db', empty.url]),
      ]);
      assert.equal(a.code, 0, a.stderr);
      assert.equal(b.code, 0, b.stderr);
      const database = openTestDatabase(empty.url);
      try {
        const rows = await migrationRows(database);
        const files = loadMigrationFiles(dialect);
        assert.deepEqual(
          rows.map((r) => [Number(r.version), r.state]),
          files.map((f) => [f.version, 'applied']),
        );
        assert.deepEqual((await migrate(database)).applied, []);
      } finally {
        await database.close();
      }
    });

    test('a database ahead of the code is refused at start', async () => {
      const database = openTestDatabase(empty.url);
      try {
        await database.kysely
          .insertInto('schema_migrations')
          .values({ version: 9999, name: 'future', checksum: 'x', state: 'applied', applied_at: 0 })
          .execute();
        await assert.rejects(migrate(database), /ahead of the code/);
        await database.kysely.deleteFrom('schema_migrations').where('version', '=', 9999).execute();
      } finally {
        await database.close();
      }
    });
  });
});

test('`weave migrate --print` prints the SQL without touching the database', async () => {
  const result = await runWeave(['migrate', '--db', '/nonexistent-dir/never.sqlite', '--print']);
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /-- 0001_foundation/);
  assert.match(result.stdout, /CREATE TABLE namespaces/);
});
