/** withTx: one transaction, database time read once, deadlocks retried, rollback leaves nothing. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { readNow, withTx } from '../../src/store/with-tx.js';
import { formatInstant, parseInstant } from '../../src/store/values.js';
import { createTestDatabase, forEachDialect } from '../support/databases.js';
import type { MigratedDatabase } from '../support/databases.js';

test('instants print as RFC 3339 with microseconds and parse back exactly', () => {
  const micros = 1_795_986_145_123_456n;
  const text = formatInstant(micros);
  assert.equal(text, '2026-11-29T21:02:25.123456Z');
  assert.equal(parseInstant(text), micros);
  assert.equal(parseInstant('2026-11-29T22:02:25.5+01:00'), 1_795_986_145_500_000n);
  assert.equal(parseInstant('yesterday'), undefined);
});

forEachDialect((dialect) => {
  describe(`withTx on ${dialect}`, () => {
    let db: MigratedDatabase;
    before(async () => {
      db = await createTestDatabase(dialect);
    });
    after(() => db.close());

    test('tx.now is the database clock, read once per transaction', async () => {
      const before = BigInt(Date.now()) * 1000n;
      let clockReads = 0;
      const hooks = { onClockRead: () => void clockReads++ };
      const [first, second, clock] = await withTx(
        db.database,
        async (tx) => {
          const early = tx.now;
          // 20 ms of database time pass inside the transaction: a second read would differ.
          if (dialect === 'mysql') {
            await sql`SELECT SLEEP(0.02)`.execute(tx.db);
          } else {
            await new Promise((r) => setTimeout(r, 20));
          }
          return [early, tx.now, await readNow(tx.db, tx.dialect)];
        },
        { hooks },
      );
      assert.equal(clockReads, 1, 'one clock query per transaction');
      assert.equal(first, second);
      assert.ok(clock - first >= 19_000n, `the clock moved on (${clock - first} µs)`);
      assert.ok(first > before - 5_000_000n && first < before + 5_000_000n);
      const next = await withTx(db.database, (tx) => Promise.resolve(tx.now), { hooks });
      assert.equal(clockReads, 2);
      assert.ok(next >= clock, 'a new transaction reads the clock anew');
    });

    test('a failure rolls the whole transaction back and skips afterCommit hooks', async () => {
      let hookRan = false;
      await assert.rejects(
        withTx(db.database, async (tx) => {
          tx.afterCommit(() => (hookRan = true));
          await tx.db
            .insertInto('namespaces')
            .values({ name: 'rolled-back', created_at: tx.now })
            .execute();
          throw new Error('boom');
        }),
        /boom/,
      );
      const rows = await db.database.kysely
        .selectFrom('namespaces')
        .selectAll()
        .where('name', '=', 'rolled-back')
        .execute();
      assert.equal(rows.length, 0);
      assert.equal(hookRan, false);
    });

    test('afterCommit hooks run once the transaction committed', async () => {
      const seen: number[] = [];
      await withTx(db.database, async (tx) => {
        tx.afterCommit(() => seen.push(1));
        await tx.db
          .insertInto('namespaces')
          .values({ name: 'committed', created_at: tx.now })
          .execute();
        assert.deepEqual(seen, []);
      });
      assert.deepEqual(seen, [1]);
    });

    /**
     * Two transactions each lock one row, wait until the other holds the other row, then ask
     * for it: a real deadlock, which InnoDB breaks by failing one of them with 1213. With
     * `inSavepoint`, the second lock is asked for inside `tx.savepoint`.
     */
    async function deadlock(rows: readonly [string, string], inSavepoint: boolean) {
      await withTx(db.database, async (tx) => {
        await tx.db
          .insertInto('namespaces')
          .values(rows.map((name) => ({ name, created_at: tx.now })))
          .execute();
      });
      const retries: string[] = [];
      let aLocked!: () => void;
      let bLocked!: () => void;
      const aHas = new Promise<void>((r) => (aLocked = r));
      const bHas = new Promise<void>((r) => (bLocked = r));
      const run = (first: string, second: string, mine: () => void, theirs: Promise<void>) => {
        let attempt = 0;
        return withTx(
          db.database,
          async (tx) => {
            attempt++;
            await sql`SELECT id FROM namespaces WHERE name = ${first} FOR UPDATE`.execute(tx.db);
            if (attempt === 1) {
              mine();
              await theirs;
            }
            const lockSecond = async () => {
              await sql`SELECT id FROM namespaces WHERE name = ${second} FOR UPDATE`.execute(tx.db);
            };
            await (inSavepoint ? tx.savepoint(lockSecond) : lockSecond());
            return attempt;
          },
          { onRetry: (reason) => retries.push(reason) },
        );
      };
      const attempts = await Promise.all([
        run(rows[0], rows[1], aLocked, bHas),
        run(rows[1], rows[0], bLocked, aHas),
      ]);
      assert.deepEqual(retries, ['deadlock']);
      assert.deepEqual([...attempts].sort(), [1, 2]);
    }

    // Only InnoDB can deadlock: SQLite serialises writers with BEGIN IMMEDIATE.
    const deadlockTest = dialect === 'mysql' ? test : () => undefined;
    void deadlockTest('a transaction chosen as a deadlock victim is retried and succeeds', () =>
      deadlock(['dl-a', 'dl-b'], false),
    );
    void deadlockTest(
      'a deadlock inside tx.savepoint retries the whole transaction (the savepoint went with it)',
      () => deadlock(['dl-c', 'dl-d'], true),
    );
  });
});
