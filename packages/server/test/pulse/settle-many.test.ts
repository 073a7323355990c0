/**
 * `settleTasks`: a batch of different outcomes settled in one pass of the result transaction
 * (one statement per step and table, per-row values through CASE) leaves every task, attempt,
 * raw event, audit row and stream event exactly as settling them one by one would.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { parse } from '@weave/json';
import type { ClaimedTask } from '../../src/pulse/claim-tasks.js';
import type { Completion } from '../../src/pulse/complete-attempt.js';
import { completeBatch } from '../../src/pulse/complete-batch.js';
import { forEachDialect } from '../support/databases.js';
import { createPulseFixture } from '../support/pulse.js';
import type { PulseFixture } from '../support/pulse.js';

const OUTCOMES: Completion[] = [
  { outcome: 'succeeded', result: parse('{"a":1.50}') },
  { outcome: 'succeeded', result: parse('[12345678901234567890]') },
  { outcome: 'failed', error: { code: 'bad_input', message: 'no', retryable: false } },
  { outcome: 'failed', error: { code: 'flaky', message: 'again', retryable: true } },
  { outcome: 'needs_review', error: { code: 'unsure', message: 'look', retryable: false } },
];

forEachDialect((dialect) => {
  describe(`settling a mixed batch at once on ${dialect}`, () => {
    let f: PulseFixture;
    before(async () => {
      f = await createPulseFixture(dialect);
    });
    after(() => f.close());

    async function snapshot(claimed: readonly ClaimedTask[]) {
      const k = f.db.database.kysely;
      const ids = claimed.map((c) => c.task.id);
      const tasks = await k
        .selectFrom('tasks')
        .select(['status', 'revision', 'result', 'error_code', 'charged_attempts'])
        .select(['current_attempt_id', 'lease_owner'])
        .where('id', 'in', ids)
        .orderBy('id')
        .execute();
      const attempts = await k
        .selectFrom('task_attempts')
        .select(['status', 'error_code', 'receipt'])
        .where('task_id', 'in', ids)
        .orderBy('task_id')
        .execute();
      const events = await k
        .selectFrom('task_events')
        .select(['type', 'status', 'revision'])
        .where('task_id', 'in', ids)
        .where('revision', '>', 2)
        .orderBy('task_id')
        .execute();
      const audit = await k
        .selectFrom('audit_log')
        .select(['action', 'object_id'])
        .where('object_id', 'in', ids)
        .orderBy('id')
        .execute();
      const stream = await k
        .selectFrom('orbit_result_events')
        .select(['type', 'body'])
        .where('source_id', 'in', ids)
        .orderBy('source_id')
        .execute();
      // Ids differ between the two runs; everything else must not.
      const strip = (text: string | null) =>
        text?.replace(/"(task_id|attempt_id|seq)":"\d+"/g, '"$1":"#"').replace(/"at":"[^"]+"/, '');
      return {
        tasks: tasks.map((t) => ({ ...t, revision: String(t.revision) })),
        attempts: attempts.map((a) => ({ ...a, receipt: strip(a.receipt) })),
        events: events.map((e) => ({ ...e, revision: String(e.revision) })),
        audit: audit.map((a) => a.action),
        stream: stream.map((s) => ({ type: s.type, body: strip(s.body) })),
      };
    }

    async function claimFive() {
      for (let i = 0; i < OUTCOMES.length; i++) {
        await f.submit();
      }
      const claimed = await f.claim(OUTCOMES.length);
      assert.equal(claimed.length, OUTCOMES.length);
      return claimed;
    }

    const request = (c: ClaimedTask, completion: Completion) => f.completion(c, completion);

    test('a mixed batch settles exactly as the same completions one by one', async () => {
      const together = await claimFive();
      const results = await f.tx((tx) =>
        completeBatch(
          tx,
          together.map((c, i) => request(c, OUTCOMES[i] as Completion)),
        ),
      );
      assert.deepEqual(
        results.map((r) => ('receipt' in r ? r.receipt.status : r.error.code)),
        ['SUCCEEDED', 'SUCCEEDED', 'FAILED', 'PENDING', 'NEEDS_REVIEW'],
      );
      const alone = await claimFive();
      for (const [i, c] of alone.entries()) {
        await f.tx((tx) => completeBatch(tx, [request(c, OUTCOMES[i] as Completion)]));
      }
      const a = await snapshot(together);
      const b = await snapshot(alone);
      assert.deepEqual(a, b);
      assert.deepEqual(
        a.tasks.map((t) => [t.status, t.error_code, t.current_attempt_id]),
        [
          ['SUCCEEDED', null, null],
          ['SUCCEEDED', null, null],
          ['FAILED', 'bad_input', null],
          ['PENDING', 'flaky', null],
          ['NEEDS_REVIEW', 'unsure', null],
        ],
      );
      assert.equal(a.tasks[1]?.result, '[12345678901234567890]');
      assert.deepEqual(
        a.stream.map((s) => s.type),
        ['task.succeeded', 'task.succeeded', 'task.failed', 'task.needs_review'],
        'a retry appends no stream event',
      );
      assert.equal(a.audit.length, 5);
    });
  });
});
