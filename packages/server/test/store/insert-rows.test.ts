/**
 * insertRows: a multi-row INSERT compiled once per shape and reused with other values writes
 * exactly what Kysely's own statement writes, on both engines; a shape whose values Kysely does
 * not bind one by one is never reused.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { insertRows } from '../../src/store/insert-rows.js';
import { withTx } from '../../src/store/with-tx.js';
import { toId } from '../../src/store/values.js';
import { createTestDatabase, forEachDialect } from '../support/databases.js';
import type { MigratedDatabase } from '../support/databases.js';

forEachDialect((dialect) => {
  describe(`insertRows on ${dialect}`, () => {
    let db: MigratedDatabase;
    before(async () => {
      db = await createTestDatabase(dialect);
    });
    after(() => db.close());

    const row = (action: string, code: string | null, at: bigint) => ({
      namespace_id: null,
      at,
      credential_id: null,
      action,
      outcome: 'ok',
      code,
      object_type: null,
      object_id: null,
      request_id: `r-${action}`,
      details: code === null ? null : `{"n":"${code}"}`,
    });

    test('the second statement of a shape reuses the SQL text of the first with its own values', async () => {
      const first = insertRows(db.database.kysely, 'audit_log', [
        row('a.one', null, 1n),
        row('a.two', 'x', 2n),
      ]).compile();
      const second = insertRows(db.database.kysely, 'audit_log', [
        row('b.one', 'y', 3n),
        row("b.two 'quoted'", null, 4n),
      ]).compile();
      assert.equal(second.sql, first.sql, 'one SQL text per shape');
      assert.equal(second.query, first.query, 'reused, not built again');
      assert.notEqual(second.parameters, first.parameters);
      const three = insertRows(db.database.kysely, 'audit_log', [
        row('c.one', null, 5n),
        row('c.two', null, 6n),
        row('c.three', null, 7n),
      ]).compile();
      assert.notEqual(three.sql, first.sql, 'another row count is another shape');

      await withTx(db.database, async (tx) => {
        for (const query of [first, second, three]) {
          await tx.db.executeQuery(query);
        }
      });
      const rows = await db.database.kysely
        .selectFrom('audit_log')
        .select(['action', 'code', 'at', 'request_id', 'details'])
        .orderBy('id')
        .execute();
      assert.deepEqual(
        rows.map((r) => [r.action, r.code, BigInt(r.at), r.request_id, r.details]),
        [
          ['a.one', null, 1n, 'r-a.one', null],
          ['a.two', 'x', 2n, 'r-a.two', '{"n":"x"}'],
          ['b.one', 'y', 3n, 'r-b.one', '{"n":"y"}'],
          ["b.two 'quoted'", null, 4n, "r-b.two 'quoted'", null],
          ['c.one', null, 5n, 'r-c.one', null],
          ['c.two', null, 6n, 'r-c.two', null],
          ['c.three', null, 7n, 'r-c.three', null],
        ],
      );
    });

    test('a shape is reused across transactions (each has a Kysely instance of its own)', async () => {
      const compiled = [];
      for (const action of ['t.one', 't.two']) {
        compiled.push(
          await withTx(db.database, (tx) =>
            Promise.resolve(insertRows(tx.db, 'audit_log', [row(action, 'z', 10n)]).compile()),
          ),
        );
      }
      assert.equal(compiled[1]?.query, compiled[0]?.query, 'reused, not built again');
      assert.deepEqual(compiled[1]?.parameters.includes('t.two'), true);
    });

    test('RETURNING gives the new rows of a reused shape', async () => {
      const ids: string[] = [];
      await withTx(db.database, async (tx) => {
        for (const action of ['r.one', 'r.two']) {
          const { rows } = await tx.db.executeQuery(
            insertRows<'audit_log', { id: string | number | bigint }>(
              tx.db,
              'audit_log',
              [row(action, null, 8n)],
              ['id'],
            ).compile(),
          );
          assert.equal(rows.length, 1);
          ids.push(toId((rows[0] as { id: string | number | bigint }).id));
        }
      });
      const stored = await db.database.kysely
        .selectFrom('audit_log')
        .select(['id', 'action'])
        .where('action', 'in', ['r.one', 'r.two'])
        .orderBy('id')
        .execute();
      assert.deepEqual(
        stored.map((r) => [toId(r.id), r.action]),
        [
          [ids[0], 'r.one'],
          [ids[1], 'r.two'],
        ],
      );
    });

    test('rows with a column left out are built by Kysely every time', () => {
      // What `exactOptionalPropertyTypes` keeps a caller from writing, forced here.
      const partial = (action: string) =>
        ({ ...row(action, null, 9n), code: undefined }) as unknown as ReturnType<typeof row>;
      const a = insertRows(db.database.kysely, 'audit_log', [partial('p.one')]).compile();
      const b = insertRows(db.database.kysely, 'audit_log', [partial('p.two')]).compile();
      // Kysely leaves an undefined value out of the statement: the values are not bound one per
      // column, so the shape is not kept, and each statement carries its own values.
      assert.equal(a.parameters.includes('p.one'), true);
      assert.equal(b.parameters.includes('p.two'), true);
      assert.equal(b.parameters.includes(undefined), false);
      assert.notEqual(b.query, a.query, 'built again');
      // A row with one column more than the first, once the first's shape is kept.
      const short = (action: string) => {
        const { code: _left, ...rest } = row(action, null, 13n);
        return rest as ReturnType<typeof row>;
      };
      const kept = insertRows(db.database.kysely, 'audit_log', [short('q.one'), short('q.two')]);
      const again = insertRows(db.database.kysely, 'audit_log', [short('q.3'), short('q.4')]);
      const keptQuery = kept.compile().query;
      assert.equal(again.compile().query, keptQuery, 'the shorter shape is kept');
      const mixed = insertRows(db.database.kysely, 'audit_log', [
        short('q.five'),
        row('q.six', 'w', 14n),
      ]).compile();
      assert.notEqual(mixed.query, keptQuery);
      assert.equal(mixed.parameters.includes('w'), true, 'the extra column is written');
    });
  });
});
