/**
 * Admission: the application quota (max active tasks, all queues of the application), the queue
 * capacity (max pending), the input limit, the long-poll wake-up and the sweeper loop.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { claimWithWait } from '../../src/pulse/claim-with-wait.js';
import { completeAttempt } from '../../src/pulse/complete-attempt.js';
import type { Completion } from '../../src/pulse/complete-attempt.js';
import type { ClaimedTask } from '../../src/pulse/claim-tasks.js';
import { reviewTask } from '../../src/pulse/review-task.js';
import { startLeaseSweeper } from '../../src/pulse/lease-sweeper.js';
import { MAX_INPUT_BYTES } from '../../src/pulse/submit-task.js';
import { TaskNotifier } from '../../src/pulse/task-notifier.js';
import { forEachDialect } from '../support/databases.js';
import { createPulseFixture } from '../support/pulse.js';
import type { PulseFixture } from '../support/pulse.js';
import { waitFor } from '../support/wait-for.js';

forEachDialect((dialect) => {
  describe(`admission on ${dialect}`, () => {
    let f: PulseFixture;
    before(async () => {
      f = await createPulseFixture(dialect, { maxActiveTasks: 2, capacity: 5 });
    });
    after(() => f.close());

    test('a full application quota refuses with quota_exceeded until a task finishes', async () => {
      await f.submit();
      await f.submit();
      const before = await f.count('tasks');
      await assert.rejects(f.submit(), { code: 'quota_exceeded' });
      assert.equal(await f.count('tasks'), before, 'nothing written');
      const [c] = await f.claim();
      assert.ok(c);
      await assert.rejects(
        f.submit(),
        { code: 'quota_exceeded' },
        'a claimed task is still active',
      );
      await f.tx((tx) =>
        completeAttempt(tx, {
          namespaceId: f.namespaceId,
          taskId: c.task.id,
          attemptId: c.attemptId,
          permit: c.permit,
          completion: { outcome: 'succeeded', result: null },
          credentialId: null,
        }),
      );
      await f.submit();
    });

    test('an input over 256 KiB is payload_too_large', async () => {
      const input = JSON.stringify('x'.repeat(MAX_INPUT_BYTES));
      await assert.rejects(f.submit({ input }), { code: 'payload_too_large' });
    });
  });

  describe(`the admission bound on ${dialect}`, () => {
    let f: PulseFixture;
    before(async () => {
      f = await createPulseFixture(dialect, { maxActiveTasks: 3, capacity: 100 });
    });
    after(() => f.close());

    const bound = async () =>
      BigInt(
        (
          await f.db.database.kysely
            .selectFrom('application_quotas')
            .select('active_bound')
            .executeTakeFirstOrThrow()
        ).active_bound,
      );
    const complete = (c: ClaimedTask, completion: Completion) =>
      f.tx((tx) => completeAttempt(tx, f.completion(c, completion)));

    test('[quota] the bound counts admissions, is recounted at the limit, and a review retry makes the next admission count', async () => {
      // A new application knows nothing: the first admission counts (0) and the bound becomes 1.
      const a = await f.submit();
      assert.equal(await bound(), 1n);
      const [ca] = await f.claim();
      assert.equal(ca?.task.id, a.id);
      await complete(ca, { outcome: 'needs_review' });
      // Active: none (A waits for review). Completions never lower the bound.
      assert.equal(await bound(), 1n);
      await f.submit(); // B
      await f.submit(); // C — bound 3, active 2
      assert.equal(await bound(), 3n);
      const d = await f.submit(); // at the limit: counts 2, admits, bound 3 = active 3
      assert.equal(await bound(), 3n);
      await assert.rejects(f.submit(), { code: 'quota_exceeded' });
      // Finish B and C: active 1 (D); a recount sets the bound to 2 with E.
      for (const c of await f.claim(2)) {
        assert.notEqual(c.task.id, d.id);
        await complete(c, { outcome: 'succeeded', result: null });
      }
      await f.submit(); // E
      assert.equal(await bound(), 2n, 'recounted: D, then E admitted');
      // The operator retries A: active 3 (A, D, E) while the bound said 2.
      await f.tx((tx) =>
        reviewTask(tx, {
          namespaceId: f.namespaceId,
          taskId: a.id,
          review: { action: 'retry' },
          reason: 'checked by hand',
          credentialId: null,
        }),
      );
      // Without forgetting the bound this submit would be admitted as a fourth active task.
      await assert.rejects(f.submit(), { code: 'quota_exceeded' });
      const active = await f.db.database.kysely
        .selectFrom('tasks')
        .select('id')
        .where('status', 'in', ['PENDING', 'CLAIMED', 'RUNNING'])
        .execute();
      assert.equal(active.length, 3);
    });
  });

  describe(`queue capacity on ${dialect}`, () => {
    let f: PulseFixture;
    before(async () => {
      f = await createPulseFixture(dialect, { maxActiveTasks: 100, capacity: 1 });
    });
    after(() => f.close());

    test('a queue at its capacity of pending tasks refuses with queue_full; a claim makes room', async () => {
      await f.submit();
      await assert.rejects(f.submit(), { code: 'queue_full' });
      assert.equal((await f.claim()).length, 1);
      await f.submit();
    });
  });

  describe(`long-poll and sweeper on ${dialect}`, () => {
    let f: PulseFixture;
    before(async () => {
      f = await createPulseFixture(dialect);
    });
    after(() => f.close());

    test('a waiting claim is woken at once by a local submit, with no polling delay', async () => {
      const notifier = new TaskNotifier();
      const request = f.claimRequest(1);
      const started = Date.now();
      const waiting = claimWithWait(
        { database: f.db.database, notifier, pollMs: 20_000 },
        request,
        20_000,
      );
      await waitFor(() => notifier.waiterCount() === 1 || undefined, { what: 'the claim to wait' });
      const task = await f.submit();
      notifier.notify(task.queueId);
      const outcome = await waiting;
      assert.equal(outcome.claimed[0]?.task.id, task.id);
      assert.ok(Date.now() - started < 5_000, 'woken, not timed out');
    });

    test('closing the notifier releases a waiting claim empty-handed', async () => {
      const notifier = new TaskNotifier();
      const request = f.claimRequest(1);
      const waiting = claimWithWait(
        { database: f.db.database, notifier, pollMs: 20_000 },
        request,
        20_000,
      );
      await waitFor(() => notifier.waiterCount() === 1 || undefined, { what: 'the claim to wait' });
      notifier.close();
      assert.deepEqual((await waiting).claimed, []);
    });

    test('the sweeper loop requeues an expired claim and stops cleanly', async () => {
      const task = await f.submit();
      const [c] = await f.claim();
      assert.ok(c);
      await f.expireLease(task.id);
      const sweeper = startLeaseSweeper({
        database: f.db.database,
        notifier: new TaskNotifier(),
        intervalMs: 10,
      });
      try {
        await waitFor(
          async () => ((await f.task(task.id)).status === 'PENDING' ? true : undefined),
          {
            what: 'the task back in PENDING',
          },
        );
      } finally {
        await sweeper.stop();
      }
    });
  });
});
