/**
 * A completion's locking read of its task leaves the input out (`TASK_STATE_COLUMNS`,
 * complete-batch.ts): settling reads every column but the input, which may be 256 KiB a task.
 * The claim still hands the whole input to the worker, and the settled task, its stream event
 * and a replayed completion are as before.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { forEachDialect } from '../support/databases.js';
import { startTestServer } from '../support/servers.js';
import type { TestServer } from '../support/servers.js';
import { StatementLog, tablesOf, verbOf } from '../support/statements.js';

forEachDialect((dialect) => {
  describe(`a completion's lock read on ${dialect}`, () => {
    let t: TestServer;
    const log = new StatementLog();
    before(async () => {
      t = await startTestServer(dialect, {
        onStatement: log.hook,
        sweepIntervalMs: false,
        scheduleIntervalMs: false,
      });
      await t.admin.createQueue({ name: 'big', application: 'app' });
    });
    after(() => t.close());

    test('the task is locked without its input; the worker got the input and the outcome is whole', async () => {
      const input = { blob: 'x'.repeat(200_000) };
      const { task } = await t.admin.submitTask('big', { input });
      const { tasks } = await t.admin.claimTasks('big', {
        worker_id: 'w',
        max_tasks: 1,
        start: true,
      });
      const [claimed] = tasks;
      assert.ok(claimed !== undefined);
      assert.deepEqual(claimed.input, input, 'the claim hands out the whole input');
      const mark = log.mark();
      const completion = {
        task_id: claimed.task_id,
        attempt_id: claimed.attempt_id,
        permit: claimed.permit,
        outcome: 'succeeded' as const,
        result: { ok: 1 },
      };
      const answer = await t.admin.completeMany('big', { completions: [completion] });
      assert.deepEqual(answer.errors, []);
      // FOR UPDATE on MariaDB; SQLite's one writer needs none, the read is the same otherwise.
      const locks = log
        .transactions(mark)
        .flatMap((tx) => tx.statements)
        .filter((s) => verbOf(s.sql) === 'select' && tablesOf(s.sql)[0] === 'tasks');
      assert.ok(locks.length > 0, 'the completion read its task');
      for (const lock of locks) {
        assert.doesNotMatch(lock.sql, /\binput\b/, lock.sql);
        assert.doesNotMatch(lock.sql, /select \*/i, lock.sql);
      }
      const done = await t.admin.getTask(task.id);
      assert.equal(done.task.status, 'SUCCEEDED');
      assert.deepEqual(done.task.result, { ok: 1 });
      assert.deepEqual(done.task.input, input, 'the stored input is untouched');
      const replay = await t.admin.completeMany('big', { completions: [completion] });
      assert.deepEqual(replay.errors, []);
      assert.deepEqual(replay.receipts, answer.receipts, 'a repeated completion replays');
    });
  });
});
