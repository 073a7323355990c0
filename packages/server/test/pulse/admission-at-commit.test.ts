/**
 * Admission left to the commit (pulse/admission.ts `boundAtCommit`, hot-path.md §27): on MariaDB a
 * round's admission is a deferred bound update that the database refuses at the limit, failing
 * the transaction, which withTx runs again with the exact (counting) admission. The outcome is the
 * exact path's on both engines: these tests run on SQLite too, where admissions always count.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createConnection } from 'mysql2/promise';
import { sql } from 'kysely';
import { submitOwnedTasks } from '../../src/pulse/submit-owned.js';
import { AdmissionsAtCommit, PAUSE_MS } from '../../src/store/admissions-at-commit.js';
import { SESSION_SQL_MODE, openDatabase } from '../../src/store/database.js';
import type { Database } from '../../src/store/database.js';
import type { RetryReason } from '../../src/store/dialect.js';
import { parseConnectionUrl } from '../../src/store/connection-url.js';
import type { Tx } from '../../src/store/with-tx.js';
import { withTx } from '../../src/store/with-tx.js';
import { forEachDialect } from '../support/databases.js';
import { createPulseFixture, ownedTaskSpecs } from '../support/pulse.js';
import type { PulseFixture } from '../support/pulse.js';

test('after a refusal at commit, admissions count exactly for PAUSE_MS, then go to the commit again', () => {
  let now = 1_000;
  const admissions = new AdmissionsAtCommit(() => now);
  assert.equal(admissions.allowed, true);
  admissions.refused();
  now += PAUSE_MS - 1;
  assert.equal(admissions.allowed, false);
  now += 1;
  assert.equal(admissions.allowed, true);
});

/** `database` with the refusal memory on a clock the test moves (no waiting, no timing). */
function withClock(database: Database, clock: { now: number }): Database {
  return { ...database, admissions: new AdmissionsAtCommit(() => clock.now) };
}

forEachDialect((dialect) => {
  /**
   * A fixture of quota `maxActiveTasks` and queue `capacity`, a pool of its own whose statements
   * are kept, and `submitOwnedTasks` in one of its transactions.
   */
  const fixture = (limits: { maxActiveTasks: number; capacity: number }) => {
    const clock = { now: 0 };
    const statements: string[] = [];
    let f: PulseFixture;
    let pool: Database;
    let database: Database;
    before(async () => {
      f = await createPulseFixture(dialect, limits);
      pool = openDatabase(f.db.url, { onStatement: (text) => statements.push(text) });
      database = withClock(pool, clock);
    });
    after(async () => {
      await pool.close();
      await f.close();
    });

    /** `n` new tasks in one transaction: its outcome, retries and statements. */
    const submit = async (n: number, beforeCommit?: () => Promise<void>) => {
      const given = await ownedTaskSpecs(f, n);
      const retries: RetryReason[] = [];
      const from = statements.length;
      let outcome: unknown = 'committed';
      try {
        await withTx(
          database,
          async (tx: Tx) => {
            await submitOwnedTasks(tx, f.namespaceId, given);
            await beforeCommit?.();
          },
          { onRetry: (reason) => retries.push(reason) },
        );
      } catch (e: unknown) {
        outcome = (e as { code?: unknown }).code ?? e;
      }
      return { outcome, retries, quotaReads: quotaReads(statements.slice(from)) };
    };

    const bound = () =>
      f.tx(async (tx) => {
        const row = await tx.db
          .selectFrom('application_quotas')
          .select('active_bound')
          .executeTakeFirstOrThrow();
        return BigInt(row.active_bound);
      });
    return {
      clock,
      submit,
      bound,
      get f() {
        return f;
      },
      get database() {
        return database;
      },
    };
  };

  /** The locked quota reads of an exact admission among `texts`. */
  const quotaReads = (texts: readonly string[]) =>
    texts.filter((s) => /^select[^;]*from [`"]?application_quotas/i.test(s)).length;
  const refusedRetries = dialect === 'mysql' ? ['admission'] : [];

  describe(`admission at commit on ${dialect}`, () => {
    const t = fixture({ maxActiveTasks: 5, capacity: 4 });

    test('[A1.7] within the limits the bound grows by the batch; on MariaDB with no quota read', async () => {
      // A new application's bound is exact (0): its first admission needs no count.
      const first = await t.submit(1);
      const second = await t.submit(2);
      assert.deepEqual([first.outcome, second.outcome], ['committed', 'committed']);
      assert.deepEqual([...first.retries, ...second.retries], []);
      assert.equal(await t.bound(), 3n);
      assert.equal(second.quotaReads, dialect === 'mysql' ? 0 : 1);
    });

    test('[A1.7] over the queue capacity the batch is refused whole (queue_full); MariaDB runs it again, counting', async () => {
      // 3 PENDING of capacity 4: 2 more would be 5.
      const tasks = await t.f.count('tasks');
      const seen = await t.submit(2);
      assert.equal(seen.outcome, 'queue_full');
      assert.deepEqual(seen.retries, refusedRetries);
      assert.equal(await t.f.count('tasks'), tasks);
      assert.equal(await t.bound(), 3n, 'nothing written');
    });

    test('[A1.7] after a refusal at commit the process counts exactly for a while; the quota refuses whole', async () => {
      await t.f.claim(3);
      // 3 active of 5 (the refusal above was a moment ago on the test's clock): 3 more would be 6.
      const refused = await t.submit(3);
      assert.equal(refused.outcome, 'quota_exceeded');
      assert.deepEqual(refused.retries, []);
      assert.equal(refused.quotaReads, 1);
      // Later the admissions go to the commit again (MariaDB).
      t.clock.now += PAUSE_MS;
      const fits = await t.submit(1);
      assert.equal(fits.outcome, 'committed');
      assert.deepEqual(fits.retries, []);
      assert.equal(fits.quotaReads, dialect === 'mysql' ? 0 : 1);
      assert.equal(await t.f.count('tasks'), 4);
      assert.equal(await t.bound(), 4n);
    });
  });

  // MariaDB only (SQLite's one writer cannot hold two transactions open): not registered
  // elsewhere rather than skipped.
  const onMariaDb = dialect === 'mysql' ? describe : () => undefined;

  void onMariaDb(`two admissions at commit on ${dialect}`, () => {
    const t = fixture({ maxActiveTasks: 2, capacity: 100 });

    test('[A1.7] two transactions take the last slot at once: one commits, the other is refused whole', async () => {
      await t.submit(1);
      let release: () => void = () => undefined;
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      let holds = true;
      // Both bound updates wait in their transactions, unsent: the race is at the commits.
      const first = t.submit(1, async () => {
        if (holds) {
          holds = false;
          await held;
        }
      });
      const second = await t.submit(1, async () => {
        release();
        await first;
      });
      assert.equal((await first).outcome, 'committed');
      assert.equal(second.outcome, 'quota_exceeded');
      assert.deepEqual(second.retries, ['admission']);
      assert.equal(await t.f.count('tasks'), 2);
      assert.equal(await t.bound(), 2n);
    });

    test('every MariaDB session is strict and escapes with backslashes, whatever the server sets', async () => {
      const config = parseConnectionUrl(t.f.db.url);
      assert.ok(config.kind === 'mysql');
      const { host, port, user, password, database } = config;
      const connection = await createConnection({ host, port, user, password, database });
      try {
        await connection.query("SET SESSION sql_mode = 'NO_BACKSLASH_ESCAPES,ANSI_QUOTES'");
        await connection.query(SESSION_SQL_MODE);
        const [rows] = await connection.query('SELECT @@SESSION.sql_mode AS m');
        const mode = String((rows as { m: string }[])[0]?.m).split(',');
        assert.ok(mode.includes('STRICT_TRANS_TABLES'), mode.join());
        assert.ok(mode.includes('ANSI_QUOTES'), mode.join());
        assert.ok(!mode.includes('NO_BACKSLASH_ESCAPES'), mode.join());
      } finally {
        await connection.end();
      }
      const pooled = await withTx(t.database, async (tx) => {
        const row = await sql<{ m: string }>`SELECT @@SESSION.sql_mode AS m`.execute(tx.db);
        return String(row.rows[0]?.m);
      });
      assert.match(pooled, /STRICT_TRANS_TABLES/);
    });
  });
});
