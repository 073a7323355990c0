/**
 * The batched paths on both engines: a claim writes its whole set in one go (optionally started
 * in the same transaction), and batch completions lock the batch at once but keep every item
 * whole or nothing — including a refusal raised while settling (forced through the settle seam).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { WeaveError } from '../../src/errors.js';
import { sql } from 'kysely';
import { claimTasks, readyQuery } from '../../src/pulse/claim-tasks.js';
import type { ClaimedTask } from '../../src/pulse/claim-tasks.js';
import type { Completion, CompleteRequest } from '../../src/pulse/complete-attempt.js';
import { completeBatch } from '../../src/pulse/complete-batch.js';
import type { BatchItemResult } from '../../src/pulse/complete-batch.js';
import { settleTask } from '../../src/pulse/settle-task.js';
import { startAttempt } from '../../src/pulse/start-attempt.js';
import { updateQueue } from '../../src/pulse/queues.js';
import { forEachDialect } from '../support/databases.js';
import { createPulseFixture } from '../support/pulse.js';
import type { PulseFixture } from '../support/pulse.js';

const OK: Completion = { outcome: 'succeeded', result: 'ok' };

function item(f: PulseFixture, c: ClaimedTask, completion: Completion = OK): CompleteRequest {
  return f.completion(c, completion);
}

function summary(results: readonly BatchItemResult[]) {
  return results.map((r) => ('receipt' in r ? r.receipt.status : r.error.code));
}

async function counts(f: PulseFixture) {
  return {
    events: await f.count('task_events'),
    audit: await f.count('audit_log'),
    attempts: await f.count('task_attempts'),
  };
}

forEachDialect((dialect) => {
  describe(`batched claim and completions on ${dialect}`, () => {
    let f: PulseFixture;
    before(async () => {
      f = await createPulseFixture(dialect);
    });
    after(() => f.close());

    const claim = (maxTasks: number, start?: boolean) =>
      f.tx(async (tx) => {
        const request = { namespaceId: f.namespaceId, queueName: f.queue, workerId: 'w9' };
        const outcome = await claimTasks(tx, {
          ...request,
          maxTasks,
          ...(start === undefined ? {} : { start }),
        });
        return [...outcome.claimed];
      });

    test('a claim of several tasks gives each its own attempt, permit, revision and event', async () => {
      const tasks = [await f.submit(), await f.submit(), await f.submit()];
      const claimed = await claim(3);
      assert.deepEqual(
        claimed.map((c) => c.task.id),
        tasks.map((t) => t.id),
      );
      assert.equal(new Set(claimed.map((c) => c.attemptId)).size, 3);
      assert.equal(new Set(claimed.map((c) => c.permit)).size, 3);
      for (const c of claimed) {
        const row = await f.task(c.task.id);
        assert.equal(row.status, 'CLAIMED');
        assert.equal(row.currentAttemptId, c.attemptId, 'each task points at its own attempt');
        assert.equal(row.revision, c.task.revision + 1n);
        assert.equal(row.generation, c.task.generation + 1n);
        assert.equal(row.leaseUntil, c.leaseUntil);
        assert.equal(row.leaseOwner, 'w9');
      }
      const results = await f.tx((tx) =>
        completeBatch(
          tx,
          claimed.map((c) => item(f, c)),
        ),
      );
      assert.deepEqual(summary(results), ['SUCCEEDED', 'SUCCEEDED', 'SUCCEEDED']);
    });

    // SQLite only: its planner has no statistics and picked ix_tasks_deadline plus a sort of every
    // pending task (a drain slowing with the backlog). MariaDB's planner is cost-based: on a tiny
    // table a scan is right; on 75,000 rows it reads ix_tasks_claim without a filesort (checked
    // by hand with EXPLAIN, docs/design/pulse.md "Claim query").
    if (dialect === 'sqlite') {
      test('the claim scan reads ix_tasks_claim in its order: no sort, whatever the backlog', async () => {
        const { queueId } = await f.submit();
        await f.claim(100); // nothing left pending for the next tests, whatever happens below
        const plan = await f.tx(async (tx) => {
          const compiled = readyQuery(tx, { namespaceId: f.namespaceId, id: queueId }, 6).compile();
          let i = 0;
          const inlined = compiled.sql.replace(/\?/g, () => {
            const value = compiled.parameters[i++];
            return typeof value === 'string' ? `'${value}'` : String(value);
          });
          const { rows } = await sql.raw(`EXPLAIN QUERY PLAN ${inlined}`).execute(tx.db);
          return JSON.stringify(rows, (_key, v: unknown) =>
            typeof v === 'bigint' ? String(v) : v,
          );
        });
        assert.match(plan, /ix_tasks_claim/);
        assert.doesNotMatch(plan, /TEMP B-TREE/);
      });
    }

    test('a claim with start hands out running attempts: claimed and started events, no start call needed', async () => {
      const task = await f.submit();
      const before = await counts(f);
      const [c] = await claim(1, true);
      assert.ok(c && c.task.id === task.id);
      const row = await f.task(task.id);
      assert.equal(row.status, 'RUNNING');
      assert.equal(row.revision, task.revision + 2n);
      assert.equal((await counts(f)).events, before.events + 2);
      const again = await f.tx((tx) =>
        startAttempt(tx, {
          namespaceId: f.namespaceId,
          taskId: c.task.id,
          attemptId: c.attemptId,
          permit: c.permit,
        }),
      );
      assert.equal(again.revision, row.revision, 'a start of a started attempt changes nothing');
      // Started: a lost lease now makes the effect uncertain (not VOID) — checked by the sweeper tests.
      const [result] = await f.tx((tx) => completeBatch(tx, [item(f, c)]));
      assert.ok(result && 'receipt' in result && result.receipt.status === 'SUCCEEDED');
    });

    test('a paused queue hands out nothing, with or without start', async () => {
      await f.submit();
      await f.tx((tx) => updateQueue(tx, f.namespaceId, f.queue, { paused: true }));
      assert.deepEqual(await claim(5, true), []);
      await f.tx((tx) => updateQueue(tx, f.namespaceId, f.queue, { paused: false }));
      const claimed = await claim(5, true);
      assert.equal(claimed.length, 1);
      await f.tx((tx) =>
        completeBatch(
          tx,
          claimed.map((c) => item(f, c)),
        ),
      );
    });

    test('a task named twice in one batch: an identical re-report replays, a different one is permit_stale', async () => {
      await f.submit();
      await f.submit();
      const [a, b] = await claim(2);
      assert.ok(a && b);
      const failed: Completion = {
        outcome: 'failed',
        error: { code: 'x', message: 'm', retryable: false },
      };
      const results = await f.tx((tx) =>
        completeBatch(tx, [item(f, b), item(f, a), item(f, a), item(f, b, failed)]),
      );
      assert.deepEqual(summary(results), ['SUCCEEDED', 'SUCCEEDED', 'SUCCEEDED', 'permit_stale']);
      const [, first, replay] = results;
      assert.ok(first && replay && 'receipt' in first && 'receipt' in replay);
      assert.deepEqual(replay.receipt, first.receipt);
      assert.equal((await f.task(b.task.id)).status, 'SUCCEEDED');
    });

    test('unknown ids, a forged permit and a malformed id are refused per item; the rest settle', async () => {
      await f.submit();
      const [a] = await claim(1);
      assert.ok(a);
      const before = await counts(f);
      const results = await f.tx((tx) =>
        completeBatch(tx, [
          { ...item(f, a), taskId: '999999' },
          { ...item(f, a), permit: 'forged' },
          { ...item(f, a), attemptId: 'x1' },
          { ...item(f, a), taskId: '01' },
          item(f, a),
        ]),
      );
      assert.deepEqual(summary(results), [
        'not_found',
        'permit_stale',
        'permit_stale',
        'not_found',
        'SUCCEEDED',
      ]);
      const after = await counts(f);
      assert.equal(after.events, before.events + 1, 'only the accepted item wrote its event');
    });

    test("crossed attempts (each item names the other task's attempt and permit) are foreign; the right pair settles", async () => {
      await f.submit();
      await f.submit();
      const [a, b] = await claim(2);
      assert.ok(a && b);
      const results = await f.tx((tx) =>
        completeBatch(tx, [
          { ...item(f, a), attemptId: b.attemptId, permit: b.permit },
          { ...item(f, b), attemptId: a.attemptId, permit: a.permit },
        ]),
      );
      assert.deepEqual(
        results.map((r) => ('error' in r ? r.error.details : undefined)),
        [{ reason: 'foreign' }, { reason: 'foreign' }],
      );
      assert.equal((await f.task(a.task.id)).status, 'CLAIMED', 'nothing changed');
      const again = await f.tx((tx) => completeBatch(tx, [item(f, a), item(f, b)]));
      assert.deepEqual(summary(again), ['SUCCEEDED', 'SUCCEEDED']);
    });

    test('a refusal raised while settling rolls back exactly that item; the others settle', async () => {
      await f.submit();
      await f.submit();
      await f.submit();
      const [a, b, c] = await claim(3);
      assert.ok(a && b && c);
      const before = await counts(f);
      const refusing: typeof settleTask = async (tx, task, settlement) => {
        const receipt = await settleTask(tx, task, settlement);
        if (task.id === b.task.id) {
          // After the writes: the savepoint must undo them.
          throw new WeaveError('invalid_state', 'refused while settling');
        }
        return receipt;
      };
      const results = await f.tx((tx) =>
        completeBatch(tx, [item(f, a), item(f, b), item(f, c)], { settle: refusing }),
      );
      assert.deepEqual(summary(results), ['SUCCEEDED', 'invalid_state', 'SUCCEEDED']);
      assert.equal((await f.task(a.task.id)).status, 'SUCCEEDED');
      assert.equal((await f.task(b.task.id)).status, 'CLAIMED', 'the refused item changed nothing');
      assert.equal((await f.task(c.task.id)).status, 'SUCCEEDED');
      const after = await counts(f);
      assert.equal(after.events, before.events + 2);
      assert.equal(after.audit, before.audit + 2);
      const [retried] = await f.tx((tx) => completeBatch(tx, [item(f, b)]));
      assert.ok(retried && 'receipt' in retried && retried.receipt.status === 'SUCCEEDED');
    });

    test('a driver error while settling fails the whole batch', async () => {
      await f.submit();
      const [a] = await claim(1);
      assert.ok(a);
      const broken: typeof settleTask = () => Promise.reject(new Error('connection lost'));
      await assert.rejects(
        f.tx((tx) => completeBatch(tx, [item(f, a)], { settle: broken })),
        /connection lost/,
      );
      assert.equal((await f.task(a.task.id)).status, 'CLAIMED');
      await f.tx((tx) => completeBatch(tx, [item(f, a)]));
    });
  });
});
