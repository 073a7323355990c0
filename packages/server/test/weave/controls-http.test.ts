/**
 * Pause, resume and cancel (issue 12 Deliver 2, docs/design/controls.md, E4.4, E4.6) on SQLite
 * and MariaDB, over real HTTP with the SDK Worker: a pause that holds (results recorded, nothing
 * new activated, a due timer recorded and acted on at the resume), a cancel that waits for the
 * running task to settle, and the controls' guards (expected revision, state, rights).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { WeaveClient } from '@weave/sdk';
import { isWeaveApiError } from '@weave/sdk';
import { sql } from 'kysely';
import { forEachDialect } from '../support/databases.js';
import { startTestServer } from '../support/servers.js';
import type { TestServer } from '../support/servers.js';
import { waitFor } from '../support/wait-for.js';
import { startWorker } from '../support/workers.js';

const WORKFLOWS = [
  {
    schema_version: 1,
    name: 'held',
    input: { type: 'object', properties: { key: { type: 'string' } } },
    steps: [
      {
        id: 'both',
        kind: 'PARALLEL',
        branches: {
          work: [
            { id: 'first', kind: 'TASK', queue: 'q1', input: { op: 'hold', key: '$.input.key' } },
            { id: 'second', kind: 'TASK', queue: 'q1', input: { op: 'quick' } },
          ],
          wait: [
            { id: 'nap', kind: 'TIMER', duration: 'PT1.5S' },
            { id: 'woken', kind: 'TASK', queue: 'q1', input: { op: 'quick' } },
          ],
        },
      },
    ],
  },
  {
    schema_version: 1,
    name: 'stoppable',
    input: { type: 'object', properties: { key: { type: 'string' } } },
    steps: [
      {
        id: 'long',
        kind: 'TASK',
        queue: 'q1',
        input: { op: 'until-cancelled', key: '$.input.key' },
      },
      { id: 'never', kind: 'TASK', queue: 'q1', input: { op: 'quick' } },
    ],
  },
  {
    schema_version: 1,
    name: 'polling',
    steps: [
      {
        id: 'track',
        kind: 'POLL',
        queue: 'q1',
        input: { op: 'still-waiting' },
        classify: { path: '$.status', pending: ['WAIT'], succeeded: ['DONE'] },
        interval: 'PT1S',
        max_rounds: 5,
        timeout: 'PT60S',
      },
    ],
  },
  {
    schema_version: 1,
    name: 'waiting',
    steps: [{ id: 'approval', kind: 'SIGNAL', name: 'approve', correlation: 'c' }],
  },
];

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null;
}

/** A promise the test resolves: the worker holds a task until then. */
function gate() {
  let open = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { open, opened };
}

forEachDialect((dialect) => {
  describe(`instance controls on ${dialect}`, () => {
    let t: TestServer;
    let client: WeaveClient;
    let worker: ReturnType<typeof startWorker>;
    const holds = new Map<string, ReturnType<typeof gate>>();
    const seen = new Map<string, string[]>();

    before(async () => {
      t = await startTestServer(dialect, { scheduleIntervalMs: false });
      client = t.admin;
      for (const w of WORKFLOWS) {
        await client.workflows.publish(w);
      }
      worker = startWorker({
        client,
        concurrency: 8,
        waitMs: 500,
        heartbeatMs: 150,
        handlers: {
          q1: async (input, ctx) => {
            const op = isRecord(input) ? String(input.op) : '';
            const key = isRecord(input) ? String(input.key) : '';
            seen.set(key, [...(seen.get(key) ?? []), op]);
            if (op === 'hold') {
              await holds.get(key)?.opened;
            }
            if (op === 'until-cancelled') {
              await new Promise((r) => {
                ctx.signal.addEventListener('abort', r);
              });
              seen.set(key, [...(seen.get(key) ?? []), 'told']);
              // Settles only when the test lets it: the instance must wait for it.
              await holds.get(key)?.opened;
              throw new Error('stopped on request');
            }
            if (op === 'still-waiting') {
              return { status: 'WAIT' };
            }
            return { op };
          },
        },
      });
    });
    after(async () => {
      await worker.stop();
      await t.close();
    });

    const db = () => t.server.database.kysely;
    const stepStatus = async (instanceId: string) =>
      new Map(
        (await client.instances.steps(instanceId)).steps.map((s) => [s.id, s.status] as const),
      );
    const taskCount = async (instanceId: string) =>
      Number(
        (
          await db()
            .selectFrom('weave_activations')
            .select((eb) => eb.fn.countAll().as('n'))
            .where('instance_id', '=', instanceId)
            .where('task_id', 'is not', null)
            .executeTakeFirstOrThrow()
        ).n,
      );
    const statusOf = (id: string, statuses: string[], timeoutMs = 20_000) =>
      waitFor(
        async () => {
          const { instance } = await client.instances.get(id);
          return statuses.includes(instance.status) ? instance : undefined;
        },
        { timeoutMs },
      );

    test('[E4.4] [A5.2] pause with a task in flight: its result is recorded, nothing new starts, a due timer waits; resume continues from there', async () => {
      const key = `pause-${dialect}`;
      holds.set(key, gate());
      const { instance } = await client.instances.start('held', { input: { key } });
      await waitFor(() => (seen.get(key)?.includes('hold') === true ? true : undefined));
      const paused = await client.instances.pause(instance.id, { reason: 'maintenance' });
      assert.equal(paused.changed, true);
      // The test means a timer still waiting at the pause (1.5 s after the Start).
      assert.equal(
        (await stepStatus(instance.id)).get('nap'),
        'WAITING',
        'paused before the timer',
      );
      assert.equal(paused.instance.paused, true);
      assert.ok(BigInt(paused.instance.revision) > BigInt(instance.revision));
      const again = await client.instances.pause(instance.id);
      assert.equal(again.changed, false, 'a second pause changes nothing');
      const tasksAtPause = await taskCount(instance.id);

      holds.get(key)?.open();
      // The held task's result is recorded, and the timer (due 1.5 s after Start) fires.
      await waitFor(async () => {
        const s = await stepStatus(instance.id);
        return s.get('first') === 'SUCCEEDED' && s.get('nap') === 'SUCCEEDED' ? s : undefined;
      });
      // Give a consumer every chance to start what the pause holds.
      await new Promise((r) => setTimeout(r, 600));
      const held = await stepStatus(instance.id);
      assert.equal(held.get('second'), 'PENDING', 'no successor starts while paused');
      assert.equal(held.get('woken'), 'PENDING', "the timer's successor waits for the resume");
      assert.equal(await taskCount(instance.id), tasksAtPause, 'no task created while paused');
      const gateRow = await db()
        .selectFrom('weave_gates')
        .select(['state', 'reason'])
        .where('instance_id', '=', instance.id)
        .executeTakeFirstOrThrow();
      assert.deepEqual({ ...gateRow }, { state: 'HELD', reason: 'paused' });

      const resumed = await client.instances.resume(instance.id, { reason: 'done' });
      assert.equal(resumed.changed, true);
      assert.equal(resumed.instance.paused, false);
      // The resume planned in its own transaction: both held successors have their tasks.
      const now = await stepStatus(instance.id);
      assert.ok(['ACTIVE', 'SUCCEEDED'].includes(now.get('second') ?? ''), 'second started');
      assert.ok(['ACTIVE', 'SUCCEEDED'].includes(now.get('woken') ?? ''), 'woken started');
      const done = await statusOf(instance.id, ['SUCCEEDED', 'FAILED']);
      assert.equal(done.status, 'SUCCEEDED');
      const types = (await client.instances.history(instance.id)).events.map((e) => e.type);
      const at = (type: string) => types.indexOf(type);
      assert.equal(types.filter((x) => x === 'instance.paused').length, 1, 'one pause recorded');
      assert.ok(at('instance.paused') >= 0 && at('instance.resumed') > at('instance.paused'));
      assert.ok(at('timer.fired') > at('instance.paused'), 'the timer fired while paused');
      assert.ok(at('timer.fired') < at('instance.resumed'));
      const audit = await db()
        .selectFrom('audit_log')
        .select('action')
        .where('object_type', '=', 'instance')
        .where('object_id', '=', instance.id)
        .execute();
      assert.deepEqual(
        audit.map((a) => a.action).filter((a) => a !== 'workflow.start'),
        ['workflow.pause', 'workflow.resume'],
        'one audit row per change (the repeated pause changed nothing)',
      );
    });

    test('[E4.4] [A5.2] a paused POLL starts no round when one falls due; the resume starts it', async () => {
      const { instance } = await client.instances.start('polling', { input: {} });
      const rounds = () =>
        db()
          .selectFrom('weave_poll_rounds')
          .select(['number', 'state', 'task_id', 'due_at'])
          .where('instance_id', '=', instance.id)
          .orderBy('number')
          .execute();
      // Round 1 answered WAIT: round 2 is SCHEDULED, due a second later.
      const scheduled = await waitFor(async () => {
        const r = await rounds();
        return r[1]?.state === 'SCHEDULED' ? r[1] : undefined;
      });
      await client.instances.pause(instance.id);
      const dueAt = BigInt(scheduled.due_at);
      const dbNow = async () =>
        BigInt(
          (
            await sql<{ now_us: string | number | bigint }>`${sql.raw(
              t.server.database.dialect.nowMicrosSql,
            )}`.execute(db())
          ).rows[0]?.now_us ?? 0,
        );
      assert.ok((await dbNow()) < dueAt, 'the test means a pause before the round is due');
      // Until the round is well past due (DB time): a consumer scan has had every chance.
      await waitFor(async () => ((await dbNow()) > dueAt + 600_000n ? true : undefined));
      const held = await rounds();
      assert.equal(held[1]?.state, 'SCHEDULED', 'no round starts while paused');
      assert.equal(held[1]?.task_id, null);
      const resumed = await client.instances.resume(instance.id);
      assert.equal(resumed.changed, true);
      const after = await rounds();
      assert.equal(after[1]?.state, 'RUNNING', 'the resume started the due round');
      assert.ok(after[1]?.task_id !== null);
      await client.instances.cancel(instance.id);
    });

    test('[E4.6] cancel with a running task: the heartbeat tells the worker; CANCELLED only once that task has settled', async () => {
      const key = `cancel-${dialect}`;
      holds.set(key, gate());
      const { instance } = await client.instances.start('stoppable', { input: { key } });
      await waitFor(() => (seen.get(key)?.includes('until-cancelled') === true ? true : undefined));
      const cancelled = await client.instances.cancel(instance.id, { reason: 'withdrawn' });
      assert.equal(cancelled.changed, true);
      assert.equal(cancelled.instance.status, 'CANCELLING');
      await waitFor(() => (seen.get(key)?.includes('told') === true ? true : undefined));
      // The worker knows, but its task has not settled: the instance waits for it.
      await new Promise((r) => setTimeout(r, 400));
      assert.equal((await client.instances.get(instance.id)).instance.status, 'CANCELLING');
      const repeat = await client.instances.cancel(instance.id);
      assert.equal(repeat.changed, false);
      holds.get(key)?.open();
      const done = await statusOf(instance.id, ['CANCELLED', 'FAILED', 'SUCCEEDED']);
      assert.equal(done.status, 'CANCELLED');
      assert.equal(done.error?.code, 'cancelled');
      const steps = await stepStatus(instance.id);
      assert.equal(steps.get('long'), 'CANCELLED');
      assert.equal(steps.get('never'), 'PENDING', 'nothing starts after a cancel');
      assert.deepEqual(seen.get(key), ['until-cancelled', 'told']);
      const page = await client.results.readStream('app');
      const event = page.events.find((e) => e.instance_id === instance.id);
      assert.equal(event?.type, 'instance.cancelled');
      const types = (await client.instances.history(instance.id)).events.map((e) => e.type);
      assert.ok(types.indexOf('instance.cancel_requested') < types.indexOf('step.cancelled'));
      assert.equal(types.at(-1), 'instance.cancelled');
      // Ended: a cancel is still idempotent, a pause is refused.
      assert.equal((await client.instances.cancel(instance.id)).changed, false);
      await assert.rejects(
        client.instances.pause(instance.id),
        (e) => isWeaveApiError(e) && e.status === 409 && e.code === 'invalid_state',
      );
    });

    test('[E4.6] cancel of a waiting instance closes its wait and ends CANCELLED in the same transaction', async () => {
      const { instance } = await client.instances.start('waiting', { input: {} });
      assert.equal(instance.status, 'WAITING');
      const { instance: after } = await client.instances.cancel(instance.id);
      assert.equal(after.status, 'CANCELLED');
      const waits = await db()
        .selectFrom('weave_waits')
        .select('state')
        .where('instance_id', '=', instance.id)
        .execute();
      assert.deepEqual(
        waits.map((w) => w.state),
        ['CANCELLED'],
      );
    });

    test('[E4.4] expected_revision guards a control; a refused control leaves the instance as it was', async () => {
      const { instance } = await client.instances.start('waiting', { input: {} });
      await assert.rejects(
        client.instances.pause(instance.id, { expected_revision: '1' }),
        (e) =>
          isWeaveApiError(e) &&
          e.code === 'revision_mismatch' &&
          e.details?.revision === instance.revision,
      );
      const same = (await client.instances.get(instance.id)).instance;
      assert.equal(same.revision, instance.revision);
      assert.equal(same.paused, false);
      const paused = await client.instances.pause(instance.id, {
        expected_revision: instance.revision,
      });
      assert.equal(paused.changed, true);
      await assert.rejects(
        client.instances.resume(instance.id, { reason: 'x'.repeat(513) }),
        (e) =>
          isWeaveApiError(e) && e.code === 'invalid_argument' && e.details?.path === '$.reason',
      );
      await assert.rejects(
        client.instances.resume('999999'),
        (e) => isWeaveApiError(e) && e.code === 'not_found',
      );
    });

    test('[A3.6] controls need workflows:control and scope over the pinned queues', async () => {
      const key = `rights-${dialect}`;
      const open = gate();
      open.open();
      holds.set(key, open);
      const { instance } = await client.instances.start('stoppable', { input: { key } });
      const reader = t.clientFor(
        'ns',
        await t.keyWith('ns', ['workflows:read', 'tasks:read'], { queues: ['q1'] }),
      );
      await assert.rejects(
        reader.instances.cancel(instance.id),
        (e) => isWeaveApiError(e) && e.code === 'permission_denied',
      );
      // A key limited to another queue (a bootstrap key may use every queue).
      await client.createQueue({ name: 'q2', application: 'app' });
      const { key: q2Key } = await client.createCredential({
        name: 'q2-operator',
        scopes: ['workflows:control', 'workflows:read'],
        queues: ['q2'],
      });
      assert.ok(q2Key);
      const otherQueues = t.clientFor('ns', q2Key);
      await assert.rejects(
        otherQueues.instances.cancel(instance.id),
        (e) => isWeaveApiError(e) && e.code === 'permission_denied',
      );
      const unchanged = (await client.instances.get(instance.id)).instance;
      assert.equal(unchanged.status, 'RUNNING', 'a refused cancel changed nothing');
      assert.equal((await client.instances.cancel(instance.id)).changed, true);
      assert.equal((await statusOf(instance.id, ['CANCELLED'])).status, 'CANCELLED');
    });
  });
});
