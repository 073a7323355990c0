/**
 * Admission: the application quota (max active tasks, all queues of the application), the queue
 * capacity (max pending), the input limit, the long-poll wake-up and the sweeper loop.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { claimWithWait } from '../../src/pulse/claim-with-wait.js';
import { completeAttempt } from '../../src/pulse/complete-attempt.js';
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
      const request = {
        namespaceId: f.namespaceId,
        queueName: f.queue,
        workerId: 'w',
        maxTasks: 1,
      };
      const started = Date.now();
      const waiting = claimWithWait(
        { database: f.db.database, notifier, pollMs: 20_000 },
        request,
        20_000,
      );
      await new Promise((r) => setTimeout(r, 50));
      const task = await f.submit();
      notifier.notify(task.queueId);
      const outcome = await waiting;
      assert.equal(outcome.claimed[0]?.task.id, task.id);
      assert.ok(Date.now() - started < 5_000, 'woken, not timed out');
    });

    test('closing the notifier releases a waiting claim empty-handed', async () => {
      const notifier = new TaskNotifier();
      const request = {
        namespaceId: f.namespaceId,
        queueName: f.queue,
        workerId: 'w',
        maxTasks: 1,
      };
      const waiting = claimWithWait(
        { database: f.db.database, notifier, pollMs: 20_000 },
        request,
        20_000,
      );
      await new Promise((r) => setTimeout(r, 50));
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
