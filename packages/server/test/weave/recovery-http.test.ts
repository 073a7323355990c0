/**
 * Manual recovery of steps (issue 12 Deliver 3, seed 000 §4 item 6, E4.5, E4.6, A5.3) on SQLite
 * and MariaDB, over real HTTP with the SDK: retry (with a corrected input), resolve and fail of a
 * NEEDS_REVIEW TASK, recovery of a FAILED instance whose failure cancelled a sibling, a POLL
 * retry that keeps its rounds and deadline, and the refusals, each leaving every row as it was.
 * Each wait is for an observable state (`waitFor`), never a fixed time.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ClaimedTask, WeaveClient } from '@weave/sdk';
import { isWeaveApiError } from '@weave/sdk';
import { forEachDialect } from '../support/databases.js';
import { refusal } from '../support/refusal.js';
import { startTestServer } from '../support/servers.js';
import type { TestServer } from '../support/servers.js';
import { waitFor } from '../support/wait-for.js';
import { startWorker } from '../support/workers.js';

const REVIEWED = {
  schema_version: 1,
  name: 'reviewed',
  input: { type: 'object', properties: { amount: { type: 'number' } } },
  steps: [
    {
      id: 'charge',
      kind: 'TASK',
      queue: 'reviewed',
      input: { op: 'charge', amount: '$.input.amount' },
      idempotent: false,
    },
    { id: 'notify', kind: 'TASK', queue: 'reviewed', input: { op: 'notify' } },
  ],
  output: { charged: '$.steps.charge.output' },
};

const SPLIT = {
  schema_version: 1,
  name: 'split',
  steps: [
    {
      id: 'both',
      kind: 'PARALLEL',
      branches: {
        a: [
          {
            id: 'pay',
            kind: 'TASK',
            queue: 'split-pay',
            input: { op: 'pay' },
            retry: { max_attempts: 1 },
          },
        ],
        b: [{ id: 'ship', kind: 'TASK', queue: 'split-ship', input: { op: 'ship' } }],
      },
    },
  ],
};

const POLLED = {
  schema_version: 1,
  name: 'polled',
  steps: [
    {
      id: 'track',
      kind: 'POLL',
      queue: 'polled',
      input: { op: 'poll' },
      classify: { path: '$.status', pending: ['WAIT'], succeeded: ['DONE'], review: ['ODD'] },
      interval: 'PT0.2S',
      max_rounds: 5,
      timeout: 'PT60S',
    },
  ],
};

const SHORT = {
  schema_version: 1,
  name: 'short',
  timeout: 'PT1S',
  steps: [{ id: 'once', kind: 'TASK', queue: 'short', input: { op: 'once' }, idempotent: false }],
};

/** A SIGNAL that times out after 0.5 s: the instance FAILED `signal_timeout`. */
const APPROVAL = {
  schema_version: 1,
  name: 'approval',
  steps: [{ id: 'ok', kind: 'SIGNAL', name: 'approve', correlation: 'order-7', timeout: 'PT0.5S' }],
  output: { by: '$.steps.ok.output' },
};

forEachDialect((dialect) => {
  describe(`manual recovery on ${dialect}`, () => {
    let t: TestServer;
    let client: WeaveClient;
    const db = () => t.server.database.kysely;

    before(async () => {
      t = await startTestServer(dialect, { sweepIntervalMs: false, scheduleIntervalMs: false });
      client = t.admin;
      for (const queue of ['reviewed', 'split-pay', 'split-ship', 'polled', 'short']) {
        await client.createQueue({ name: queue, application: 'app' });
      }
      for (const definition of [REVIEWED, SPLIT, POLLED, SHORT, APPROVAL]) {
        await client.workflows.publish(definition);
      }
    });
    after(() => t.close());

    const view = async (id: string) => (await client.instances.get(id)).instance;
    const settled = (id: string, statuses: readonly string[]) =>
      waitFor(
        async () => {
          const v = await view(id);
          return statuses.includes(v.status) ? v : undefined;
        },
        { timeoutMs: 30_000, what: `instance ${id} ${statuses.join('/')}` },
      );
    const consumed = (taskId: string) =>
      waitFor(
        async () => {
          const rows = await db()
            .selectFrom('weave_inbox')
            .select('state')
            .where('source_task_id', '=', taskId)
            .execute();
          return rows.length > 0 && rows.every((r) => r.state === 'PROCESSED');
        },
        { timeoutMs: 30_000, what: `the result of task ${taskId} consumed` },
      );
    async function claimOne(queue: string): Promise<ClaimedTask> {
      const claimed = await waitFor(
        async () => {
          const { tasks } = await client.claimTasks(queue, { worker_id: 'w', max_tasks: 1 });
          return tasks[0];
        },
        { timeoutMs: 30_000, what: `a task on ${queue}` },
      );
      return claimed;
    }
    async function reviewOne(queue: string): Promise<ClaimedTask> {
      const c = await claimOne(queue);
      await client.completeAttempt(c.task_id, c.attempt_id, c.permit, {
        outcome: 'needs_review',
        error: { code: 'effect_unknown', message: 'may have happened', retryable: false },
      });
      await consumed(c.task_id);
      return c;
    }
    async function succeedOne(queue: string, result: unknown = { ok: true }) {
      const c = await claimOne(queue);
      await client.completeAttempt(c.task_id, c.attempt_id, c.permit, {
        outcome: 'succeeded',
        result,
      });
      await consumed(c.task_id);
      return c;
    }
    /** Rows a refused recovery must not change. */
    async function counts(instanceId: string) {
      const n = async (table: 'weave_activations' | 'weave_history' | 'weave_pending_advances') =>
        (
          await db()
            .selectFrom(table)
            .select((eb) => eb.fn.countAll().as('n'))
            .where('instance_id', '=', instanceId)
            .executeTakeFirstOrThrow()
        ).n;
      const tasks = await db()
        .selectFrom('tasks')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow();
      const audits = await db()
        .selectFrom('audit_log')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('outcome', '=', 'ok')
        .executeTakeFirstOrThrow();
      const instance = await db()
        .selectFrom('weave_instances')
        .select(['revision', 'status'])
        .where('id', '=', instanceId)
        .executeTakeFirstOrThrow();
      const steps = await db()
        .selectFrom('weave_steps')
        .select(['step_id', 'status', 'revision'])
        .where('instance_id', '=', instanceId)
        .orderBy('step_id')
        .execute();
      return {
        activations: String(await n('weave_activations')),
        history: String(await n('weave_history')),
        advances: String(await n('weave_pending_advances')),
        tasks: String(tasks.n),
        audits: String(audits.n),
        instance: `${instance.status}@${String(instance.revision)}`,
        steps: steps.map((s) => `${s.step_id}:${s.status}@${String(s.revision)}`).join(','),
      };
    }

    test('[A5.1] [E4.6] wait recovery: a timed-out SIGNAL is retried as a new wait, and the signal then completes the instance', async () => {
      const { instance } = await client.instances.start('approval', { input: {} });
      const failed = await settled(instance.id, ['FAILED']);
      assert.equal(failed.error?.code, 'signal_timeout');
      await assert.rejects(
        client.instances.retry(instance.id, 'ok', { input: 1, reason: 'r' }),
        (e) => isWeaveApiError(e) && e.status === 400 && e.details.path === '$.input',
      );
      const answer = await client.instances.retry(instance.id, 'ok', { reason: 'asked again' });
      assert.equal(answer.instance.status, 'WAITING');
      assert.equal(answer.task_id, undefined, 'a wait has no task');
      const waits = await db()
        .selectFrom('weave_waits')
        .select(['state', 'activation_id', 'due_at'])
        .where('instance_id', '=', instance.id)
        .orderBy('id')
        .execute();
      assert.deepEqual(
        waits.map((w) => w.state),
        ['EXPIRED', 'WAITING'],
        'the old wait stays expired; a new one waits',
      );
      assert.equal(String(waits[1]?.activation_id), answer.activation_id);
      assert.ok(BigInt(waits[1]?.due_at ?? 0) <= BigInt(Date.parse(failed.deadline_at)) * 1000n);
      const sent = await client.signals.send({
        name: 'approve',
        correlation_key: 'order-7',
        payload: { by: 'ann' },
      });
      assert.deepEqual(
        sent.matched.map((m) => m.instance_id),
        [instance.id],
      );
      const done = await settled(instance.id, ['SUCCEEDED', 'FAILED']);
      assert.equal(done.status, 'SUCCEEDED');
      assert.deepEqual(done.output, { by: { by: 'ann' } });
      const detail = await client.instances.step(instance.id, 'ok');
      assert.deepEqual(
        detail.activations
          .map((a) => [a.number, a.status])
          .sort((a, b) => Number(a[0]) - Number(b[0])),
        [
          [1, 'FAILED'],
          [2, 'SUCCEEDED'],
        ],
      );
    });

    test('[E4.6] [A5.1] retry of a NEEDS_REVIEW TASK with a corrected input: a new activation and task, the old one kept, the instance completes', async () => {
      const { instance } = await client.instances.start('reviewed', { input: { amount: 10 } });
      const old = await reviewOne('reviewed');
      assert.equal((await view(instance.id)).status, 'NEEDS_REVIEW');
      const amount = { kind: 'number', text: '12.50' };
      const answer = await client.instances.retry(instance.id, 'charge', {
        input: { op: 'charge', amount },
        reason: 'corrected the amount',
      });
      assert.equal(answer.instance.status, 'RUNNING');
      assert.ok(answer.task_id !== undefined && answer.task_id !== old.task_id);
      const detail = await client.instances.step(instance.id, 'charge');
      assert.deepEqual(
        detail.activations
          .map((a) => [a.number, a.status])
          .sort((a, b) => Number(a[0]) - Number(b[0])),
        [
          [1, 'SUPERSEDED'],
          [2, 'ACTIVE'],
        ],
      );
      // The old Pulse task no longer waits for a review (nor holds a quota slot): it is
      // settled as superseded, and its result reaches the inbox as a stale one.
      const oldTask = await db()
        .selectFrom('tasks')
        .select(['status', 'error_code'])
        .where('id', '=', old.task_id)
        .executeTakeFirstOrThrow();
      assert.deepEqual({ ...oldTask }, { status: 'FAILED', error_code: 'superseded' });
      const retried = await claimOne('reviewed');
      assert.equal(retried.task_id, answer.task_id);
      const task = await db()
        .selectFrom('tasks')
        .select('input')
        .where('id', '=', retried.task_id)
        .executeTakeFirstOrThrow();
      assert.equal(task.input, '{"op":"charge","amount":12.50}', 'exact number text');
      await client.completeAttempt(retried.task_id, retried.attempt_id, retried.permit, {
        outcome: 'succeeded',
        result: { charged: amount },
      });
      await succeedOne('reviewed');
      const done = await settled(instance.id, ['SUCCEEDED', 'FAILED']);
      assert.equal(done.status, 'SUCCEEDED');
      assert.deepEqual(done.output, { charged: { charged: amount } });
      const history = await client.instances.history(instance.id);
      const stale = history.events.find((e) => e.type === 'result.stale_ignored');
      assert.equal(
        (stale?.details as Record<string, unknown> | undefined)?.task_id,
        old.task_id,
        'the superseded task is recorded stale',
      );
      const retriedEvent = history.events.find((e) => e.type === 'step.retried');
      assert.deepEqual(retriedEvent?.details, {
        reason: 'corrected the amount',
        input: 'operator',
      });
      const activated = history.events.filter(
        (e) => e.type === 'step.activated' && e.step_id === 'charge',
      );
      assert.deepEqual(
        activated.map((e) => e.task_id),
        [old.task_id, answer.task_id],
      );
      const audit = await db()
        .selectFrom('audit_log')
        .select(['details'])
        .where('action', '=', 'instance.step_retry')
        .where('object_id', '=', instance.id)
        .executeTakeFirstOrThrow();
      assert.match(String(audit.details), /corrected the amount/);
    });

    test('[E4.6] resolve of a NEEDS_REVIEW TASK continues the instance; fail ends it FAILED with the cause', async () => {
      const first = (await client.instances.start('reviewed', { input: { amount: 1 } })).instance;
      await reviewOne('reviewed');
      const resolved = await client.instances.resolve(
        first.id,
        'charge',
        { output: { charged: 1 }, reason: 'checked the ledger' },
        `resolve-${first.id}`,
      );
      // An Idempotency-Key repeat answers the first answer and changes nothing.
      const again = await client.instances.resolve(
        first.id,
        'charge',
        { output: { charged: 1 }, reason: 'checked the ledger' },
        `resolve-${first.id}`,
      );
      assert.equal(again.instance.revision, resolved.instance.revision);
      await succeedOne('reviewed');
      const done = await settled(first.id, ['SUCCEEDED', 'FAILED']);
      assert.equal(done.status, 'SUCCEEDED');
      assert.deepEqual(done.output, { charged: { charged: 1 } });
      const detail = await client.instances.step(first.id, 'charge');
      assert.equal(detail.status, 'SUCCEEDED');
      assert.deepEqual(
        detail.activations.map((a) => a.status),
        ['SUCCEEDED'],
      );

      const second = (await client.instances.start('reviewed', { input: { amount: 2 } })).instance;
      await reviewOne('reviewed');
      await client.instances.fail(second.id, 'charge', {
        error: { code: 'not_charged', message: 'the bank says no' },
        reason: 'asked the bank',
      });
      const failed = await settled(second.id, ['SUCCEEDED', 'FAILED']);
      assert.equal(failed.status, 'FAILED');
      assert.deepEqual(failed.error, {
        code: 'not_charged',
        message: 'the bank says no',
        step_id: 'charge',
      });
      const page = await client.results.readStream('app');
      const outcome = page.events.find((e) => e.instance_id === second.id);
      assert.equal(outcome?.type, 'instance.failed');
    });

    test('[E4.6] [A5.3] a FAILED instance (a TASK failed for good, its PARALLEL sibling cancelled) is retried: RUNNING, then SUCCEEDED, and Orbit gets the later outcome', async () => {
      const { instance } = await client.instances.start('split', { input: {} });
      const pay = await claimOne('split-pay');
      await client.completeAttempt(pay.task_id, pay.attempt_id, pay.permit, {
        outcome: 'failed',
        error: { code: 'declined', message: 'the card was declined', retryable: false },
      });
      const failed = await settled(instance.id, ['FAILED']);
      assert.equal(failed.error?.code, 'declined');
      const ship = await client.instances.step(instance.id, 'ship');
      assert.equal(ship.status, 'CANCELLED');
      const deadlineBefore = failed.deadline_at;

      const answer = await client.instances.retry(instance.id, 'pay', {
        reason: 'the customer updated the card',
        expected_revision: failed.revision,
      });
      assert.equal(answer.instance.status, 'RUNNING');
      assert.equal(answer.instance.error, undefined);
      assert.equal(answer.instance.finished_at, undefined);
      assert.equal(answer.instance.deadline_at, deadlineBefore, 'E4.5: the deadline is kept');
      const gate = await db()
        .selectFrom('weave_gates')
        .select('state')
        .where('instance_id', '=', instance.id)
        .executeTakeFirstOrThrow();
      assert.equal(gate.state, 'OPEN');
      const bound = await db()
        .selectFrom('weave_instance_bounds')
        .select('active_bound')
        .executeTakeFirstOrThrow();
      assert.equal(String(bound.active_bound), '9223372036854775807', 'the bound is forgotten');

      // The worker finishes both branches: the retried pay and the cancelled ship, run again.
      const worker = startWorker({
        client,
        concurrency: 2,
        waitMs: 500,
        handlers: {
          'split-pay': () => Promise.resolve({ paid: true }),
          'split-ship': () => Promise.resolve({ shipped: true }),
        },
      });
      try {
        const done = await settled(instance.id, ['SUCCEEDED', 'FAILED']);
        assert.equal(done.status, 'SUCCEEDED');
        assert.deepEqual(done.output, { a: { paid: true }, b: { shipped: true } });
      } finally {
        await worker.stop();
      }
      const shipDetail = await client.instances.step(instance.id, 'ship');
      assert.deepEqual(shipDetail.activations.map((a) => a.status).sort(), [
        'CANCELLED',
        'SUCCEEDED',
      ]);
      const page = await client.results.readStream('app');
      const outcomes = page.events.filter((e) => e.instance_id === instance.id).map((e) => e.type);
      assert.deepEqual(outcomes, ['instance.failed', 'instance.succeeded']);
      const history = await client.instances.history(instance.id);
      const types = history.events.map((e) => e.type);
      for (const type of ['instance.recovered', 'step.retried', 'step.reopened', 'step.reset']) {
        assert.ok(types.includes(type), `${type} in ${types.join(', ')}`);
      }
    });

    test('[A5.3] [E4.5] a POLL retry keeps its used rounds and its deadline', async () => {
      const { instance } = await client.instances.start('polled', { input: {} });
      await succeedOne('polled', { status: 'WAIT' });
      await succeedOne('polled', { status: 'ODD' });
      await settled(instance.id, ['NEEDS_REVIEW']);
      const before = await client.instances.step(instance.id, 'track');
      const oldPoll = before.activations[0]?.poll;
      assert.equal(oldPoll?.used_rounds, 2);
      await client.instances.retry(instance.id, 'track', { reason: 'the carrier fixed its API' });
      const detail = await client.instances.step(instance.id, 'track');
      const current = detail.activations.find((a) => a.status === 'ACTIVE');
      assert.equal(current?.poll?.used_rounds, 3, 'rounds go on from the old count');
      assert.equal(current?.poll?.max_rounds, 5);
      assert.equal(current?.poll?.deadline_at, oldPoll?.deadline_at, 'the POLL deadline is kept');
      assert.deepEqual(
        current?.poll?.rounds.map((r) => r.number),
        [3],
      );
      await succeedOne('polled', { status: 'DONE' });
      const done = await settled(instance.id, ['SUCCEEDED', 'FAILED']);
      assert.equal(done.status, 'SUCCEEDED');
    });

    test('[E4.6] refusals leave every row as it was: a step not FAILED/NEEDS_REVIEW (409), a bad body (400 with its path), an input over 256 KiB (413), a stale expected_revision (409)', async () => {
      const { instance } = await client.instances.start('reviewed', { input: { amount: 3 } });
      await reviewOne('reviewed');
      const before = await counts(instance.id);
      const notify = await refusal(
        client.instances.retry(instance.id, 'notify', { reason: 'why not' }),
      );
      assert.equal(notify.status, 409);
      assert.equal(notify.code, 'invalid_state');
      const missing = await refusal(
        client.instances.retry(instance.id, 'charge', {} as { reason: string }),
      );
      assert.equal(missing.status, 400);
      assert.equal(missing.details.path, '$.reason');
      const unknown = await refusal(
        client.instances.retry(instance.id, 'charge', {
          reason: 'x',
          inptu: {},
        } as unknown as { reason: string }),
      );
      assert.equal(unknown.status, 400);
      assert.equal(unknown.details.path, '$.inptu');
      const big = await refusal(
        client.instances.retry(instance.id, 'charge', {
          input: { blob: 'x'.repeat(256 * 1024) },
          reason: 'too big',
        }),
      );
      assert.equal(big.status, 413);
      assert.equal(big.details.path, '$.input');
      const stale = await refusal(
        client.instances.retry(instance.id, 'charge', { reason: 'x', expected_revision: '1' }),
      );
      assert.equal(stale.status, 409);
      assert.equal(stale.code, 'revision_mismatch');
      const noStep = await refusal(client.instances.retry(instance.id, 'nope', { reason: 'x' }));
      assert.equal(noStep.status, 404);
      assert.deepEqual(await counts(instance.id), before);
    });

    test('[E4.5] [E4.6] past the instance deadline a retry is refused (409), leaving every row as it was; the NEEDS_REVIEW step the ending waits for is resolved, and the instance ends TIMED_OUT', async () => {
      const { instance } = await client.instances.start('short', { input: {} });
      const reviewed = await reviewOne('short');
      const deadline = Date.parse(instance.deadline_at);
      await waitFor(() => Date.now() > deadline + 200 || undefined, {
        timeoutMs: 10_000,
        what: 'the instance deadline',
      });
      await waitFor(
        async () => {
          const rows = await db()
            .selectFrom('weave_instances')
            .select('ending')
            .where('id', '=', instance.id)
            .executeTakeFirstOrThrow();
          return rows.ending !== null || undefined;
        },
        { timeoutMs: 10_000, what: 'the deadline recorded' },
      );
      // The unknown effect holds the ending (E4.6): the instance waits for an operator.
      assert.equal((await view(instance.id)).status, 'NEEDS_REVIEW');
      const before = await counts(instance.id);
      const late = await refusal(
        client.instances.retry(instance.id, 'once', { reason: 'too late' }),
      );
      assert.equal(late.status, 409);
      assert.equal(late.code, 'invalid_state');
      assert.equal(late.details.reason, 'deadline_passed');
      assert.deepEqual(await counts(instance.id), before);

      await client.instances.resolve(instance.id, 'once', { output: 1, reason: 'it ran once' });
      const done = await settled(instance.id, ['TIMED_OUT']);
      assert.equal(done.error?.code, 'deadline_exceeded');
      assert.equal(done.deadline_at, instance.deadline_at, 'the deadline did not move');
      const step = await client.instances.step(instance.id, 'once');
      assert.equal(step.status, 'SUCCEEDED');
      const task = await client.getTask(reviewed.task_id);
      assert.notEqual(task.task.status, 'NEEDS_REVIEW', 'the operator settled the Pulse task');
      const page = await client.results.readStream('app');
      assert.equal(
        page.events.find((e) => e.instance_id === instance.id)?.type,
        'instance.timed_out',
      );
    });

    test('[E4.6] a cancel while a POLL query runs: its PENDING answer ends the POLL CANCELLED, no further round, and the instance CANCELLED', async () => {
      const { instance } = await client.instances.start('polled', { input: {} });
      const query = await claimOne('polled');
      await client.startAttempt(query.task_id, query.attempt_id, query.permit);
      await client.instances.cancel(instance.id, { reason: 'no longer tracked' });
      await settled(instance.id, ['CANCELLING']);
      await client.completeAttempt(query.task_id, query.attempt_id, query.permit, {
        outcome: 'succeeded',
        result: { status: 'WAIT' },
      });
      // Before the fix the POLL scheduled another round and held the cancel until its 60 s
      // deadline: `settled` waits 30 s at most.
      const done = await settled(instance.id, ['CANCELLED', 'FAILED']);
      assert.equal(done.status, 'CANCELLED');
      const track = await client.instances.step(instance.id, 'track');
      assert.equal(track.status, 'CANCELLED');
      const rounds = await db()
        .selectFrom('weave_poll_rounds')
        .select('state')
        .where('instance_id', '=', instance.id)
        .execute();
      assert.equal(rounds.length, 1, 'no second round');
      const waits = await db()
        .selectFrom('weave_waits')
        .select('state')
        .where('instance_id', '=', instance.id)
        .execute();
      assert.ok(
        waits.every((w) => w.state !== 'WAITING'),
        'its deadline wait closed',
      );
    });

    test('[E4.6] a cancel waits for a NEEDS_REVIEW step: retry is refused, resolve of a TASK or fail of a POLL in classifier review settles it, and the instance ends CANCELLED', async () => {
      const order = (await client.instances.start('reviewed', { input: { amount: 3 } })).instance;
      const charged = await reviewOne('reviewed');
      await settled(order.id, ['NEEDS_REVIEW']);
      await client.instances.cancel(order.id, { reason: 'customer left' });
      await settled(order.id, ['CANCELLING']);
      const before = await counts(order.id);
      const retry = await refusal(
        client.instances.retry(order.id, 'charge', { reason: 'charge again' }),
      );
      assert.equal(retry.status, 409);
      assert.equal(retry.code, 'invalid_state');
      assert.deepEqual(await counts(order.id), before);
      assert.equal((await view(order.id)).status, 'CANCELLING', 'still held by the charge');

      await client.instances.resolve(order.id, 'charge', {
        output: { charged: 3 },
        reason: 'the ledger shows the charge',
      });
      const cancelled = await settled(order.id, ['CANCELLED']);
      assert.equal(cancelled.error?.code, 'cancelled');
      const charge = await client.instances.step(order.id, 'charge');
      assert.equal(charge.status, 'SUCCEEDED');
      assert.deepEqual(charge.output, { charged: 3 });
      const notify = await client.instances.step(order.id, 'notify');
      assert.equal(notify.activations.length, 0, 'nothing new started while cancelling');
      const task = await client.getTask(charged.task_id);
      assert.notEqual(task.task.status, 'NEEDS_REVIEW');

      // A POLL its classifier sent to review: its query task SUCCEEDED, so only the step's
      // recovery can settle it.
      const tracked = (await client.instances.start('polled', { input: {} })).instance;
      const query = await succeedOne('polled', { status: 'ODD' });
      await settled(tracked.id, ['NEEDS_REVIEW']);
      assert.equal((await client.getTask(query.task_id)).task.status, 'SUCCEEDED');
      await client.instances.cancel(tracked.id, { reason: 'no longer needed' });
      await settled(tracked.id, ['CANCELLING']);
      await client.instances.fail(tracked.id, 'track', {
        error: { code: 'odd_status', message: 'the carrier answered ODD' },
        reason: 'asked the carrier',
      });
      const ended = await settled(tracked.id, ['CANCELLED']);
      assert.equal(ended.error?.code, 'cancelled');
      const track = await client.instances.step(tracked.id, 'track');
      assert.equal(track.status, 'FAILED');
      const page = await client.results.readStream('app');
      for (const id of [order.id, tracked.id]) {
        assert.equal(page.events.find((e) => e.instance_id === id)?.type, 'instance.cancelled');
      }
    });
  });
});
