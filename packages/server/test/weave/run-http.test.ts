/**
 * Instances run to the end (issue 11 slice 2, seed 000 §1–§2): a worker completes the tasks, each
 * result goes through the inbox, the consumer settles the step, plans the next round and starts
 * the next task, until the instance ends — on SQLite and MariaDB, real HTTP and the SDK Worker.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { NonRetryableError } from '@weave/sdk';
import type { WeaveClient } from '@weave/sdk';
import { forEachDialect } from '../support/databases.js';
import { startTestServer } from '../support/servers.js';
import type { TestServer } from '../support/servers.js';
import { waitFor } from '../support/wait-for.js';
import { startWorker } from '../support/workers.js';

/** reserve → BRANCH on an exact number (2^53 + 1 > 2^53) → ship or skip → output. */
const ORDER = {
  schema_version: 1,
  name: 'order',
  input: {
    type: 'object',
    required: ['amount'],
    properties: { amount: { type: 'number' } },
  },
  steps: [
    {
      id: 'reserve',
      kind: 'TASK',
      queue: 'q1',
      input: { amount: '$.input.amount', op: 'reserve' },
    },
    {
      id: 'big',
      kind: 'BRANCH',
      cases: [
        {
          when: { gt: ['$.input.amount', { kind: 'number', text: '9007199254740992' }] },
          steps: [{ id: 'approve', kind: 'TASK', queue: 'q1', input: { op: 'approve' } }],
        },
      ],
      default: [],
    },
    {
      id: 'ship',
      kind: 'PARALLEL',
      branches: {
        label: [{ id: 'print', kind: 'TASK', queue: 'q1', input: { op: 'print' } }],
        notify: [{ id: 'mail', kind: 'TASK', queue: 'q1', input: { op: 'mail' } }],
      },
    },
  ],
  output: { reserved: '$.steps.reserve.output', shipped: '$.steps.ship.output' },
};

/** A TIMER between two TASKs: the clock (here the consumer's scan of due timers) fires it. */
const NAPPING = {
  schema_version: 1,
  name: 'napping',
  steps: [
    { id: 'before', kind: 'TASK', queue: 'q1', input: { op: 'before' } },
    { id: 'nap', kind: 'TIMER', duration: 'PT1S' },
    { id: 'after', kind: 'TASK', queue: 'q1', input: { op: 'after' } },
  ],
};

/** Exact numbers from the Start input through a task's input and result to the outcome. */
const EXACT = {
  schema_version: 1,
  name: 'exact',
  input: {
    type: 'object',
    required: ['huge', 'long'],
    properties: { huge: { type: 'number' }, long: { type: 'number' } },
  },
  steps: [
    {
      id: 'echo',
      kind: 'TASK',
      queue: 'q1',
      input: { op: 'echo', huge: '$.input.huge', long: '$.input.long' },
    },
    { id: 'again', kind: 'TASK', queue: 'q1', input: { op: 'echo', prev: '$.steps.echo.output' } },
  ],
  output: { first: '$.steps.echo.output', second: '$.steps.again.output' },
};

const FAILING = {
  schema_version: 1,
  name: 'failing',
  steps: [
    { id: 'boom', kind: 'TASK', queue: 'q1', input: { op: 'boom' }, retry: { max_attempts: 1 } },
  ],
};

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null;
}

forEachDialect((dialect) => {
  describe(`instances run to the end on ${dialect}`, () => {
    let t: TestServer;
    let client: WeaveClient;
    const ran: string[] = [];
    let stop: () => Promise<void>;

    before(async () => {
      t = await startTestServer(dialect, { sweepIntervalMs: false, scheduleIntervalMs: false });
      client = t.admin;
      await client.workflows.publish(ORDER);
      await client.workflows.publish(FAILING);
      await client.workflows.publish(NAPPING);
      await client.workflows.publish(EXACT);
      const worker = startWorker({
        client,
        concurrency: 4,
        waitMs: 1_000,
        handlers: {
          q1: (input) => {
            const op = isRecord(input) ? String(input.op) : '';
            ran.push(op);
            if (op === 'echo') {
              return Promise.resolve(input);
            }
            if (op === 'boom') {
              throw new NonRetryableError('the card was declined', { code: 'card_declined' });
            }
            return Promise.resolve(
              isRecord(input) && op === 'reserve' ? { held: input.amount } : { op },
            );
          },
        },
      });
      stop = () => worker.stop();
    });
    after(async () => {
      await stop();
      await t.close();
    });

    const settled = (id: string) =>
      waitFor(
        async () => {
          const { instance } = await client.instances.get(id);
          return ['SUCCEEDED', 'FAILED'].includes(instance.status) ? instance : undefined;
        },
        { timeoutMs: 20_000 },
      );

    test('[E3.4] [E3.13] [A5.1] a sequence, a BRANCH on 2^53 + 1 and a PARALLEL run to SUCCEEDED with the exact output', async () => {
      const amount = { kind: 'number', text: '9007199254740993' };
      const { instance } = await client.instances.start('order', { input: { amount } });
      const done = await settled(instance.id);
      assert.equal(done.status, 'SUCCEEDED');
      assert.deepEqual(done.output, {
        reserved: { held: amount },
        shipped: { label: { op: 'print' }, notify: { op: 'mail' } },
      });
      assert.ok(ran.includes('approve'), 'the BRANCH chose the case: 2^53 + 1 > 2^53 exactly');
      assert.ok(BigInt(done.revision) > 2n);
      const page = await client.results.readStream('app');
      const event = page.events.find((e) => e.instance_id === instance.id);
      assert.equal(event?.type, 'instance.succeeded');
      assert.equal(event?.workflow, 'order');
    });

    test('[E3.4] exactly 2^53 does not take the case: the unchosen case is SKIPPED', async () => {
      const before = ran.filter((op) => op === 'approve').length;
      const amount = { kind: 'number', text: '9007199254740992' };
      const { instance } = await client.instances.start('order', { input: { amount } });
      const done = await settled(instance.id);
      assert.equal(done.status, 'SUCCEEDED');
      assert.equal(ran.filter((op) => op === 'approve').length, before);
      const approve = await t.server.database.kysely
        .selectFrom('weave_steps')
        .select('status')
        .where('instance_id', '=', instance.id)
        .where('step_id', '=', 'approve')
        .executeTakeFirstOrThrow();
      assert.equal(approve.status, 'SKIPPED');
    });

    test('[A2.5] [A5.1] a 1 s TIMER fires on DB time within a second of falling due, then the next TASK runs', async () => {
      const { instance } = await client.instances.start('napping', { input: {} });
      const done = await settled(instance.id);
      assert.equal(done.status, 'SUCCEEDED');
      const db = t.server.database.kysely;
      const wait = await db
        .selectFrom('weave_waits')
        .select(['state', 'due_at', 'closed_at'])
        .where('instance_id', '=', instance.id)
        .executeTakeFirstOrThrow();
      assert.equal(wait.state, 'FIRED');
      const lateness = BigInt(wait.closed_at ?? 0) - BigInt(wait.due_at);
      assert.ok(lateness >= 0n && lateness < 1_000_000n, `fired ${lateness} µs after it fell due`);
      const history = await client.instances.history(instance.id);
      assert.ok(history.events.some((e) => e.type === 'timer.fired' && e.step_id === 'nap'));
    });

    test('[E3.13] exact numbers (1e400, a 23-digit decimal) stay exact from Start input through task inputs and results, step outputs, the instance output and the Orbit event', async () => {
      const huge = { kind: 'number', text: '1e400' };
      const long = { kind: 'number', text: '0.12345678901234567890123' };
      const { instance } = await client.instances.start('exact', { input: { huge, long } });
      const done = await settled(instance.id);
      assert.equal(done.status, 'SUCCEEDED');
      const first = { op: 'echo', huge, long };
      assert.deepEqual(done.output, { first, second: { op: 'echo', prev: first } });
      const db = t.server.database.kysely;
      const tasks = await db
        .selectFrom('tasks')
        .innerJoin('weave_activations', 'weave_activations.task_id', 'tasks.id')
        .select(['tasks.input', 'tasks.result', 'weave_activations.step_id'])
        .where('weave_activations.instance_id', '=', instance.id)
        .orderBy('tasks.id')
        .execute();
      const raw = '"huge":1e400,"long":0.12345678901234567890123';
      for (const task of tasks) {
        assert.ok(task.input.includes(raw), `${task.step_id} input ${task.input}`);
        assert.ok(String(task.result).includes(raw), `${task.step_id} result ${task.result}`);
      }
      const step = await db
        .selectFrom('weave_steps')
        .select('output')
        .where('instance_id', '=', instance.id)
        .where('step_id', '=', 'echo')
        .executeTakeFirstOrThrow();
      assert.ok(String(step.output).includes(raw), 'the step output row');
      const page = await client.results.readStream('app');
      const event = page.events.find((e) => e.instance_id === instance.id);
      assert.deepEqual(event?.result, { first, second: { op: 'echo', prev: first } });
    });

    test('[E1.1] a failed task fails the instance with the task error as its cause', async () => {
      const { instance } = await client.instances.start('failing', { input: {} });
      const done = await settled(instance.id);
      assert.equal(done.status, 'FAILED');
      assert.equal(done.error?.code, 'card_declined');
      assert.equal(done.error?.step_id, 'boom');
      const inbox = await t.server.database.kysely
        .selectFrom('weave_inbox')
        .select(['state', 'outcome'])
        .where('instance_id', '=', instance.id)
        .execute();
      assert.deepEqual(
        inbox.map((r) => [r.state, r.outcome]),
        [['PROCESSED', 'APPLIED']],
      );
    });
  });
});
