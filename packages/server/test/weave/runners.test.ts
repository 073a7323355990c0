/**
 * The automatic runners of seed 002 §4 that exist today (A5.1: inbox consumption, root pending
 * advances, TIMER expiry — the TIMER in run-http.test.ts) and the failure path of seed 000 §4
 * item 6 (E4.6), on SQLite and MariaDB: a server with its consumer loop, real HTTP claims and
 * completions (or the SDK Worker), and nothing but the loop moving the instances on. Each wait
 * is for an observable state (`waitFor`), never a fixed time.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ClaimedTask, WeaveClient } from '@weave/sdk';
import { forEachDialect } from '../support/databases.js';
import { startTestServer } from '../support/servers.js';
import type { TestServer } from '../support/servers.js';
import { waitFor } from '../support/wait-for.js';
import { startWorker } from '../support/workers.js';

const task = (id: string, queue: string) => ({ id, kind: 'TASK', queue, input: { op: id } });

function fanOut(name: string, n: number) {
  const branches: Record<string, unknown[]> = {};
  for (let i = 0; i < n; i++) {
    branches[`b${i}`] = [task(`t${i}`, name)];
  }
  return { schema_version: 1, name, steps: [{ id: 'fan', kind: 'PARALLEL', branches }] };
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null;
}

forEachDialect((dialect) => {
  describe(`the runners on ${dialect}`, () => {
    let t: TestServer;
    let client: WeaveClient;
    const db = () => t.server.database.kysely;

    before(async () => {
      t = await startTestServer(dialect, { sweepIntervalMs: false, scheduleIntervalMs: false });
      client = t.admin;
    });
    after(() => t.close());

    async function publish(definition: {
      readonly name: string;
      readonly [key: string]: unknown;
    }): Promise<void> {
      await client.createQueue({ name: definition.name, application: 'app' });
      await client.workflows.publish(definition);
    }

    const instance = async (id: string) => (await client.instances.get(id)).instance;

    const settled = (id: string, statuses: readonly string[]) =>
      waitFor(
        async () => {
          const view = await instance(id);
          return statuses.includes(view.status) ? view : undefined;
        },
        { timeoutMs: 20_000, what: `instance ${id} ${statuses.join('/')}` },
      );

    const stepRows = async (instanceId: string) =>
      Object.fromEntries(
        (
          await db()
            .selectFrom('weave_steps')
            .selectAll()
            .where('instance_id', '=', instanceId)
            .execute()
        ).map((s) => [s.step_id, s]),
      );

    /** Waits until the consumer has processed every inbox row of the task. */
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
        { what: `the result of task ${taskId} consumed` },
      );

    /** Claims `n` tasks of a queue, by their step (`input.op`). */
    async function claimByStep(queue: string, n: number): Promise<Map<string, ClaimedTask>> {
      const { tasks } = await client.claimTasks(queue, { worker_id: 'w', max_tasks: n });
      assert.equal(tasks.length, n);
      return new Map(tasks.map((c) => [isRecord(c.input) ? String(c.input.op) : '', c]));
    }

    test('[A3.2] [A5.1] a PARALLEL of 40 TASKs is admitted through its pending advance and completes; no task is created twice', async () => {
      await publish(fanOut('forty', 40));
      const ran: string[] = [];
      const worker = startWorker({
        client,
        concurrency: 8,
        waitMs: 1_000,
        handlers: {
          forty: (input) => {
            const op = isRecord(input) ? String(input.op) : '';
            ran.push(op);
            return Promise.resolve({ op });
          },
        },
      });
      let done;
      let id = '';
      try {
        const started = await client.instances.start('forty', { input: {} });
        id = started.instance.id;
        assert.equal(started.instance.revision, '2');
        done = await settled(id, ['SUCCEEDED', 'FAILED']);
      } finally {
        await worker.stop();
      }
      assert.equal(done.status, 'SUCCEEDED');
      assert.deepEqual(
        done.output,
        Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`b${i}`, { op: `t${i}` }])),
      );
      const activations = await db()
        .selectFrom('weave_activations')
        .select(['id', 'step_id', 'task_id', 'number'])
        .where('instance_id', '=', id)
        .execute();
      const tasks = await db()
        .selectFrom('tasks')
        .select(['id', 'owner_id', 'status'])
        .where(
          'owner_id',
          'in',
          activations.map((a) => a.id),
        )
        .where('owner_kind', '=', 'workflow_activation')
        .execute();
      assert.equal(tasks.length, 40, 'forty tasks');
      assert.equal(new Set(tasks.map((k) => String(k.owner_id))).size, 40, 'one per activation');
      assert.ok(tasks.every((k) => k.status === 'SUCCEEDED'));
      const byStep = new Map<string, number>();
      for (const a of activations) {
        byStep.set(a.step_id, (byStep.get(a.step_id) ?? 0) + 1);
      }
      assert.equal(byStep.size, 42, '$root, fan and the 40 TASKs');
      assert.ok(
        [...byStep.values()].every((n) => n === 1),
        'one activation per step',
      );
      assert.equal(ran.length, 40, 'each task ran once');
      assert.equal(new Set(ran).size, 40);
      const left = await db()
        .selectFrom('weave_pending_advances')
        .select('id')
        .where('instance_id', '=', id)
        .execute();
      assert.deepEqual(left, [], 'the pending advance was consumed');
      // Start activated 30 TASKs at revision 2 ($root and fan took 2 of the 32 changes); the
      // other 10 came from a later round that the loop ran from the pending advance.
      const activated = await db()
        .selectFrom('weave_history')
        .select(['step_id', 'instance_revision'])
        .where('instance_id', '=', id)
        .where('type', '=', 'step.activated')
        .execute();
      const atStart = activated.filter(
        (h) => h.step_id?.startsWith('t') && BigInt(h.instance_revision) === 2n,
      );
      const later = activated.filter(
        (h) => h.step_id?.startsWith('t') && BigInt(h.instance_revision) > 2n,
      );
      assert.equal(atStart.length, 30);
      assert.equal(later.length, 10);
      assert.equal(new Set(later.map((h) => String(h.instance_revision))).size, 1, 'in one round');
    });

    /** pay fails while ship runs; mail (claimed, not started) and its successor never run. */
    const SIBLING = (name: string, order: readonly string[]) => {
      const all: Record<string, unknown[]> = {
        pay: [task('pay', name)],
        ship: [task('ship', name)],
        mail: [task('mail', name), task('receipt', name)],
      };
      return {
        schema_version: 1,
        name,
        steps: [
          {
            id: 'both',
            kind: 'PARALLEL',
            branches: Object.fromEntries(order.map((b) => [b, all[b]])),
          },
          task('after', name),
        ],
      };
    };

    async function failWithRunningSibling(name: string, ship: 'succeeds' | 'stops') {
      const { instance: started } = await client.instances.start(name, { input: {} });
      const claims = await claimByStep(name, 3);
      const pay = claims.get('pay');
      const running = claims.get('ship');
      const mail = claims.get('mail');
      assert.ok(pay && running && mail);
      await client.startAttempt(running.task_id, running.attempt_id, running.permit);

      await client.completeAttempt(pay.task_id, pay.attempt_id, pay.permit, {
        outcome: 'failed',
        error: { code: 'card_declined', message: 'the card was declined', retryable: false },
      });
      await consumed(pay.task_id);
      // The claimed, not started sibling is cancelled at once and its result consumed too.
      await consumed(mail.task_id);
      const failing = await stepRows(started.id);
      assert.equal((await instance(started.id)).status, 'RUNNING', 'ship is still in flight');
      assert.equal(failing.pay?.status, 'FAILED');
      assert.equal(failing.mail?.status, 'CANCELLED');
      assert.equal(failing.ship?.status, 'ACTIVE');
      assert.equal(Number(failing.ship?.cancel_requested), 1);
      const beat = await client.heartbeat(running.task_id, running.attempt_id, running.permit);
      assert.equal(beat.cancel_requested, true, 'the running worker is told to stop');
      for (const stepId of ['receipt', 'after']) {
        assert.equal(failing[stepId]?.status, 'PENDING', `${stepId}: no new work`);
        assert.equal(failing[stepId]?.current_activation_id, null, stepId);
      }

      // The running sibling still settles: a success stays a success; a stop is CANCELLED.
      await client.completeAttempt(
        running.task_id,
        running.attempt_id,
        running.permit,
        ship === 'succeeds'
          ? { outcome: 'succeeded', result: { shipped: true } }
          : {
              outcome: 'failed',
              error: { code: 'stopped', message: 'told to stop', retryable: true },
            },
      );
      const done = await settled(started.id, ['FAILED', 'SUCCEEDED']);
      assert.equal(done.status, 'FAILED');
      assert.deepEqual(
        done.error,
        { code: 'card_declined', message: 'the card was declined', step_id: 'pay' },
        `the cause is pay's own failure (ship ${ship})`,
      );
      const end = await stepRows(started.id);
      assert.equal(end.ship?.status, ship === 'succeeds' ? 'SUCCEEDED' : 'CANCELLED');
      assert.equal(end.after?.current_activation_id, null);
      const gate = await db()
        .selectFrom('weave_gates')
        .select('state')
        .where('instance_id', '=', started.id)
        .executeTakeFirstOrThrow();
      assert.equal(gate.state, 'CLOSED');
      const page = await client.results.readStream('app');
      const outcome = page.events.find((e) => e.instance_id === started.id);
      assert.equal(outcome?.type, 'instance.failed');
      assert.deepEqual(outcome?.error, { code: 'card_declined', message: 'the card was declined' });
    }

    test('[E4.6] a failed TASK with a running sibling: new work stops, the sibling is cancelled and settles, then the instance fails with the task’s code and message', async () => {
      await publish(SIBLING('sibling', ['pay', 'ship', 'mail']));
      await failWithRunningSibling('sibling', 'succeeds');
      await failWithRunningSibling('sibling', 'stops');
      // The cancelled siblings come first in the document: the cause is still pay's failure.
      await publish(SIBLING('sibling-late', ['ship', 'mail', 'pay']));
      await failWithRunningSibling('sibling-late', 'stops');
    });

    test('[E4.6] a NEEDS_REVIEW leaf holds the instance as NEEDS_REVIEW: beside a success, and beside a failure', async () => {
      await publish({
        schema_version: 1,
        name: 'held',
        steps: [
          {
            id: 'both',
            kind: 'PARALLEL',
            branches: { x: [task('x', 'held')], y: [task('y', 'held')] },
          },
        ],
      });
      for (const other of ['succeeded', 'failed'] as const) {
        const { instance: started } = await client.instances.start('held', { input: {} });
        const claims = await claimByStep('held', 2);
        const x = claims.get('x');
        const y = claims.get('y');
        assert.ok(x && y);
        await client.completeAttempt(x.task_id, x.attempt_id, x.permit, {
          outcome: 'needs_review',
          error: {
            code: 'effect_unknown',
            message: 'the charge may have happened',
            retryable: false,
          },
        });
        await client.completeAttempt(
          y.task_id,
          y.attempt_id,
          y.permit,
          other === 'succeeded'
            ? { outcome: 'succeeded', result: { ok: true } }
            : {
                outcome: 'failed',
                error: { code: 'out_of_stock', message: 'none left', retryable: false },
              },
        );
        await consumed(x.task_id);
        await consumed(y.task_id);
        const view = await instance(started.id);
        assert.equal(view.status, 'NEEDS_REVIEW', `beside a ${other} sibling`);
        assert.equal(view.finished_at, undefined);
        const steps = await stepRows(started.id);
        assert.equal(steps.x?.status, 'NEEDS_REVIEW');
        assert.equal(steps.y?.status, other === 'succeeded' ? 'SUCCEEDED' : 'FAILED');
        const gate = await db()
          .selectFrom('weave_gates')
          .select('state')
          .where('instance_id', '=', started.id)
          .executeTakeFirstOrThrow();
        assert.notEqual(gate.state, 'CLOSED');
        const page = await client.results.readStream('app');
        assert.ok(
          !page.events.some((e) => e.instance_id === started.id),
          'no outcome while an effect is unknown',
        );
      }
    });
  });
});
