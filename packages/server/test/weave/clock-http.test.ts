/**
 * The clock on DB time (issue 11 Deliver 6–7, runtime.md §4.2–§4.3): later POLL rounds, POLL and
 * SIGNAL deadlines, the instance deadline (TIMED_OUT once in-flight work has settled), cancelled
 * waits in a failing scope — on SQLite and MariaDB, real HTTP and the SDK Worker.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { WeaveClient } from '@weave/sdk';
import { NonRetryableError } from '@weave/sdk';
import { forEachDialect } from '../support/databases.js';
import { startTestServer } from '../support/servers.js';
import type { TestServer } from '../support/servers.js';
import { waitFor } from '../support/wait-for.js';
import { startWorker } from '../support/workers.js';

const CLASSIFY = {
  path: '$.status',
  pending: ['WAIT'],
  succeeded: ['DONE'],
  failed: ['LOST'],
  review: ['ODD'],
};

/** A POLL whose query task answers the instance's `answers` in turn, one per attempt. */
function pollWorkflow(name: string, poll: Record<string, unknown>) {
  return {
    schema_version: 1,
    name,
    input: {
      type: 'object',
      required: ['key', 'answers'],
      properties: { key: { type: 'string' }, answers: { type: 'array' } },
    },
    steps: [
      {
        id: 'track',
        kind: 'POLL',
        queue: 'q1',
        input: { op: 'poll', key: '$.input.key', answers: '$.input.answers' },
        classify: CLASSIFY,
        interval: 'PT0.2S',
        max_rounds: 10,
        timeout: 'PT30S',
        ...poll,
      },
      { id: 'after', kind: 'TASK', queue: 'q1', input: { op: 'after' } },
    ],
  };
}

const WORKFLOWS = [
  pollWorkflow('poll', {}),
  pollWorkflow('poll-few', { max_rounds: 2 }),
  pollWorkflow('poll-short', { interval: 'PT0.3S', timeout: 'PT1S', task_timeout: 'PT20S' }),
  {
    schema_version: 1,
    name: 'signal-timeout',
    steps: [{ id: 'approval', kind: 'SIGNAL', name: 'approve', correlation: 'x', timeout: 'PT1S' }],
  },
  slowWorkflow('slow-timeout', true),
  slowWorkflow('slow-unsure', false),
  {
    schema_version: 1,
    name: 'wait-timeout',
    timeout: 'PT1S',
    steps: [{ id: 'nap', kind: 'TIMER', duration: 'PT1H' }],
  },
  {
    schema_version: 1,
    name: 'fail-beside-wait',
    steps: [
      {
        id: 'both',
        kind: 'PARALLEL',
        branches: {
          work: [
            {
              id: 'boom',
              kind: 'TASK',
              queue: 'q1',
              input: { op: 'boom' },
              retry: { max_attempts: 1 },
            },
          ],
          wait: [
            { id: 'approval', kind: 'SIGNAL', name: 'approve', correlation: 'y' },
            { id: 'nap', kind: 'TIMER', duration: 'PT1H' },
          ],
          snooze: [{ id: 'snooze', kind: 'TIMER', duration: 'PT1H' }],
        },
      },
    ],
  },
];

/** A task that runs past the 1 s instance deadline, then one that must never start. */
function slowWorkflow(name: string, idempotent: boolean) {
  return {
    schema_version: 1,
    name,
    timeout: 'PT1S',
    input: { type: 'object', properties: { key: { type: 'string' } } },
    steps: [
      {
        id: 'slow',
        kind: 'TASK',
        queue: 'q1',
        idempotent,
        input: { op: 'slow', key: '$.input.key' },
      },
      { id: 'never', kind: 'TASK', queue: 'q1', input: { op: 'never' } },
    ],
  };
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null;
}

interface ClockServer {
  readonly t: TestServer;
  readonly client: WeaveClient;
  readonly attempts: Map<string, number>;
  stop(): Promise<void>;
}

/**
 * A server with every workflow above and a worker: `poll` answers the instance's `answers` in
 * turn (THROW: a retryable failure; HANG: until cancelled), `slow` runs 2 s whatever it is told.
 */
async function startClockServer(
  dialect: Parameters<Parameters<typeof forEachDialect>[0]>[0],
  sweepIntervalMs: number | false,
): Promise<ClockServer> {
  const t = await startTestServer(dialect, { sweepIntervalMs, scheduleIntervalMs: false });
  const client = t.admin;
  for (const w of WORKFLOWS) {
    await client.workflows.publish(w);
  }
  const attempts = new Map<string, number>();
  const worker = startWorker({
    client,
    concurrency: 8,
    waitMs: 1_000,
    heartbeatMs: 200,
    handlers: {
      q1: async (input, ctx) => {
        const op = isRecord(input) ? String(input.op) : '';
        const key = isRecord(input) ? String(input.key) : '';
        if (op === 'boom') {
          throw new NonRetryableError('the card was declined', { code: 'card_declined' });
        }
        if (op === 'slow') {
          // Runs past the instance deadline; the cancel request does not stop it.
          await new Promise((r) => setTimeout(r, 2_000));
          return { op };
        }
        if (op !== 'poll' || !isRecord(input) || !Array.isArray(input.answers)) {
          return { op };
        }
        const n = attempts.get(key) ?? 0;
        attempts.set(key, n + 1);
        const answers = input.answers as unknown[];
        const answer = String(answers[Math.min(n, answers.length - 1)]);
        if (answer === 'THROW') {
          throw new Error('the carrier API is down for a moment');
        }
        if (answer === 'HANG') {
          await new Promise((r) => {
            ctx.signal.addEventListener('abort', r);
          });
          throw new Error('cancelled');
        }
        return { status: answer, round: n + 1 };
      },
    },
  });
  return {
    t,
    client,
    attempts,
    async stop() {
      await worker.stop();
      await t.close();
    },
  };
}

function endedOn(client: WeaveClient) {
  return (id: string, timeoutMs = 20_000) =>
    waitFor(
      async () => {
        const { instance } = await client.instances.get(id);
        return ['SUCCEEDED', 'FAILED', 'TIMED_OUT', 'NEEDS_REVIEW'].includes(instance.status)
          ? instance
          : undefined;
      },
      { timeoutMs },
    );
}

forEachDialect((dialect) => {
  describe(`the clock on ${dialect}`, () => {
    let t: TestServer;
    let client: WeaveClient;
    let attempts: Map<string, number>;
    let server: ClockServer;

    before(async () => {
      // No sweeper: a task past its deadline stays as it is, so the clock alone acts.
      server = await startClockServer(dialect, false);
      ({ t, client, attempts } = server);
    });
    after(() => server.stop());

    const ended = (id: string, timeoutMs = 20_000) => endedOn(client)(id, timeoutMs);
    const db = () => t.server.database.kysely;
    const rounds = (instanceId: string) =>
      db()
        .selectFrom('weave_poll_rounds')
        .select(['number', 'state', 'task_id', 'classification', 'due_at', 'created_at'])
        .where('instance_id', '=', instanceId)
        .orderBy('number')
        .execute();
    const pollActivation = (instanceId: string) =>
      db()
        .selectFrom('weave_activations')
        .select(['poll_used_rounds', 'poll_deadline_at', 'status'])
        .where('instance_id', '=', instanceId)
        .where('step_id', '=', 'track')
        .executeTakeFirstOrThrow();
    const start = async (workflow: string, key: string, answers: string[]) =>
      (await client.instances.start(workflow, { input: { key, answers } })).instance;

    test('[A2.6] [E3.14] [A5.1] POLL pending → succeeded: each round one query task, after the interval, then the successor runs', async () => {
      const instance = await start('poll', `ok-${dialect}`, ['WAIT', 'WAIT', 'DONE']);
      const done = await ended(instance.id);
      assert.equal(done.status, 'SUCCEEDED');
      const rows = await rounds(instance.id);
      assert.deepEqual(
        rows.map((r) => [Number(r.number), r.state, r.classification]),
        [
          [1, 'DONE', 'PENDING'],
          [2, 'DONE', 'PENDING'],
          [3, 'DONE', 'SUCCEEDED'],
        ],
      );
      assert.equal(new Set(rows.map((r) => String(r.task_id))).size, 3, 'one task per round');
      for (const later of rows.slice(1)) {
        assert.ok(BigInt(later.due_at) - BigInt(later.created_at) >= 200_000n, 'the interval');
      }
      assert.equal(Number((await pollActivation(instance.id)).poll_used_rounds), 3);
      const detail = await client.instances.step(instance.id, 'track');
      assert.equal(detail.status, 'SUCCEEDED');
      assert.deepEqual(detail.output, { status: 'DONE', round: 3 });
      const history = await client.instances.history(instance.id);
      assert.equal(history.events.filter((e) => e.type === 'poll.round_started').length, 2);
      const waits = await db()
        .selectFrom('weave_waits')
        .select(['purpose', 'state'])
        .where('instance_id', '=', instance.id)
        .execute();
      assert.deepEqual(
        waits.map((w) => [w.purpose, w.state]),
        [['POLL_DEADLINE', 'CANCELLED']],
        'the deadline wait closes with the POLL',
      );
    });

    test('[E3.14] POLL classified failed fails the instance with poll_failed; review holds it as NEEDS_REVIEW', async () => {
      const lost = await ended((await start('poll', `lost-${dialect}`, ['WAIT', 'LOST'])).id);
      assert.equal(lost.status, 'FAILED');
      assert.equal(lost.error?.code, 'poll_failed');
      assert.equal(lost.error?.step_id, 'track');
      const odd = await ended((await start('poll', `odd-${dialect}`, ['ODD'])).id);
      assert.equal(odd.status, 'NEEDS_REVIEW');
    });

    test('[E3.14] POLL out of rounds fails with poll_max_rounds after exactly max_rounds queries', async () => {
      const key = `few-${dialect}`;
      const done = await ended((await start('poll-few', key, ['WAIT'])).id);
      assert.equal(done.status, 'FAILED');
      assert.equal(done.error?.code, 'poll_max_rounds');
      assert.equal((await rounds(done.id)).length, 2);
      assert.equal(attempts.get(key), 2);
    });

    test('[E4.5] a query attempt retried by Pulse is not a round: rounds and attempts count apart', async () => {
      const key = `flaky-${dialect}`;
      const done = await ended(
        (await start('poll-few', key, ['THROW', 'WAIT', 'DONE'])).id,
        30_000,
      );
      assert.equal(done.status, 'SUCCEEDED');
      const rows = await rounds(done.id);
      assert.equal(rows.length, 2, 'the retried attempt used no round');
      assert.equal(Number((await pollActivation(done.id)).poll_used_rounds), 2);
      const first = await db()
        .selectFrom('task_attempts')
        .select('id')
        .where('task_id', '=', rows[0]?.task_id ?? '0')
        .execute();
      assert.equal(first.length, 2, 'round 1 took two attempts of its one task');
    });

    test('[A4.5] [E4.4] [E4.5] POLL deadline: a query running at the deadline is cancelled and the POLL fails poll_deadline', async () => {
      const key = `hang-${dialect}`;
      // The first query runs until cancelled: only the POLL deadline can end it.
      const instance = await start('poll-short', key, ['HANG']);
      const done = await ended(instance.id);
      assert.equal(done.status, 'FAILED');
      assert.equal(done.error?.code, 'poll_deadline');
      const activation = await pollActivation(instance.id);
      const rows = await rounds(instance.id);
      const tasks = await db()
        .selectFrom('tasks')
        .select(['id', 'deadline_at', 'cancel_requested'])
        .where(
          'id',
          'in',
          rows.map((r) => r.task_id ?? '0'),
        )
        .execute();
      const { instance: view } = await client.instances.get(instance.id);
      for (const task of tasks) {
        // A4.5 / E4.4: a query task never outlives the POLL deadline (nor the instance's).
        assert.ok(BigInt(task.deadline_at) <= BigInt(activation.poll_deadline_at ?? 0));
        assert.ok(task.deadline_at !== null && view.deadline_at !== undefined);
      }
      assert.equal(rows.at(-1)?.state, 'CANCELLED', 'the running round is cancelled');
      const wait = await db()
        .selectFrom('weave_waits')
        .select(['state', 'due_at', 'closed_at'])
        .where('instance_id', '=', instance.id)
        .executeTakeFirstOrThrow();
      assert.equal(wait.state, 'EXPIRED');
      const late = BigInt(wait.closed_at ?? 0) - BigInt(wait.due_at);
      assert.ok(late >= 0n && late < 1_000_000n, `acted on ${late} µs after the deadline`);
      const history = await client.instances.history(instance.id);
      assert.ok(history.events.some((e) => e.type === 'poll.deadline' && e.step_id === 'track'));
    });

    test('[A2.4] [A4.6] a SIGNAL wait times out on DB time: the step fails signal_timeout', async () => {
      const { instance } = await client.instances.start('signal-timeout', { input: {} });
      assert.equal(instance.status, 'WAITING');
      const done = await ended(instance.id);
      assert.equal(done.status, 'FAILED');
      assert.equal(done.error?.code, 'signal_timeout');
      const wait = await db()
        .selectFrom('weave_waits')
        .select(['purpose', 'signal_name', 'state', 'due_at', 'closed_at'])
        .where('instance_id', '=', instance.id)
        .executeTakeFirstOrThrow();
      assert.equal(wait.purpose, 'SIGNAL');
      assert.equal(wait.signal_name, 'approve');
      assert.equal(wait.state, 'EXPIRED');
      assert.ok(BigInt(wait.closed_at ?? 0) >= BigInt(wait.due_at), 'never before it is due');
      const history = await client.instances.history(instance.id);
      assert.ok(history.events.some((e) => e.type === 'wait.expired' && e.step_id === 'approval'));
    });

    test('[A4.5] [A4.6] instance deadline with only a wait in flight: the wait is cancelled and the instance TIMED_OUT at once', async () => {
      const { instance } = await client.instances.start('wait-timeout', { input: {} });
      assert.equal(instance.status, 'WAITING');
      const done = await ended(instance.id);
      assert.equal(done.status, 'TIMED_OUT');
      const wait = await db()
        .selectFrom('weave_waits')
        .select(['state', 'purpose', 'signal_name', 'payload_version', 'due_at'])
        .where('instance_id', '=', instance.id)
        .executeTakeFirstOrThrow();
      assert.equal(wait.state, 'CANCELLED');
      // A4.6: a TIMER wait has no signal name or payload version.
      assert.deepEqual(
        [wait.purpose, wait.signal_name, wait.payload_version],
        ['TIMER', null, null],
      );
      const row = await db()
        .selectFrom('weave_instances')
        .select('deadline_at')
        .where('id', '=', instance.id)
        .executeTakeFirstOrThrow();
      assert.ok(
        BigInt(wait.due_at) > BigInt(row.deadline_at),
        'the 1 h timer outlived the 1 s life',
      );
      const steps = await db()
        .selectFrom('weave_steps')
        .select(['step_id', 'status'])
        .where('instance_id', '=', instance.id)
        .orderBy('position')
        .execute();
      assert.deepEqual(
        steps.map((s) => [s.step_id, s.status]),
        [
          ['$root', 'CANCELLED'],
          ['nap', 'CANCELLED'],
        ],
      );
    });

    test('[E4.6] a failing scope cancels its SIGNAL and TIMER waits, then fails with the task error', async () => {
      const { instance } = await client.instances.start('fail-beside-wait', { input: {} });
      const done = await ended(instance.id);
      assert.equal(done.status, 'FAILED');
      assert.equal(done.error?.code, 'card_declined');
      assert.equal(done.error?.step_id, 'boom');
      const waits = await db()
        .selectFrom('weave_waits')
        .select(['purpose', 'state'])
        .where('instance_id', '=', instance.id)
        .orderBy('id')
        .execute();
      assert.deepEqual(
        waits.map((w) => [w.purpose, w.state]),
        [
          ['SIGNAL', 'CANCELLED'],
          ['TIMER', 'CANCELLED'],
        ],
      );
      const steps = await client.instances.steps(instance.id);
      const status = new Map(steps.steps.map((s) => [s.id, s.status]));
      assert.equal(status.get('approval'), 'CANCELLED');
      assert.equal(status.get('snooze'), 'CANCELLED');
      assert.equal(status.get('nap'), 'PENDING');
      assert.equal(status.get('both'), 'FAILED');
    });
  });

  describe(`the instance deadline over running tasks on ${dialect}`, () => {
    let t: TestServer;
    let client: WeaveClient;
    let server: ClockServer;

    before(async () => {
      // The sweeper ends a task at its deadline (a completion after it is refused: Pulse).
      server = await startClockServer(dialect, 100);
      ({ t, client } = server);
    });
    after(() => server.stop());

    const ended = (id: string, timeoutMs = 20_000) => endedOn(client)(id, timeoutMs);
    const db = () => t.server.database.kysely;
    const slowTask = (instanceId: string) =>
      db()
        .selectFrom('tasks')
        .select(['status', 'error_code', 'cancel_requested', 'deadline_at', 'updated_at'])
        .where(
          'owner_id',
          'in',
          db()
            .selectFrom('weave_activations')
            .select('id')
            .where('instance_id', '=', instanceId)
            .where('step_id', '=', 'slow'),
        )
        .where('owner_kind', '=', 'workflow_activation')
        .executeTakeFirstOrThrow();

    test('[A1.8] [E4.6] instance deadline: the running task is told to stop and ended by its deadline, then TIMED_OUT, and nothing new starts', async () => {
      const key = `slow-${dialect}`;
      const { instance } = await client.instances.start('slow-timeout', { input: { key } });
      const done = await ended(instance.id);
      assert.equal(done.status, 'TIMED_OUT');
      assert.equal(done.error?.code, 'deadline_exceeded');
      assert.equal(done.error?.step_id, undefined, 'no step caused it');
      const row = await db()
        .selectFrom('weave_instances')
        .select(['ending', 'ending_at', 'finished_at', 'deadline_at'])
        .where('id', '=', instance.id)
        .executeTakeFirstOrThrow();
      assert.equal(row.ending, 'TIMED_OUT');
      assert.ok(BigInt(row.ending_at ?? 0) >= BigInt(row.deadline_at), 'DB time, not before');
      const task = await slowTask(instance.id);
      assert.ok(BigInt(task.deadline_at) <= BigInt(row.deadline_at), 'A1.8');
      assert.ok(['FAILED', 'CANCELLED'].includes(task.status), `the task ended ${task.status}`);
      assert.ok(BigInt(task.updated_at) <= BigInt(row.finished_at ?? 0), 'settled first');
      const steps = await client.instances.steps(instance.id);
      const never = steps.steps.find((s) => s.id === 'never');
      assert.equal(never?.status, 'PENDING', 'nothing new starts after the deadline');
      const types = (await client.instances.history(instance.id)).events.map((e) => e.type);
      assert.ok(types.includes('instance.deadline'));
      assert.equal(types.at(-1), 'instance.timed_out');
      const page = await client.results.readStream('app');
      const event = page.events.find((e) => e.instance_id === instance.id);
      assert.equal(event?.type, 'instance.timed_out');
    });

    test('[E4.6] instance deadline over a started non-idempotent task: the unknown effect holds the instance NEEDS_REVIEW', async () => {
      const { instance } = await client.instances.start('slow-unsure', {
        input: { key: `unsure-${dialect}` },
      });
      const done = await ended(instance.id);
      assert.equal(done.status, 'NEEDS_REVIEW');
      assert.equal((await slowTask(instance.id)).status, 'NEEDS_REVIEW');
      const row = await db()
        .selectFrom('weave_instances')
        .select(['ending'])
        .where('id', '=', instance.id)
        .executeTakeFirstOrThrow();
      assert.equal(row.ending, 'TIMED_OUT', 'it ends TIMED_OUT once an operator settles it');
    });
  });
});
