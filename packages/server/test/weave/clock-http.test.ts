/**
 * The clock on DB time (issue 11 Deliver 6–7, runtime.md §4.2–§4.3): later POLL rounds, POLL and
 * SIGNAL deadlines, the instance deadline (TIMED_OUT once in-flight work has settled), cancelled
 * waits in a failing scope — on SQLite and MariaDB, real HTTP and the SDK Worker inside the test
 * process. The scenarios are e2e-scenarios.ts; e2e-processes.test.ts runs them with the worker in
 * a process of its own.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { forEachDialect } from '../support/databases.js';
import * as scenario from '../support/e2e-scenarios.js';
import type { E2eWorld } from '../support/e2e-scenarios.js';
import { CLOCK_WORKFLOWS } from '../support/e2e-workflows.js';
import { startInProcessWorld } from '../support/e2e-worlds.js';
import type { InProcessWorld } from '../support/e2e-worlds.js';

forEachDialect((dialect) => {
  describe(`the clock on ${dialect}`, () => {
    let w: InProcessWorld;
    const run = (s: (world: E2eWorld) => Promise<unknown>) => async () => {
      await s(w);
    };
    before(async () => {
      // No sweeper: a task past its deadline stays as it is, so the clock alone acts.
      w = await startInProcessWorld(dialect, CLOCK_WORKFLOWS, { heartbeatMs: 200 });
    });
    after(() => w.close());

    test(
      '[A2.6] [E3.14] [A5.1] POLL pending → succeeded: each round one query task, after the interval, then the successor runs',
      run(scenario.pollSucceeds),
    );

    test(
      '[E3.14] POLL classified failed fails the instance with poll_failed; review holds it as NEEDS_REVIEW',
      run(scenario.pollFailsOrHolds),
    );

    test(
      '[E3.14] POLL out of rounds fails with poll_max_rounds after exactly max_rounds queries',
      run(scenario.pollRunsOutOfRounds),
    );

    test(
      '[E4.5] a query attempt retried by Pulse is not a round: rounds and attempts count apart',
      run(scenario.pollRetryIsNoRound),
    );

    test(
      '[A4.5] [E4.4] [E4.5] POLL deadline: a query running at the deadline is cancelled and the POLL fails poll_deadline',
      run(scenario.pollDeadline),
    );

    test('[A2.4] [A4.6] a SIGNAL wait times out on DB time: the step fails signal_timeout', async () => {
      const { instance } = await w.client.instances.start('signal-timeout', { input: {} });
      assert.equal(instance.status, 'WAITING');
      const done = await scenario.ended(w.client, instance.id);
      assert.equal(done.status, 'FAILED');
      assert.equal(done.error?.code, 'signal_timeout');
      const wait = await w.t.server.database.kysely
        .selectFrom('weave_waits')
        .select(['purpose', 'signal_name', 'state', 'due_at', 'closed_at'])
        .where('instance_id', '=', instance.id)
        .executeTakeFirstOrThrow();
      assert.equal(wait.purpose, 'SIGNAL');
      assert.equal(wait.signal_name, 'approve');
      assert.equal(wait.state, 'EXPIRED');
      assert.ok(BigInt(wait.closed_at ?? 0) >= BigInt(wait.due_at), 'never before it is due');
      const history = await w.client.instances.history(instance.id);
      assert.ok(history.events.some((e) => e.type === 'wait.expired' && e.step_id === 'approval'));
    });

    test(
      '[A4.5] [A4.6] instance deadline with only a wait in flight: the wait is cancelled and the instance TIMED_OUT at once',
      run(scenario.deadlineOverAWait),
    );

    test(
      '[E4.6] a failing scope cancels its SIGNAL and TIMER waits, then fails with the task error',
      run(scenario.failureBesideWaits),
    );
  });

  describe(`the instance deadline over running tasks on ${dialect}`, () => {
    let w: InProcessWorld;
    const run = (s: (world: E2eWorld) => Promise<unknown>) => async () => {
      await s(w);
    };
    before(async () => {
      // The sweeper ends a task at its deadline (a completion after it is refused: Pulse).
      w = await startInProcessWorld(dialect, CLOCK_WORKFLOWS, {
        sweepIntervalMs: 100,
        heartbeatMs: 200,
      });
    });
    after(() => w.close());

    test(
      '[A1.8] [E4.6] instance deadline: the running task is told to stop and ended by its deadline, then TIMED_OUT, and nothing new starts',
      run(scenario.deadlineOverARunningTask),
    );

    test(
      '[E4.6] instance deadline over a started non-idempotent task: the unknown effect holds the instance NEEDS_REVIEW',
      run(scenario.deadlineOverAnUnsureTask),
    );
  });
});
