/**
 * `tx.write`: deferred writes (coalescing-driver.ts). On MariaDB a deferred write travels with
 * the next statement that needs an answer; on SQLite it runs at once. Either way: order is kept,
 * a failing write fails the transaction, a rollback leaves nothing.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { keptTexts } from '../../src/store/statement-text.js';
import { withTx } from '../../src/store/with-tx.js';
import { createTestDatabase, forEachDialect } from '../support/databases.js';
import type { MigratedDatabase } from '../support/databases.js';

forEachDialect((dialect) => {
  describe(`deferred writes on ${dialect}`, () => {
    let db: MigratedDatabase;
    before(async () => {
      db = await createTestDatabase(dialect);
    });
    after(() => db.close());

    const names = async (prefix: string) =>
      (
        await db.database.kysely
          .selectFrom('namespaces')
          .select('name')
          .where('name', 'like', `${prefix}%`)
          .orderBy('name')
          .execute()
      ).map((r) => r.name);

    test('deferred writes run in order before the next read, and commit with the transaction', async () => {
      const seen = await withTx(db.database, async (tx) => {
        for (const n of ['ord-a', 'ord-b', 'ord-c']) {
          await tx.write(tx.db.insertInto('namespaces').values({ name: n, created_at: tx.now }));
        }
        await tx.write(
          tx.db.updateTable('namespaces').set({ disabled: 1 }).where('name', '=', 'ord-b'),
        );
        // The read sees every write before it, including the update of a row inserted in the
        // same packet.
        return tx.db
          .selectFrom('namespaces')
          .select(['name', 'disabled'])
          .where('name', 'like', 'ord-%')
          .orderBy('name')
          .execute();
      });
      assert.deepEqual(
        seen.map((r) => [r.name, Number(r.disabled)]),
        [
          ['ord-a', 0],
          ['ord-b', 1],
          ['ord-c', 0],
        ],
      );
      assert.deepEqual(await names('ord-'), ['ord-a', 'ord-b', 'ord-c']);
    });

    test('readAll answers each read in order, after the deferred writes before it', async () => {
      const [inserted, none, counted] = await withTx(db.database, async (tx) => {
        await tx.write(tx.db.insertInto('namespaces').values({ name: 'ra-1', created_at: tx.now }));
        await tx.write(tx.db.insertInto('namespaces').values({ name: 'ra-2', created_at: tx.now }));
        return tx.readAll(
          tx.db
            .selectFrom('namespaces')
            .select('name')
            .where('name', 'like', 'ra-%')
            .orderBy('name'),
          tx.db.selectFrom('namespaces').select('id').where('name', '=', 'ra-missing'),
          tx.db
            .selectFrom('namespaces')
            .select((eb) => eb.fn.countAll().as('n'))
            .where('name', 'like', 'ra-%'),
        );
      });
      assert.deepEqual(
        inserted.map((r) => r.name),
        ['ra-1', 'ra-2'],
      );
      assert.deepEqual(none, []);
      assert.equal(Number(counted[0]?.n), 2);
    });

    test('readAll of one read answers its rows', async () => {
      const [rows] = await withTx(db.database, (tx) =>
        tx.readAll(tx.db.selectFrom('namespaces').select('name').where('name', '=', 'ra-1')),
      );
      assert.deepEqual(
        rows.map((r) => r.name),
        ['ra-1'],
      );
    });

    test('a failing deferred write fails the transaction, which leaves nothing', async () => {
      let deferredReturned = false;
      await assert.rejects(
        withTx(db.database, async (tx) => {
          await tx.write(
            tx.db.insertInto('namespaces').values({ name: 'bad-1', created_at: tx.now }),
          );
          // Duplicate name: fails at the server.
          const duplicate = tx.db
            .insertInto('namespaces')
            .values({ name: 'bad-1', created_at: tx.now });
          if (dialect === 'mysql') {
            await tx.write(duplicate);
            // Nothing was sent yet: the error arrives with the next statement that needs an answer.
            deferredReturned = true;
            await tx.db.selectFrom('namespaces').select('id').execute();
          } else {
            await tx.write(duplicate);
          }
        }),
        (e: unknown) => /duplicate|unique/i.test(String((e as Error).message)),
      );
      assert.equal(deferredReturned, dialect === 'mysql');
      assert.deepEqual(await names('bad-'), []);
    });

    test('a deferred write still waiting at a throw is dropped with the rollback', async () => {
      await assert.rejects(
        withTx(db.database, async (tx) => {
          await tx.write(
            tx.db.insertInto('namespaces').values({ name: 'drop-1', created_at: tx.now }),
          );
          throw new Error('boom');
        }),
        /boom/,
      );
      assert.deepEqual(await names('drop-'), []);
      // The connection is clean for the next transaction.
      await withTx(db.database, async (tx) => {
        await tx.write(
          tx.db.insertInto('namespaces').values({ name: 'drop-2', created_at: tx.now }),
        );
      });
      assert.deepEqual(await names('drop-'), ['drop-2']);
    });

    test('a savepoint rolled back undoes the deferred writes made inside it', async () => {
      await withTx(db.database, async (tx) => {
        await tx.write(
          tx.db.insertInto('namespaces').values({ name: 'sp-keep', created_at: tx.now }),
        );
        await assert.rejects(
          tx.savepoint(async () => {
            await tx.write(
              tx.db.insertInto('namespaces').values({ name: 'sp-undone', created_at: tx.now }),
            );
            throw new Error('inner');
          }),
          /inner/,
        );
        await tx.savepoint(() =>
          tx.write(
            tx.db.insertInto('namespaces').values({ name: 'sp-released', created_at: tx.now }),
          ),
        );
      });
      assert.deepEqual(await names('sp-'), ['sp-keep', 'sp-released']);
    });

    test('many large deferred writes go out in packets below the server limit', async () => {
      const body = dialect === 'mysql' ? 'MEDIUMTEXT' : 'TEXT';
      await sql
        .raw(`CREATE TABLE t_coalesce (id BIGINT NOT NULL PRIMARY KEY, body ${body} NOT NULL)`)
        .execute(db.database.kysely);
      // 20 × 1 MiB waiting: more than max_allowed_packet (16 MiB by default), so it must go in parts.
      const big = 'x'.repeat(1024 * 1024);
      await withTx(db.database, async (tx) => {
        const scratch = tx.db.withTables<{ t_coalesce: { id: number; body: string } }>();
        for (let i = 1; i <= 20; i++) {
          await tx.write(scratch.insertInto('t_coalesce').values({ id: i, body: big }));
        }
      });
      const rows = await sql<{ n: number; chars: number }>`
        SELECT COUNT(*) AS n, SUM(LENGTH(body)) AS chars FROM t_coalesce`.execute(
        db.database.kysely,
      );
      assert.equal(Number(rows.rows[0]?.n), 20);
      assert.equal(Number(rows.rows[0]?.chars), 20 * big.length);
    });

    // MariaDB only (SQLite binds its parameters natively): not registered elsewhere.
    const onMariaDb = dialect === 'mysql' ? test : () => undefined;
    void onMariaDb(
      "the pool's packets are written by statement-text, and every value reads back as bound",
      async () => {
        const insertAndRead = (values: readonly string[]) =>
          withTx(db.database, async (tx) => {
            for (const name of values) {
              await tx.write(tx.db.insertInto('namespaces').values({ name, created_at: tx.now }));
            }
            // A statement text no other test sends: kept the first time it is written.
            return tx.db
              .selectFrom('namespaces')
              .select(['name', 'id'])
              .where('name', 'in', values)
              .where('disabled', '=', 0)
              .where('id', '>', 0)
              .orderBy('name')
              .execute();
          });
        const before = keptTexts().split;
        // Values that need escaping, written by statement-text.
        const escaped = ["st'1", 'st\\2', 'st"3\n', 'st\u001a4'];
        const read = await insertAndRead(escaped);
        // Sorted here: the column's collation orders punctuation its own way.
        assert.deepEqual(read.map((r) => r.name).sort(), [...escaped].sort());
        assert.ok(keptTexts().split > before, 'the pool wrote its statements by statement-text');
        // A value outside ASCII: its packet is written by mysql2, and reads back the same.
        const wide = ['st-é', "st-中'文", 'st-😀'];
        assert.deepEqual((await insertAndRead(wide)).map((r) => r.name).sort(), [...wide].sort());
      },
    );
  });
});
