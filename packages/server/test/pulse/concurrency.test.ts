/**
 * Several in-process workers and a sweeper share one queue while some attempts "crash" (never
 * complete, before or after start). At the end every task is terminal, none has two accepted
 * results, uncertain non-idempotent work is NEEDS_REVIEW, and every task's events are one per
 * revision. On MariaDB the workers really run concurrently (SKIP LOCKED, deadlock retries).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ClaimedTask } from '../../src/pulse/claim-tasks.js';
import { claimTasks } from '../../src/pulse/claim-tasks.js';
import { completeAttempt } from '../../src/pulse/complete-attempt.js';
import { expireLeases } from '../../src/pulse/expire-leases.js';
import { DEFAULT_RETRY_POLICY } from '../../src/pulse/retry-policy.js';
import { startAttempt } from '../../src/pulse/start-attempt.js';
import { forEachDialect } from '../support/databases.js';
import { createPulseFixture } from '../support/pulse.js';
import type { PulseFixture } from '../support/pulse.js';

const TASKS = 60;
const TERMINAL = ['SUCCEEDED', 'FAILED', 'CANCELLED', 'NEEDS_REVIEW'];

/** Deterministic choices (no Math.random): a small LCG per worker. */
function lcg(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
}

async function runAttempt(f: PulseFixture, c: ClaimedTask, roll: number, crashed: Set<string>) {
  const ref = {
    namespaceId: f.namespaceId,
    taskId: c.task.id,
    attemptId: c.attemptId,
    permit: c.permit,
  };
  if (roll < 0.1) {
    crashed.add(c.task.id); // dies before start
    return;
  }
  await f.tx((tx) => startAttempt(tx, ref));
  if (roll < 0.2) {
    crashed.add(c.task.id); // dies after start: effect uncertain
    return;
  }
  const completion =
    roll < 0.3
      ? { outcome: 'failed' as const, error: { code: 'flaky', message: '', retryable: true } }
      : { outcome: 'succeeded' as const, result: c.task.id };
  await f.tx((tx) => completeAttempt(tx, { ...ref, completion, credentialId: null }));
}

async function workerLoop(
  f: PulseFixture,
  seed: number,
  crashed: Set<string>,
  done: () => boolean,
) {
  const random = lcg(seed);
  while (!done()) {
    const outcome = await f.tx((tx) =>
      claimTasks(tx, {
        namespaceId: f.namespaceId,
        queueName: f.queue,
        workerId: `w${seed}`,
        maxTasks: 3,
      }),
    );
    for (const c of outcome.claimed) {
      await runAttempt(f, c, random(), crashed);
    }
    if (outcome.claimed.length === 0) {
      await new Promise((r) => setTimeout(r, 5));
    }
  }
}

async function chaosLoop(f: PulseFixture, crashed: Set<string>, done: () => boolean) {
  while (!done()) {
    for (const id of [...crashed]) {
      crashed.delete(id);
      await f.expireLease(id);
    }
    await f.tx((tx) => expireLeases(tx, 50));
    await new Promise((r) => setTimeout(r, 5));
  }
}

forEachDialect((dialect) => {
  describe(`workers, crashes and the sweeper together on ${dialect}`, () => {
    let f: PulseFixture;
    before(async () => {
      f = await createPulseFixture(dialect);
    });
    after(() => f.close());

    test('every task ends terminal with at most one accepted result and one event per revision', async () => {
      const retry = {
        ...DEFAULT_RETRY_POLICY,
        maxAttempts: 4,
        initialIntervalUs: 1n,
        maxIntervalUs: 1n,
      };
      for (let i = 0; i < TASKS; i++) {
        await f.submit({ idempotent: i % 2 === 0, retry });
      }
      const k = f.db.database.kysely;
      let finished = false;
      const crashed = new Set<string>();
      const loops = [1, 2, 3, 4].map((seed) => workerLoop(f, seed, crashed, () => finished));
      loops.push(chaosLoop(f, crashed, () => finished));
      const deadline = Date.now() + 60_000;
      while (!finished && Date.now() < deadline) {
        const open = await k
          .selectFrom('tasks')
          .select('id')
          .where('status', 'not in', TERMINAL)
          .execute();
        finished = open.length === 0;
        await new Promise((r) => setTimeout(r, 20));
      }
      finished = true;
      await Promise.all(loops);
      const tasks = await k
        .selectFrom('tasks')
        .select(['id', 'status', 'revision', 'idempotent', 'effect_uncertain'])
        .execute();
      assert.ok(
        tasks.every((t) => TERMINAL.includes(t.status)),
        'all terminal',
      );
      const accepted = await k
        .selectFrom('task_attempts')
        .select(['task_id', (eb) => eb.fn.countAll().as('n')])
        .where('status', '=', 'SUCCEEDED')
        .groupBy('task_id')
        .execute();
      assert.ok(
        accepted.every((a) => Number(a.n) === 1),
        'no task has two accepted results',
      );
      for (const t of tasks.filter((t) => Number(t.effect_uncertain) === 1)) {
        assert.equal(Number(t.idempotent), 0, 'only non-idempotent work stays uncertain');
        assert.equal(t.status, 'NEEDS_REVIEW');
      }
      const events = await k
        .selectFrom('task_events')
        .select([
          'task_id',
          (eb) => eb.fn.countAll().as('n'),
          (eb) => eb.fn.max('revision').as('top'),
        ])
        .groupBy('task_id')
        .execute();
      const byTask = new Map(events.map((e) => [String(e.task_id), e]));
      for (const t of tasks) {
        const e = byTask.get(String(t.id));
        assert.equal(
          Number(e?.n),
          Number(t.revision),
          `task ${String(t.id)}: one event per revision`,
        );
        assert.equal(Number(e?.top), Number(t.revision));
      }
    });
  });
});
