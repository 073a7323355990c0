/**
 * Leases, deadlines, retries and cancellation on the database clock, forced by moving instants
 * into the past (no sleeps).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { cancelTask } from '../../src/pulse/cancel-task.js';
import type { ClaimedTask } from '../../src/pulse/claim-tasks.js';
import { completeAttempt } from '../../src/pulse/complete-attempt.js';
import type { Completion } from '../../src/pulse/complete-attempt.js';
import { expireLeases } from '../../src/pulse/expire-leases.js';
import { heartbeatAttempt } from '../../src/pulse/heartbeat-attempt.js';
import { DEFAULT_RETRY_POLICY } from '../../src/pulse/retry-policy.js';
import { startAttempt } from '../../src/pulse/start-attempt.js';
import { forEachDialect } from '../support/databases.js';
import { createPulseFixture } from '../support/pulse.js';
import type { PulseFixture } from '../support/pulse.js';

const FAIL: Completion = {
  outcome: 'failed',
  error: { code: 'boom', message: 'x', retryable: true },
};

function ref(f: PulseFixture, c: ClaimedTask) {
  return {
    namespaceId: f.namespaceId,
    taskId: c.task.id,
    attemptId: c.attemptId,
    permit: c.permit,
  };
}

async function claimOne(f: PulseFixture): Promise<ClaimedTask> {
  const [c] = await f.claim();
  assert.ok(c, 'a task was claimable');
  return c;
}

async function claimStarted(f: PulseFixture): Promise<ClaimedTask> {
  const c = await claimOne(f);
  await f.tx((tx) => startAttempt(tx, ref(f, c)));
  return c;
}

function complete(f: PulseFixture, c: ClaimedTask, completion: Completion) {
  return f.tx((tx) => completeAttempt(tx, { ...ref(f, c), completion, credentialId: null }));
}

async function attemptStatus(f: PulseFixture, attemptId: string) {
  const row = await f.db.database.kysely
    .selectFrom('task_attempts')
    .select('status')
    .where('id', '=', attemptId)
    .executeTakeFirstOrThrow();
  return row.status;
}

/** The instant the last event of a task was written: the tx.now of that change. */
async function lastEventAt(f: PulseFixture, taskId: string): Promise<bigint> {
  const row = await f.db.database.kysely
    .selectFrom('task_events')
    .select('at')
    .where('task_id', '=', taskId)
    .orderBy('revision', 'desc')
    .executeTakeFirstOrThrow();
  return BigInt(row.at);
}

forEachDialect((dialect) => {
  describe(`leases, deadlines, retries and cancel on ${dialect}`, () => {
    let f: PulseFixture;
    before(async () => {
      f = await createPulseFixture(dialect);
    });
    after(() => f.close());

    test('a lease that ends before start voids the attempt and makes the task PENDING again, uncharged', async () => {
      const task = await f.submit();
      const c = await claimOne(f);
      await f.expireLease(task.id);
      const swept = await f.tx((tx) => expireLeases(tx, 10));
      assert.deepEqual(swept.requeuedQueueIds, [task.queueId]);
      const row = await f.task(task.id);
      assert.equal(row.status, 'PENDING');
      assert.equal(row.chargedAttempts, 0);
      assert.equal(row.effectUncertain, false);
      assert.equal(await attemptStatus(f, c.attemptId), 'VOID');
      const again = await claimOne(f);
      await complete(f, again, { outcome: 'succeeded', result: null });
    });

    test('a lease that ends after start retries an idempotent task under its frozen policy', async () => {
      const task = await f.submit({ idempotent: true });
      const c = await claimStarted(f);
      await f.expireLease(task.id);
      await f.tx((tx) => expireLeases(tx, 10));
      const row = await f.task(task.id);
      assert.equal(row.status, 'PENDING');
      assert.equal(row.errorCode, 'lease_expired');
      assert.equal(row.chargedAttempts, 1);
      assert.equal(row.availableAt - (await lastEventAt(f, task.id)), 1_000_000n);
      assert.equal(await attemptStatus(f, c.attemptId), 'EXPIRED');
      // Leave nothing claimable behind: on a slow machine its 1 s backoff ends during a later
      // test, whose claim would take it.
      await f.tx((tx) =>
        cancelTask(tx, { namespaceId: f.namespaceId, taskId: task.id, credentialId: null }),
      );
    });

    test('a lease that ends after start puts a non-idempotent task in NEEDS_REVIEW, effect uncertain', async () => {
      const task = await f.submit({ idempotent: false });
      const c = await claimStarted(f);
      await f.expireLease(task.id);
      await f.tx((tx) => expireLeases(tx, 10));
      const row = await f.task(task.id);
      assert.equal(row.status, 'NEEDS_REVIEW');
      assert.equal(row.effectUncertain, true);
      assert.equal(await attemptStatus(f, c.attemptId), 'EXPIRED');
      await assert.rejects(complete(f, c, { outcome: 'succeeded', result: null }), {
        code: 'permit_stale',
      });
    });

    test('a passed deadline fails a pending task with deadline_exceeded', async () => {
      const task = await f.submit();
      await f.setDeadline(task.id, -1);
      await f.tx((tx) => expireLeases(tx, 10));
      const row = await f.task(task.id);
      assert.equal(row.status, 'FAILED');
      assert.equal(row.errorCode, 'deadline_exceeded');
      assert.ok(row.finishedAt !== null);
    });

    test('a passed deadline puts a started non-idempotent task in NEEDS_REVIEW, an idempotent one in FAILED', async () => {
      const risky = await f.submit({ idempotent: false });
      const safe = await f.submit({ idempotent: true });
      const [a, b] = await f.claim(2);
      assert.ok(a && b);
      await f.tx((tx) => startAttempt(tx, ref(f, a)));
      await f.tx((tx) => startAttempt(tx, ref(f, b)));
      await f.setDeadline(risky.id, -1);
      await f.setDeadline(safe.id, -1);
      await f.tx((tx) => expireLeases(tx, 10));
      const riskyRow = await f.task(risky.id);
      assert.equal(riskyRow.status, 'NEEDS_REVIEW');
      assert.equal(riskyRow.effectUncertain, true);
      assert.equal((await f.task(safe.id)).status, 'FAILED');
    });

    test('[E1.5] retryable failures back off deterministically (1 s, 2 s) and then fail when the attempts run out', async () => {
      const retry = { ...DEFAULT_RETRY_POLICY, maxAttempts: 3, initialIntervalUs: 1_000_000n };
      const task = await f.submit({ retry });
      const delays: bigint[] = [];
      for (let i = 0; i < 2; i++) {
        const c = await claimOne(f);
        const receipt = await complete(f, c, FAIL);
        assert.equal(receipt.status, 'PENDING', 'a temporary failure is no result');
        const row = await f.task(task.id);
        delays.push(row.availableAt - (await lastEventAt(f, task.id)));
        assert.deepEqual(await f.claim(), [], 'not claimable during the backoff');
        await f.tx((tx) =>
          tx.db
            .updateTable('tasks')
            .set({ available_at: tx.now })
            .where('id', '=', task.id)
            .execute(),
        );
      }
      assert.deepEqual(delays, [1_000_000n, 2_000_000n]);
      const last = await claimOne(f);
      assert.equal((await complete(f, last, FAIL)).status, 'FAILED');
      const types = await f.db.database.kysely
        .selectFrom('task_events')
        .select('type')
        .where('task_id', '=', task.id)
        .where('type', 'in', ['task.retry_scheduled', 'task.failed'])
        .orderBy('revision')
        .execute();
      assert.deepEqual(
        types.map((t) => t.type),
        ['task.retry_scheduled', 'task.retry_scheduled', 'task.failed'],
      );
    });

    test('a non-retryable error code fails the task at once', async () => {
      const retry = { ...DEFAULT_RETRY_POLICY, nonRetryableCodes: ['boom'] };
      const task = await f.submit({ retry });
      const c = await claimOne(f);
      assert.equal((await complete(f, c, FAIL)).status, 'FAILED');
      assert.equal((await f.task(task.id)).errorCode, 'boom');
    });

    test('cancel ends a pending task at once', async () => {
      const task = await f.submit();
      const receipt = await f.tx((tx) =>
        cancelTask(tx, { namespaceId: f.namespaceId, taskId: task.id, credentialId: null }),
      );
      assert.equal(receipt.status, 'CANCELLED');
      assert.deepEqual(await f.claim(), []);
    });

    test('cancel while running is reported on the next heartbeat and a failure then ends CANCELLED', async () => {
      const task = await f.submit();
      const c = await claimStarted(f);
      const receipt = await f.tx((tx) =>
        cancelTask(tx, { namespaceId: f.namespaceId, taskId: task.id, credentialId: null }),
      );
      assert.equal(receipt.status, 'RUNNING');
      const beat = await f.tx((tx) => heartbeatAttempt(tx, ref(f, c)));
      assert.equal(beat.cancelRequested, true);
      const done = await complete(f, c, {
        outcome: 'failed',
        error: { code: 'stopped', message: '', retryable: true },
      });
      assert.equal(done.status, 'CANCELLED');
    });

    test('cancelling a finished task is invalid_state', async () => {
      const task = await f.submit();
      const c = await claimOne(f);
      await complete(f, c, { outcome: 'succeeded', result: null });
      await assert.rejects(
        f.tx((tx) =>
          cancelTask(tx, { namespaceId: f.namespaceId, taskId: task.id, credentialId: null }),
        ),
        { code: 'invalid_state' },
      );
    });
  });
});
