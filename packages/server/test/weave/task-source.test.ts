/**
 * The source of a workflow task (issue 12 Deliver 6, E4.7), on SQLite and MariaDB: `GET
 * /tasks/{id}/source` of a TASK step's task names its instance, workflow and version, step and
 * activation; of a POLL's query task also its round. A plain task is still `submit`. The
 * workflow detail needs the rights to read the instance (`workflows:read` and every queue of the
 * pinned version, A3.6); a task reader without them gets `{kind, owner_id}` as before.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { WeaveClient } from '@weave/sdk';
import type { Scope } from '@weave/sdk';
import { forEachDialect } from '../support/databases.js';
import { refusal } from '../support/refusal.js';
import { startTestServer } from '../support/servers.js';
import type { TestServer } from '../support/servers.js';

const SOURCED = {
  schema_version: 1,
  name: 'sourced',
  steps: [
    {
      id: 'both',
      kind: 'PARALLEL',
      branches: {
        pay: [{ id: 'charge', kind: 'TASK', queue: 'q1', input: {} }],
        watch: [
          {
            id: 'track',
            kind: 'POLL',
            queue: 'q1',
            input: {},
            interval: 'PT5M',
            max_rounds: 3,
            timeout: 'PT1H',
            classify: { path: '$.s', pending: ['W'], succeeded: ['D'] },
          },
        ],
        ship: [{ id: 'ship', kind: 'TASK', queue: 'q2', input: {} }],
      },
    },
  ],
};

forEachDialect((dialect) => {
  describe(`workflow task sources on ${dialect}`, () => {
    let t: TestServer;
    let client: WeaveClient;
    let instanceId: string;
    const taskOf = new Map<string, string>();
    const activationOf = new Map<string, string>();

    async function keyFor(scopes: Scope[], queues: string[]): Promise<WeaveClient> {
      const { key } = await client.createCredential({
        name: `k-${queues.join('-')}`,
        scopes,
        queues,
      });
      assert.ok(key);
      return t.clientFor('ns', key);
    }

    before(async () => {
      t = await startTestServer(dialect, { sweepIntervalMs: false, scheduleIntervalMs: false });
      client = t.admin;
      await client.createQueue({ name: 'q2', application: 'app' });
      await client.workflows.publish(SOURCED);
      ({
        instance: { id: instanceId },
      } = await client.instances.start('sourced', { input: {} }));
      for (const step of (await client.instances.steps(instanceId)).steps) {
        if (step.task_id !== undefined && step.activation_id !== undefined) {
          taskOf.set(step.id, step.task_id);
          activationOf.set(step.id, step.activation_id);
        }
      }
    });
    after(() => t.close());

    test('[E4.7] a TASK step’s task names its instance, workflow, version, step and activation', async () => {
      const taskId = taskOf.get('charge') ?? '';
      const { task_id, source } = await client.getTaskSource(taskId);
      assert.equal(task_id, taskId);
      assert.deepEqual(source, {
        kind: 'workflow_activation',
        owner_id: activationOf.get('charge'),
        workflow: {
          instance_id: instanceId,
          workflow: 'sourced',
          version: 1,
          step_id: 'charge',
          activation_id: activationOf.get('charge'),
          activation_number: 1,
        },
      });
    });

    test('[E4.7] a POLL query task also names its round (id and number)', async () => {
      const taskId = taskOf.get('track') ?? '';
      const round = await t.server.database.kysely
        .selectFrom('weave_poll_rounds')
        .select(['id', 'number'])
        .where('task_id', '=', taskId)
        .executeTakeFirstOrThrow();
      const { source } = await client.getTaskSource(taskId);
      assert.deepEqual(source, {
        kind: 'workflow_activation',
        owner_id: activationOf.get('track'),
        workflow: {
          instance_id: instanceId,
          workflow: 'sourced',
          version: 1,
          step_id: 'track',
          activation_id: activationOf.get('track'),
          activation_number: 1,
          poll_round: { id: String(round.id), number: 1 },
        },
      });
    });

    test('[E4.7] a plain task is still a submit', async () => {
      const { task } = await client.submitTask('q1', { input: {} });
      assert.deepEqual((await client.getTaskSource(task.id)).source, { kind: 'submit' });
    });

    test('[A3.6] the workflow detail needs the rights to read the instance; without them the answer stays {kind, owner_id}', async () => {
      const taskId = taskOf.get('charge') ?? '';
      const plain = { kind: 'workflow_activation', owner_id: activationOf.get('charge') };
      const taskReader = await keyFor(['tasks:read'], ['q1', 'q2']);
      assert.deepEqual((await taskReader.getTaskSource(taskId)).source, plain);
      const partial = await keyFor(['tasks:read', 'workflows:read'], ['q1']);
      assert.deepEqual(
        (await partial.getTaskSource(taskId)).source,
        plain,
        'the pinned version also uses q2',
      );
      const full = await keyFor(['tasks:read', 'workflows:read'], ['q1', 'q2']);
      const { source } = await full.getTaskSource(taskId);
      assert.equal('workflow' in source ? source.workflow?.step_id : undefined, 'charge');
      const otherQueue = await keyFor(['tasks:read', 'workflows:read'], ['q2']);
      const denied = await refusal(otherQueue.getTaskSource(taskId));
      assert.equal(denied.status, 403, "the task's own queue is still needed");
    });
  });
});
