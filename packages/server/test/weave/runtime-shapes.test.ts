/**
 * The workflow path's statements compiled once per shape (store/statement-shapes.ts,
 * docs/design/hot-path.md §26): an instance run to the end — results delivered, the inbox
 * consumed, the next rounds' tasks admitted — keeps every shape it names, with the same outcome
 * as before, on SQLite and MariaDB (issue 14 Deliver 2).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { shapesSeen } from '../../src/store/statement-shapes.js';
import { forEachDialect } from '../support/databases.js';
import * as scenario from '../support/e2e-scenarios.js';
import { RUN_WORKFLOWS } from '../support/e2e-workflows.js';
import { startInProcessWorld } from '../support/e2e-worlds.js';
import type { InProcessWorld } from '../support/e2e-worlds.js';

forEachDialect((dialect) => {
  describe(`the workflow path's statement shapes on ${dialect}`, () => {
    let w: InProcessWorld;
    before(async () => {
      w = await startInProcessWorld(dialect, RUN_WORKFLOWS);
    });
    after(() => w.close());

    test('a sequence, a BRANCH and a PARALLEL run to SUCCEEDED; each shape of the workflow path is kept', async () => {
      // Twice: the second instance runs on the kept shapes, and must end the same way.
      await scenario.orderTakesTheCase(w);
      await scenario.orderTakesTheCase(w);
      // The consumer runs on the runners' connections (MariaDB: a Kysely of their own).
      const { database } = w.t.server;
      const seen = new Map([
        ...shapesSeen(database.kysely),
        ...shapesSeen(database.runners.kysely),
      ]);
      for (const prefix of [
        'owner of task',
        'instance to consume',
        'inbox to consume',
        'advances to consume',
        'steps to consume',
        'activations to consume',
        'waits to consume',
        'rounds to consume',
        'pinned version',
        'version queues',
        // MariaDB leaves a round's admission to the commit (pulse/admission.ts boundAtCommit).
        dialect === 'mysql' ? 'quota bound at commit' : 'quota of application',
        'insert weave_inbox',
        'update weave_steps',
        'update weave_activations',
        'insert weave_history',
        'insert weave_activations',
      ]) {
        const shapes = [...seen].filter(([key]) => key.startsWith(prefix));
        assert.ok(shapes.length > 0, `a shape of ${prefix} was run`);
        for (const [key, kept] of shapes) {
          assert.equal(kept, true, `${key} is kept`);
        }
      }
    });
  });
});
