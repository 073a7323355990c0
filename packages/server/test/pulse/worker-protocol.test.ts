/**
 * The worker protocol on both engines: claim → start → heartbeat → complete, with the permit
 * checked on every call, and the result transaction of seed 000 §1.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { jsonNumber } from '@weave/json';
import { completeAttempt } from '../../src/pulse/complete-attempt.js';
import type { Completion } from '../../src/pulse/complete-attempt.js';
import type { ClaimedTask } from '../../src/pulse/claim-tasks.js';
import { heartbeatAttempt } from '../../src/pulse/heartbeat-attempt.js';
import { startAttempt } from '../../src/pulse/start-attempt.js';
import { updateQueue } from '../../src/pulse/queues.js';
import { forEachDialect } from '../support/databases.js';
import { createPulseFixture } from '../support/pulse.js';
import type { PulseFixture } from '../support/pulse.js';

const SUCCESS: Completion = {
  outcome: 'succeeded',
  result: new Map([['amount', jsonNumber('12.50')]]),
};

function ref(f: PulseFixture, c: ClaimedTask, permit = c.permit) {
  return { namespaceId: f.namespaceId, taskId: c.task.id, attemptId: c.attemptId, permit };
}

function complete(f: PulseFixture, c: ClaimedTask, completion: Completion, permit = c.permit) {
  return f.tx((tx) =>
    completeAttempt(tx, { ...ref(f, c, permit), completion, credentialId: null }),
  );
}

async function counts(f: PulseFixture) {
  return {
    tasks: await f.count('tasks'),
    attempts: await f.count('task_attempts'),
    events: await f.count('task_events'),
    audit: await f.count('audit_log'),
  };
}

forEachDialect((dialect) => {
  describe(`worker protocol on ${dialect}`, () => {
    let f: PulseFixture;
    before(async () => {
      f = await createPulseFixture(dialect);
    });
    after(() => f.close());

    test('a claim returns an attempt, a permit and a lease that ends no later than the deadline', async () => {
      const task = await f.submit({ timeoutUs: 10_000_000n });
      const [claimed] = await f.claim();
      assert.ok(claimed);
      assert.equal(claimed.task.id, task.id);
      assert.equal(claimed.attemptNumber, 1);
      assert.match(claimed.permit, /^[A-Za-z0-9_-]{43}$/);
      assert.ok(claimed.leaseUntil <= task.deadlineAt);
      const row = await f.task(task.id);
      assert.equal(row.status, 'CLAIMED');
      assert.equal(row.generation, 1n);
      assert.deepEqual(await f.claim(), [], 'a claimed task is not handed out twice');
      await complete(f, claimed, SUCCESS);
    });

    test('[E1.1] a success settles task and attempt, writes the event, audit and receipt', async () => {
      const task = await f.submit();
      const [c] = await f.claim();
      assert.ok(c);
      await f.tx((tx) => startAttempt(tx, ref(f, c)));
      const receipt = await complete(f, c, SUCCESS);
      assert.equal(receipt.status, 'SUCCEEDED');
      assert.equal(receipt.revision, 4n);
      const done = await f.task(task.id);
      assert.equal(done.status, 'SUCCEEDED');
      assert.equal(done.result, '{"amount":12.50}', 'the result keeps its number text');
      assert.equal(done.currentAttemptId, null, 'the permit is settled');
      const events = await f.db.database.kysely
        .selectFrom('task_events')
        .select(['type', 'revision'])
        .where('task_id', '=', task.id)
        .orderBy('revision')
        .execute();
      assert.deepEqual(
        events.map((e) => e.type),
        ['task.submitted', 'task.claimed', 'task.started', 'task.succeeded'],
      );
      const attempt = await f.db.database.kysely
        .selectFrom('task_attempts')
        .select(['status', 'receipt'])
        .where('id', '=', c.attemptId)
        .executeTakeFirstOrThrow();
      assert.equal(attempt.status, 'SUCCEEDED');
      assert.match(attempt.receipt ?? '', /"status":"SUCCEEDED"/);
    });

    test('[E1.6] a re-reported identical completion returns the original receipt and writes nothing', async () => {
      await f.submit();
      const [c] = await f.claim();
      assert.ok(c);
      const first = await complete(f, c, SUCCESS);
      const before = await counts(f);
      const again = await complete(f, c, SUCCESS);
      assert.deepEqual(again, first);
      assert.deepEqual(await counts(f), before);
    });

    test('a different completion for a settled attempt is permit_stale and changes nothing', async () => {
      const task = await f.submit();
      const [c] = await f.claim();
      assert.ok(c);
      await complete(f, c, SUCCESS);
      const before = await counts(f);
      const failed: Completion = {
        outcome: 'failed',
        error: { code: 'x', message: '', retryable: true },
      };
      await assert.rejects(complete(f, c, failed), { code: 'permit_stale' });
      assert.deepEqual(await counts(f), before);
      assert.equal((await f.task(task.id)).status, 'SUCCEEDED');
    });

    test('a foreign permit (another attempt’s token or a made-up one) is permit_stale and changes nothing', async () => {
      await f.submit();
      await f.submit();
      const [a, b] = await f.claim(2);
      assert.ok(a && b);
      const before = await counts(f);
      await assert.rejects(complete(f, a, SUCCESS, b.permit), { code: 'permit_stale' });
      await assert.rejects(complete(f, a, SUCCESS, 'x'.repeat(43)), { code: 'permit_stale' });
      await assert.rejects(
        f.tx((tx) => startAttempt(tx, { ...ref(f, a), attemptId: b.attemptId })),
        {
          code: 'permit_stale',
        },
      );
      assert.deepEqual(await counts(f), before);
      await complete(f, a, SUCCESS);
      await complete(f, b, SUCCESS);
    });

    test('a stale permit from before a lease expiry and a new claim is permit_stale', async () => {
      const task = await f.submit();
      const [old] = await f.claim();
      assert.ok(old);
      await f.expireLease(task.id);
      await assert.rejects(
        f.tx((tx) => heartbeatAttempt(tx, ref(f, old))),
        { code: 'permit_stale' },
      );
      const { expireLeases } = await import('../../src/pulse/expire-leases.js');
      await f.tx((tx) => expireLeases(tx, 10));
      const [fresh] = await f.claim();
      assert.ok(fresh);
      assert.equal(fresh.task.id, task.id);
      assert.equal(fresh.attemptNumber, 2);
      await assert.rejects(complete(f, old, SUCCESS), { code: 'permit_stale' });
      assert.equal((await complete(f, fresh, SUCCESS)).status, 'SUCCEEDED');
    });

    test('a heartbeat extends the lease but never past the deadline, and fails once it has passed', async () => {
      const task = await f.submit();
      const [c] = await f.claim();
      assert.ok(c);
      await f.tx((tx) => startAttempt(tx, ref(f, c)));
      await f.setDeadline(task.id, 2);
      const deadline = (await f.task(task.id)).deadlineAt;
      const beat = await f.tx((tx) => heartbeatAttempt(tx, ref(f, c)));
      assert.equal(beat.leaseUntil, deadline);
      assert.equal(beat.cancelRequested, false);
      await f.setDeadline(task.id, -1);
      await assert.rejects(
        f.tx((tx) => heartbeatAttempt(tx, ref(f, c))),
        { code: 'permit_stale' },
      );
    });

    test('a paused queue hands out nothing and refuses start', async () => {
      await f.submit();
      const [c] = await f.claim();
      assert.ok(c);
      await f.submit();
      await f.tx((tx) => updateQueue(tx, f.namespaceId, f.queue, { paused: true }));
      assert.deepEqual(await f.claim(), []);
      await assert.rejects(
        f.tx((tx) => startAttempt(tx, ref(f, c))),
        { code: 'invalid_state' },
      );
      await f.tx((tx) => updateQueue(tx, f.namespaceId, f.queue, { paused: false }));
      await f.tx((tx) => startAttempt(tx, ref(f, c)));
      await complete(f, c, SUCCESS);
      const [next] = await f.claim();
      assert.ok(next);
      await complete(f, next, SUCCESS);
    });
  });
});
