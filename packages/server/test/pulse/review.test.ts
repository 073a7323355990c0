/**
 * Review of NEEDS_REVIEW tasks (issue 4 §7), and several claimers sharing one queue.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { jsonNumber } from '@weave/json';
import type { ClaimedTask } from '../../src/pulse/claim-tasks.js';
import { claimTasks } from '../../src/pulse/claim-tasks.js';
import { completeAttempt } from '../../src/pulse/complete-attempt.js';
import { reviewTask } from '../../src/pulse/review-task.js';
import type { ReviewAction } from '../../src/pulse/review-task.js';
import { withTx } from '../../src/store/with-tx.js';
import { forEachDialect } from '../support/databases.js';
import { createPulseFixture } from '../support/pulse.js';
import type { PulseFixture } from '../support/pulse.js';

async function needingReview(f: PulseFixture): Promise<string> {
  const task = await f.submit();
  const [c] = await f.claim();
  assert.ok(c);
  await f.tx((tx) =>
    completeAttempt(tx, {
      namespaceId: f.namespaceId,
      taskId: c.task.id,
      attemptId: c.attemptId,
      permit: c.permit,
      completion: {
        outcome: 'needs_review',
        error: { code: 'unsure', message: '', retryable: false },
      },
      credentialId: null,
    }),
  );
  return task.id;
}

function review(f: PulseFixture, taskId: string, action: ReviewAction) {
  return f.tx((tx) =>
    reviewTask(tx, {
      namespaceId: f.namespaceId,
      taskId,
      review: action,
      reason: 'checked',
      credentialId: '1',
    }),
  );
}

forEachDialect((dialect) => {
  describe(`review on ${dialect}`, () => {
    let f: PulseFixture;
    before(async () => {
      f = await createPulseFixture(dialect);
    });
    after(() => f.close());

    test('an operator resolves a NEEDS_REVIEW task as succeeded with the output, audited with the reason', async () => {
      const id = await needingReview(f);
      const receipt = await review(f, id, {
        action: 'succeed',
        output: new Map([['n', jsonNumber('1.0')]]),
      });
      assert.equal(receipt.status, 'SUCCEEDED');
      const task = await f.task(id);
      assert.equal(task.result, '{"n":1.0}');
      assert.equal(task.errorCode, null);
      const audit = await f.db.database.kysely
        .selectFrom('audit_log')
        .select(['action', 'details'])
        .where('object_id', '=', id)
        .orderBy('id', 'desc')
        .executeTakeFirstOrThrow();
      assert.equal(audit.action, 'task.succeeded');
      assert.match(audit.details ?? '', /"reason":"checked"/);
    });

    test('an operator resolves a NEEDS_REVIEW task as failed', async () => {
      const id = await needingReview(f);
      await review(f, id, { action: 'fail', error: { code: 'refunded', message: 'by hand' } });
      const task = await f.task(id);
      assert.equal(task.status, 'FAILED');
      assert.equal(task.errorCode, 'refunded');
    });

    test('an operator retries a NEEDS_REVIEW task: it is claimed again as a new attempt', async () => {
      const id = await needingReview(f);
      assert.equal((await review(f, id, { action: 'retry' })).status, 'PENDING');
      const [again] = await f.claim();
      assert.equal(again?.task.id, id);
      assert.equal(again?.attemptNumber, 2);
    });

    test('reviewing a task that is not in NEEDS_REVIEW is invalid_state and changes nothing', async () => {
      const task = await f.submit();
      const events = await f.count('task_events');
      await assert.rejects(review(f, task.id, { action: 'retry' }), { code: 'invalid_state' });
      assert.equal(await f.count('task_events'), events);
    });
  });

  describe(`several claimers on ${dialect}`, () => {
    let f: PulseFixture;
    before(async () => {
      f = await createPulseFixture(dialect);
    });
    after(() => f.close());

    test('concurrent claims take disjoint tasks, in priority order first', async () => {
      for (let i = 0; i < 20; i++) {
        await f.submit({ priority: i === 7 ? 5 : 0 });
      }
      const claimOnce = (worker: string) =>
        withTx(f.db.database, (tx) =>
          claimTasks(tx, {
            namespaceId: f.namespaceId,
            queueName: f.queue,
            workerId: worker,
            maxTasks: 5,
          }),
        );
      const first = await claimOnce('w0');
      assert.equal(first.claimed[0]?.task.priority, 5, 'the higher priority first');
      const rest = await Promise.all(['w1', 'w2', 'w3', 'w4'].map(claimOnce));
      const all: ClaimedTask[] = [first, ...rest].flatMap((o) => [...o.claimed]);
      const ids = all.map((c) => c.task.id);
      assert.equal(new Set(ids).size, ids.length, 'no task handed out twice');
      assert.equal(ids.length, 20);
    });

    test('a resource key is held by one claimed or running task at a time, across claimers', async () => {
      const a = await f.submit({ resourceKey: 'printer-1' });
      const b = await f.submit({ resourceKey: 'printer-1' });
      const other = await f.submit({ resourceKey: 'printer-2' });
      const claimOnce = () =>
        withTx(f.db.database, (tx) =>
          claimTasks(tx, {
            namespaceId: f.namespaceId,
            queueName: f.queue,
            workerId: 'w',
            maxTasks: 10,
          }),
        );
      const [x, y] = await Promise.all([claimOnce(), claimOnce()]);
      // Which of a and b goes first is open: a claimer that skips a row another holds may
      // take the key with b before the first claimer reaches it. One of them, never both.
      const claimed = [...x.claimed, ...y.claimed];
      const printers = claimed.filter((c) => c.task.id === a.id || c.task.id === b.id);
      assert.equal(printers.length, 1, 'one printer-1 task is claimed, the other waits');
      assert.equal(
        claimed.filter((c) => c.task.id === other.id).length,
        1,
        'printer-2 is not held up by printer-1',
      );
      assert.equal(claimed.length, 2);
      const held = printers[0];
      assert.ok(held);
      const waiting = held.task.id === a.id ? b : a;
      await f.tx((tx) =>
        completeAttempt(tx, {
          namespaceId: f.namespaceId,
          taskId: held.task.id,
          attemptId: held.attemptId,
          permit: held.permit,
          completion: { outcome: 'succeeded', result: null },
          credentialId: null,
        }),
      );
      const next = await claimOnce();
      assert.deepEqual(
        next.claimed.map((c) => c.task.id),
        [waiting.id],
      );
    });
  });
});
