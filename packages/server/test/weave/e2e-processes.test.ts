/**
 * Issue 11's end-to-end acceptance with real worker processes, on SQLite and MariaDB: the
 * scenarios of run-http.test.ts and clock-http.test.ts (e2e-scenarios.ts) with the SDK `Worker`
 * in a child process of its own (worker-process.ts: real HTTP, the shipped `@weave/sdk`), plus a
 * failing branch beside running ones. After each scenario, every started attempt of its
 * instances is checked against what the worker process reported: it ran in that process, saw
 * the task input as stored (exact text) and sent the result the task holds (exact text).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { stringify } from '@weave/json';
import type { JsonInput } from '@weave/json';
import { forEachDialect } from '../support/databases.js';
import * as scenario from '../support/e2e-scenarios.js';
import type { E2eWorld } from '../support/e2e-scenarios.js';
import { CLOCK_WORKFLOWS, RUN_WORKFLOWS, SIBLING } from '../support/e2e-workflows.js';
import { startProcessWorld } from '../support/e2e-worlds.js';
import type { ProcessWorld } from '../support/e2e-worlds.js';
import type { TaskReport } from '../support/worker-process.js';
import { waitFor } from '../support/wait-for.js';

/**
 * Every started attempt of the instances' tasks (TASK and POLL query tasks) ran in the worker
 * process: claimed under its worker id and reported by it, with the task's input as stored; a
 * SUCCEEDED task holds exactly the result the process sent. Returns the attempts checked.
 */
async function assertRanInTheProcess(w: ProcessWorld, instanceIds: readonly string[]) {
  const attempts = await w.t.server.database.kysely
    .selectFrom('task_attempts')
    .innerJoin('tasks', 'tasks.id', 'task_attempts.task_id')
    .innerJoin('weave_activations', (join) =>
      join
        .onRef('weave_activations.id', '=', 'tasks.owner_id')
        .on('tasks.owner_kind', '=', 'workflow_activation'),
    )
    .select([
      'task_attempts.id as attempt_id',
      'task_attempts.task_id',
      'task_attempts.worker_id',
      'task_attempts.status as attempt_status',
      'tasks.status',
      'tasks.input',
      'tasks.result',
      'weave_activations.step_id',
    ])
    .where('weave_activations.instance_id', 'in', [...instanceIds])
    .where('task_attempts.started_at', 'is not', null)
    .execute();
  const reports = (event: TaskReport['event'], attemptId: unknown) =>
    w.worker.reports.filter((r) => r.event === event && r.attempt_id === String(attemptId));
  for (const a of attempts) {
    const what = `${a.step_id} task ${a.task_id} attempt ${a.attempt_id}`;
    assert.equal(a.worker_id, `test-worker-${w.worker.pid}`, `${what}: claimed by the process`);
    const started = reports('started', a.attempt_id);
    assert.equal(started.length, 1, `${what}: the process ran its handler once`);
    assert.equal(started[0]?.pid, w.worker.pid);
    assert.equal(stringify(json(started[0]?.input)), a.input, `${what}: the input as stored`);
    if (a.attempt_status === 'SUCCEEDED') {
      const [finished] = reports('finished', a.attempt_id);
      assert.equal(finished?.outcome, 'succeeded', what);
      assert.equal(stringify(json(finished.result)), a.result, `${what}: the result it sent`);
    }
  }
  return attempts;
}

/** A value the worker process reported (parsed from its JSON line), as exact JSON input. */
function json(value: unknown): JsonInput {
  return (value ?? null) as JsonInput;
}

forEachDialect((dialect) => {
  describe(`end to end with a worker process on ${dialect}`, () => {
    let w: ProcessWorld;
    before(async () => {
      // No sweeper: a task past its deadline stays as it is, so the clock alone acts.
      w = await startProcessWorld(dialect, [...RUN_WORKFLOWS, ...CLOCK_WORKFLOWS, SIBLING]);
    });
    after(() => w.close());

    /** The scenario, then the check that its instances' `attempts` attempts ran in the process. */
    const inProcess =
      (run: (world: E2eWorld) => Promise<string[]>, attempts: number) => async () => {
        const ids = await run(w);
        assert.equal((await assertRanInTheProcess(w, ids)).length, attempts, 'attempts started');
      };

    /** Scenarios checked as they are, with the number of attempts their instances start. */
    const CASES: [string, (world: E2eWorld) => Promise<string[]>, number][] = [
      [
        '[E3.4] [E3.13] [A5.1] worker process: a sequence, a BRANCH on 2^53 + 1 and a PARALLEL with its named join (no successor before it) run to SUCCEEDED with the exact output',
        scenario.orderTakesTheCase,
        5,
      ],
      [
        '[E3.4] worker process: exactly 2^53 does not take the case: the unchosen case is SKIPPED',
        scenario.orderSkipsTheCase,
        4,
      ],
      [
        '[E1.1] worker process: a failed task fails the instance with the task error as its cause',
        scenario.taskFailureFails,
        1,
      ],
      [
        '[A2.6] [E3.14] [A5.1] worker process: POLL pending → succeeded: each round one query task, after the interval, then the successor runs',
        scenario.pollSucceeds,
        4,
      ],
      [
        '[E3.14] worker process: POLL classified failed fails the instance with poll_failed; review holds it as NEEDS_REVIEW',
        scenario.pollFailsOrHolds,
        3,
      ],
      [
        '[E3.14] worker process: POLL out of rounds fails with poll_max_rounds after exactly max_rounds queries',
        scenario.pollRunsOutOfRounds,
        2,
      ],
      [
        '[E4.5] worker process: a query attempt retried by Pulse is not a round: rounds and attempts count apart',
        scenario.pollRetryIsNoRound,
        4,
      ],
      [
        '[A4.5] [A4.6] worker process: instance deadline with only a wait in flight: the wait is cancelled and the instance TIMED_OUT at once',
        scenario.deadlineOverAWait,
        0,
      ],
      [
        '[E4.6] worker process: a failing scope cancels its SIGNAL and TIMER waits, then fails with the task error',
        scenario.failureBesideWaits,
        1,
      ],
    ];
    for (const [name, run, attempts] of CASES) {
      test(name, inProcess(run, attempts));
    }

    test('[A2.5] [A5.1] worker process: a 1 s TIMER fires on DB time within a second of falling due, then the next TASK runs', async () => {
      const [id = ''] = await scenario.timerFires(w);
      await assertRanInTheProcess(w, [id]);
      const history = (await w.client.instances.history(id)).events;
      const fired = history.find((e) => e.type === 'timer.fired');
      const afterStarted = history.find(
        (e) => e.type === 'step.activated' && e.step_id === 'after',
      );
      assert.ok(fired && afterStarted && BigInt(fired.seq) < BigInt(afterStarted.seq));
    });

    test('[E3.13] worker process: exact numbers (1e400, a 23-digit decimal) stay exact from Start input through task inputs and results, step outputs, the instance output and the Orbit event', async () => {
      const [id = ''] = await scenario.exactNumbers(w);
      const attempts = await assertRanInTheProcess(w, [id]);
      assert.equal(attempts.length, 2);
      // What the worker process itself received: the numbers as their exact text.
      const echo = w.worker.reports.find(
        (r) => r.event === 'started' && r.attempt_id === String(attempts[0]?.attempt_id),
      );
      assert.deepEqual(echo?.input, {
        op: 'echo',
        huge: scenario.EXACT_HUGE,
        long: scenario.EXACT_LONG,
      });
      for (const a of attempts) {
        assert.ok(a.input.includes(scenario.EXACT_RAW), `${a.step_id} input`);
        assert.ok(String(a.result).includes(scenario.EXACT_RAW), `${a.step_id} result`);
      }
    });

    test('[A4.5] [E4.4] [E4.5] worker process: POLL deadline: a query running at the deadline is cancelled and the POLL fails poll_deadline', async () => {
      const ids = await scenario.pollDeadline(w);
      const [hung] = await assertRanInTheProcess(w, ids);
      assert.ok(hung);
      // The process was told to stop the running query (its heartbeat saw the cancel request).
      const finished = await w.worker.waitForReport(
        (r) => r.event === 'finished' && r.attempt_id === String(hung.attempt_id),
        'the hung query reported',
      );
      assert.equal(finished.outcome, 'failed');
      assert.equal(finished.cancelled, true, 'its cancel signal fired');
    });

    test('[E4.6] worker process: a failed TASK with running siblings: new work stops, the running siblings are told to stop, one stops (CANCELLED), one settles later (SUCCEEDED), then the instance fails with the task’s code and message', async () => {
      const holds = { pay: `pay-${dialect}`, ship: `ship-${dialect}` };
      const { instance } = await w.client.instances.start('sibling', { input: holds });
      const db = w.t.server.database.kysely;
      const steps = async () =>
        Object.fromEntries(
          (
            await db
              .selectFrom('weave_steps')
              .select(['step_id', 'status', 'cancel_requested', 'current_activation_id'])
              .where('instance_id', '=', instance.id)
              .execute()
          ).map((s) => [s.step_id, s]),
        );
      // The first batch (Start's transaction): the tasks of pay, ship and mail.
      const taskIds = new Set(
        (
          await db
            .selectFrom('weave_activations')
            .select('task_id')
            .where('instance_id', '=', instance.id)
            .where('task_id', 'is not', null)
            .execute()
        ).map((a) => String(a.task_id)),
      );
      const startedOp = (op: string) =>
        w.worker.waitForReport(
          (r) => r.event === 'started' && r.op === op && taskIds.has(r.task_id),
          `${op} started`,
        );
      assert.equal(taskIds.size, 3, 'pay, ship and mail are the first batch');
      // All three run in the worker process before pay is let go.
      await startedOp('fail');
      await startedOp('echo');
      const mail = await startedOp('hang');
      w.worker.release(holds.pay);

      // pay FAILED; mail is told to stop (heartbeat) and ends CANCELLED; ship still runs.
      const failing = await waitFor(
        async () => {
          const s = await steps();
          return s.pay?.status === 'FAILED' && s.mail?.status === 'CANCELLED' ? s : undefined;
        },
        { what: 'pay FAILED and mail CANCELLED', timeoutMs: 20_000 },
      );
      const mailEnd = await w.worker.waitForReport(
        (r) => r.event === 'finished' && r.attempt_id === mail.attempt_id,
        'mail reported',
      );
      assert.equal(mailEnd.outcome, 'failed');
      assert.equal(mailEnd.cancelled, true, 'the worker process was told to stop mail');
      assert.equal(failing.ship?.status, 'ACTIVE');
      assert.equal(Number(failing.ship?.cancel_requested), 1, 'ship is asked to stop');
      assert.equal((await w.client.instances.get(instance.id)).instance.status, 'RUNNING');
      for (const stepId of ['receipt', 'after']) {
        assert.equal(failing[stepId]?.status, 'PENDING', `${stepId}: no new work`);
        assert.equal(failing[stepId]?.current_activation_id, null, stepId);
      }

      // ship ignores the request and succeeds: the instance fails only once it has settled.
      w.worker.release(holds.ship);
      const done = await scenario.ended(w.client, instance.id);
      assert.equal(done.status, 'FAILED');
      assert.deepEqual(done.error, {
        code: 'card_declined',
        message: 'the card was declined',
        step_id: 'pay',
      });
      const end = await steps();
      assert.equal(end.ship?.status, 'SUCCEEDED', 'a success stays a success');
      assert.equal(end.mail?.status, 'CANCELLED');
      assert.equal(end.both?.status, 'FAILED');
      for (const stepId of ['receipt', 'after']) {
        assert.equal(end[stepId]?.status, 'PENDING', `${stepId} never started`);
      }
      const ops = w.worker.reports.filter((r) => taskIds.has(r.task_id)).map((r) => r.op);
      assert.ok(!ops.includes('receipt') && !ops.includes('after'), 'nothing else ran');
      const attempts = await assertRanInTheProcess(w, [instance.id]);
      assert.equal(attempts.length, 3, 'one attempt each of pay, ship and mail');
      const page = await w.client.results.readStream('app');
      const outcome = page.events.find((e) => e.instance_id === instance.id);
      assert.equal(outcome?.type, 'instance.failed');
      assert.deepEqual(outcome?.error, { code: 'card_declined', message: 'the card was declined' });
    });
  });

  describe(`the instance deadline over running tasks with a worker process on ${dialect}`, () => {
    let w: ProcessWorld;
    before(async () => {
      // The sweeper ends a task at its deadline (a completion after it is refused: Pulse).
      w = await startProcessWorld(dialect, CLOCK_WORKFLOWS, { sweepIntervalMs: 100 });
    });
    after(() => w.close());

    const slowRan = async (id: string) => {
      const [slow, ...more] = await assertRanInTheProcess(w, [id]);
      assert.ok(slow && more.length === 0, 'the slow task ran in the process, nothing after it');
      return slow;
    };

    test('[A1.8] [E4.6] worker process: instance deadline: the running task is told to stop and ended by its deadline, then TIMED_OUT, and nothing new starts', async () => {
      const [id = ''] = await scenario.deadlineOverARunningTask(w);
      const slow = await slowRan(id);
      // The process finishes the 2 s task after the deadline; its late result is refused.
      const finished = await w.worker.waitForReport(
        (r) => r.event === 'finished' && r.attempt_id === String(slow.attempt_id),
        'the slow task finished',
      );
      assert.equal(finished.outcome, 'succeeded');
      assert.notEqual((await scenario.slowTask(w, id)).status, 'SUCCEEDED', 'refused: too late');
    });

    test('[E4.6] worker process: instance deadline over a started non-idempotent task: the unknown effect holds the instance NEEDS_REVIEW', async () => {
      const [id = ''] = await scenario.deadlineOverAnUnsureTask(w);
      await slowRan(id);
    });
  });
});
