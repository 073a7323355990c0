/**
 * Pulse over HTTP, driven through the SDK client: submit idempotency, limits as 413/429 with the
 * same key succeeding later, whole-or-nothing, the worker protocol, scopes and the long-poll.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { WeaveClient } from '@weave/sdk';
import { forEachDialect } from '../support/databases.js';
import { startTestServer } from '../support/servers.js';
import type { TestServer } from '../support/servers.js';
import { waitFor } from '../support/wait-for.js';

async function rowCounts(t: TestServer) {
  const k = t.server.database.kysely;
  const count = async (table: 'tasks' | 'task_events' | 'task_attempts' | 'receipts') =>
    Number(
      (
        await k
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  return {
    tasks: await count('tasks'),
    events: await count('task_events'),
    attempts: await count('task_attempts'),
    receipts: await count('receipts'),
  };
}

forEachDialect((dialect) => {
  describe(`Pulse HTTP on ${dialect}`, () => {
    let t: TestServer;
    let client: WeaveClient;
    before(async () => {
      t = await startTestServer(dialect, { sweepIntervalMs: false });
      const key = await t.keyWith('ns', ['tasks:submit', 'tasks:read', 'tasks:work']);
      client = t.clientFor('ns', key);
    });
    after(() => t.close());

    test('a submit replayed with its Idempotency-Key returns the original; another body conflicts', async () => {
      const first = await client.requestRaw('POST', '/queues/q1/tasks', {
        body: { input: { n: 1 } },
        idempotencyKey: 'submit-1',
      });
      assert.equal(first.status, 201);
      const again = await client.requestRaw('POST', '/queues/q1/tasks', {
        body: { input: { n: 1 } },
        idempotencyKey: 'submit-1',
      });
      assert.equal(again.headers.get('idempotent-replayed'), 'true');
      assert.deepEqual(again.body, first.body);
      await assert.rejects(client.submitTask('q1', { input: { n: 2 } }, 'submit-1'), {
        code: 'idempotency_conflict',
      });
    });

    test('the worker protocol runs claim → start → heartbeat → complete, keeping exact numbers', async () => {
      const { task } = await client.submitTask('q1', { input: { amount: 12.5 }, idempotent: true });
      const { tasks } = await client.claimTasks('q1', { worker_id: 'w1', max_tasks: 100 });
      const claimed = tasks.find((c) => c.task_id === task.id);
      assert.ok(claimed);
      await client.startAttempt(claimed.task_id, claimed.attempt_id, claimed.permit);
      const beat = await client.heartbeat(claimed.task_id, claimed.attempt_id, claimed.permit);
      assert.equal(beat.cancel_requested, false);
      assert.ok(beat.lease_expires_at <= claimed.deadline_at);
      const raw = await client.requestRaw(
        'POST',
        `/tasks/${claimed.task_id}/attempts/${claimed.attempt_id}/complete`,
        {
          body: {
            permit: claimed.permit,
            outcome: 'succeeded',
            result: { total: { kind: 'number', text: '1e400' } },
          },
        },
      );
      assert.equal((raw.body as { status: string }).status, 'SUCCEEDED');
      const response = await fetch(`${t.server.url}/v1/namespaces/ns/tasks/${task.id}`, {
        headers: { authorization: `Bearer ${t.adminKey}` },
      });
      const text = await response.text();
      assert.match(text, /"result":\{"total":1e400\}/);
      assert.match(text, /"input":\{"amount":12.5\}/);
      const events = await client.listTaskEvents(task.id);
      assert.equal(events.items.length, 4);
      for (const other of tasks.filter((c) => c.task_id !== task.id)) {
        await client.completeAttempt(other.task_id, other.attempt_id, other.permit, {
          outcome: 'succeeded',
        });
      }
    });

    test('a stale permit over HTTP is 409 permit_stale', async () => {
      const { task } = await client.submitTask('q1', { input: null });
      const { tasks } = await client.claimTasks('q1', { worker_id: 'w1' });
      const [claimed] = tasks;
      assert.ok(claimed && claimed.task_id === task.id);
      await assert.rejects(client.startAttempt(claimed.task_id, claimed.attempt_id, 'forged'), {
        code: 'permit_stale',
        status: 409,
      });
      await client.completeAttempt(claimed.task_id, claimed.attempt_id, claimed.permit, {
        outcome: 'failed',
        error: { code: 'bad_input', retryable: false },
      });
      assert.equal((await client.getTask(task.id)).task.status, 'FAILED');
    });

    test('a full quota answers 429 quota_exceeded and the same key succeeds once there is room', async () => {
      const active = (await client.listTasks({ queue: 'q1' })).items.filter((x) =>
        ['PENDING', 'CLAIMED', 'RUNNING'].includes(x.status),
      ).length;
      await t.admin.updateApplication('app', { quota: { max_active_tasks: active + 1 } });
      const { task } = await client.submitTask('q1', { input: 1 });
      const before = await rowCounts(t);
      await assert.rejects(client.submitTask('q1', { input: 2 }, 'later'), {
        code: 'quota_exceeded',
        status: 429,
      });
      assert.deepEqual(await rowCounts(t), before, 'whole or nothing');
      await client.cancelTask(task.id);
      const { task: admitted } = await client.submitTask('q1', { input: 2 }, 'later');
      assert.equal(admitted.status, 'PENDING');
      await client.cancelTask(admitted.id);
      await t.admin.updateApplication('app', { quota: { max_active_tasks: 10_000 } });
    });

    test('rejected submits (413, 400, 404) write nothing', async () => {
      const before = await rowCounts(t);
      const big = 'x'.repeat(256 * 1024);
      await assert.rejects(client.submitTask('q1', { input: big }, 'big'), {
        code: 'payload_too_large',
        status: 413,
      });
      await assert.rejects(client.submitTask('q1', { input: 1, timeout: 'soon' }, 'bad'), {
        code: 'invalid_argument',
      });
      await assert.rejects(client.submitTask('nope', { input: 1 }, 'missing'), {
        code: 'not_found',
      });
      assert.deepEqual(await rowCounts(t), before);
    });

    test('a waiting claim returns at once when a task is submitted on the same node', async () => {
      const waiting = client.claimTasks('q1', { worker_id: 'w2', wait_ms: 20_000 });
      // Submit only once the long-poll made its empty claim and waits on this node.
      await waitFor(() => t.server.notifier.waiterCount() === 1 || undefined, {
        what: 'the claim to wait',
      });
      const { task } = await client.submitTask('q1', { input: 'wake' });
      const { tasks } = await waiting;
      assert.deepEqual(
        tasks.map((c) => c.task_id),
        [task.id],
      );
      const [c] = tasks;
      assert.ok(c);
      await client.completeAttempt(c.task_id, c.attempt_id, c.permit, { outcome: 'succeeded' });
    });

    test('scopes and queue rights are enforced on every Pulse route', async () => {
      const reader = t.clientFor('ns', await t.keyWith('ns', ['tasks:read']));
      await assert.rejects(reader.submitTask('q1', { input: 1 }), { code: 'permission_denied' });
      await assert.rejects(reader.claimTasks('q1', { worker_id: 'w' }), {
        code: 'permission_denied',
      });
      await t.admin.createQueue({ name: 'q2', application: 'app' });
      const created = await t.admin.createCredential({
        name: 'limited',
        scopes: ['tasks:submit', 'tasks:work'],
        queues: ['q2'],
      });
      const limited = t.clientFor('ns', created.key ?? '');
      await assert.rejects(limited.claimTasks('q1', { worker_id: 'w' }), {
        code: 'permission_denied',
      });
      await limited.submitTask('q2', { input: 1 });
    });

    test('a NEEDS_REVIEW task is resolved through the review route, which needs tasks:review', async () => {
      const { task } = await client.submitTask('q1', { input: 'r' });
      const { tasks } = await client.claimTasks('q1', { worker_id: 'w' });
      const [c] = tasks;
      assert.ok(c && c.task_id === task.id);
      await client.completeAttempt(c.task_id, c.attempt_id, c.permit, { outcome: 'needs_review' });
      const body = { action: 'succeed', output: { ok: true }, reason: 'seen' } as const;
      await assert.rejects(client.reviewTask(task.id, body), { code: 'permission_denied' });
      const reviewer = t.clientFor('ns', await t.keyWith('ns', ['tasks:review']));
      const receipt = await reviewer.reviewTask(task.id, body);
      assert.equal(receipt.status, 'SUCCEEDED');
      assert.deepEqual((await client.getTask(task.id)).task.result, { ok: true });
    });

    test('start: true on a claim and on a batch claim starts the attempts in the same call', async () => {
      await t.admin.createQueue({ name: 'q-start', application: 'app' });
      const first = (await client.submitTask('q-start', { input: 1 })).task.id;
      const second = (await client.submitTask('q-start', { input: 2 })).task.id;
      await assert.rejects(
        client.claimTasks('q-start', { worker_id: 'w', start: 'yes' } as never),
        {
          code: 'invalid_argument',
        },
      );
      const { tasks } = await client.claimTasks('q-start', { worker_id: 'w', start: true });
      const [a] = tasks;
      assert.ok(a && a.task_id === first);
      assert.equal((await client.getTask(first)).task.status, 'RUNNING');
      const bad = { completions: [], claim: { worker_id: 'w', start: 1 } } as never;
      await assert.rejects(client.completeMany('q-start', bad), { code: 'invalid_argument' });
      const answer = await client.completeMany('q-start', {
        completions: [
          { task_id: a.task_id, attempt_id: a.attempt_id, permit: a.permit, outcome: 'succeeded' },
        ],
        claim: { worker_id: 'w', max_tasks: 2, start: true },
      });
      assert.deepEqual(
        answer.tasks.map((c) => c.task_id),
        [second],
      );
      assert.equal((await client.getTask(first)).task.status, 'SUCCEEDED');
      assert.equal((await client.getTask(second)).task.status, 'RUNNING');
      const { items } = await client.listTaskEvents(second);
      assert.deepEqual(
        items.map((e) => e.type),
        ['task.submitted', 'task.claimed', 'task.started'],
      );
      const [b] = answer.tasks;
      assert.ok(b);
      await client.completeAttempt(b.task_id, b.attempt_id, b.permit, { outcome: 'succeeded' });
    });

    test('a batch of completions settles each item on its own and claims the next tasks in the same call', async () => {
      await t.admin.createQueue({ name: 'q-batch', application: 'app' });
      const submitted = [];
      for (let i = 0; i < 3; i++) {
        submitted.push((await client.submitTask('q-batch', { input: i })).task.id);
      }
      const { tasks } = await client.claimTasks('q-batch', { worker_id: 'w', max_tasks: 2 });
      const [a, b] = tasks;
      assert.ok(a && b);
      const before = await rowCounts(t);
      const answer = await client.completeMany('q-batch', {
        completions: [
          {
            task_id: a.task_id,
            attempt_id: a.attempt_id,
            permit: a.permit,
            outcome: 'succeeded',
            result: 1,
          },
          { task_id: b.task_id, attempt_id: b.attempt_id, permit: 'forged', outcome: 'succeeded' },
          {
            task_id: b.task_id,
            attempt_id: b.attempt_id,
            permit: b.permit,
            outcome: 'nope',
          } as never,
        ],
        claim: { worker_id: 'w', max_tasks: 5 },
      });
      assert.deepEqual(
        answer.receipts.map((r) => [r.index, r.status]),
        [[0, 'SUCCEEDED']],
      );
      assert.deepEqual(
        answer.errors.map((e) => [e.index, e.error.code]),
        [
          [1, 'permit_stale'],
          [2, 'invalid_argument'],
        ],
      );
      assert.deepEqual(
        answer.tasks.map((c) => c.task_id),
        [submitted[2]],
      );
      const after = await rowCounts(t);
      assert.equal(
        after.events,
        before.events + 2,
        'one success and one claim, nothing for the refused items',
      );
      assert.equal((await client.getTask(b.task_id)).task.status, 'CLAIMED');
      const { queue } = await t.admin.getQueue('q-batch');
      assert.deepEqual(
        { ...queue.counts },
        {
          PENDING: 0,
          CLAIMED: 2,
          RUNNING: 0,
          SUCCEEDED: 1,
          FAILED: 0,
          CANCELLED: 0,
          NEEDS_REVIEW: 0,
        },
      );
      for (const c of [b, ...answer.tasks]) {
        await client.completeAttempt(c.task_id, c.attempt_id, c.permit, { outcome: 'succeeded' });
      }
    });
  });
});
