/**
 * Instances run to the end (issue 11 slice 2, seed 000 §1–§2): a worker completes the tasks, each
 * result goes through the inbox, the consumer settles the step, plans the next round and starts
 * the next task, until the instance ends — on SQLite and MariaDB, real HTTP and the SDK Worker
 * inside the test process. The scenarios are e2e-scenarios.ts; e2e-processes.test.ts runs them
 * with the worker in a process of its own.
 */
import { after, before, describe, test } from 'node:test';
import { forEachDialect } from '../support/databases.js';
import * as scenario from '../support/e2e-scenarios.js';
import type { E2eWorld } from '../support/e2e-scenarios.js';
import { RUN_WORKFLOWS } from '../support/e2e-workflows.js';
import { startInProcessWorld } from '../support/e2e-worlds.js';
import type { InProcessWorld } from '../support/e2e-worlds.js';

forEachDialect((dialect) => {
  describe(`instances run to the end on ${dialect}`, () => {
    let w: InProcessWorld;
    const run = (s: (world: E2eWorld) => Promise<unknown>) => async () => {
      await s(w);
    };
    before(async () => {
      w = await startInProcessWorld(dialect, RUN_WORKFLOWS);
    });
    after(() => w.close());

    test(
      '[E3.4] [E3.13] [A5.1] a sequence, a BRANCH on 2^53 + 1 and a PARALLEL run to SUCCEEDED with the exact output',
      run(scenario.orderTakesTheCase),
    );

    test(
      '[E3.4] exactly 2^53 does not take the case: the unchosen case is SKIPPED',
      run(scenario.orderSkipsTheCase),
    );

    test(
      '[A2.5] [A5.1] a 1 s TIMER fires on DB time within a second of falling due, then the next TASK runs',
      run(scenario.timerFires),
    );

    test(
      '[E3.13] exact numbers (1e400, a 23-digit decimal) stay exact from Start input through task inputs and results, step outputs, the instance output and the Orbit event',
      run(scenario.exactNumbers),
    );

    test(
      '[E1.1] a failed task fails the instance with the task error as its cause',
      run(scenario.taskFailureFails),
    );
  });
});
