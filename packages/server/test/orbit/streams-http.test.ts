/**
 * Orbit over HTTP (API.md "Orbit"): default and named streams, reading after a cursor, the
 * long-poll waking on an append, subscriptions with a monotonic ack, 410 after retention, and
 * the errors for bad input.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { WeaveClient } from '@weave/sdk';
import { streamWakeUpKey } from '../../src/orbit/append-result.js';
import { enforceRetention } from '../../src/orbit/retention.js';
import { forEachDialect } from '../support/databases.js';
import { startTestServer } from '../support/servers.js';
import type { TestServer } from '../support/servers.js';
import { waitFor } from '../support/wait-for.js';

interface Event {
  seq: string;
  type: string;
  task_id: string;
  status: string;
  result?: unknown;
}
interface Page {
  events: Event[];
  next_after: string;
}

forEachDialect((dialect) => {
  describe(`Orbit HTTP on ${dialect}`, () => {
    let t: TestServer;
    let client: WeaveClient;
    let reader: WeaveClient;

    /** Submit to q1 and complete it with `result` through the worker protocol. */
    async function runTask(result: unknown, extra: Record<string, unknown> = {}) {
      const { task } = await client.submitTask('q1', { input: {}, ...extra });
      const { tasks } = await client.claimTasks('q1', { worker_id: 'w', max_tasks: 1 });
      const claimed = tasks[0];
      assert.equal(claimed?.task_id, task.id);
      await client.completeAttempt(claimed.task_id, claimed.attempt_id, claimed.permit, {
        outcome: 'succeeded',
        result,
      });
      return task.id;
    }

    before(async () => {
      t = await startTestServer(dialect, {
        sweepIntervalMs: false,
        scheduleIntervalMs: false,
        retentionIntervalMs: false,
      });
      client = t.admin;
      reader = t.clientFor('ns', await t.keyWith('ns', ['results:read']));
    });
    after(() => t.close());

    test('every application has a default stream of its name that receives its results', async () => {
      const list = await reader.request<{ items: { name: string; default: boolean }[] }>(
        'GET',
        '/streams',
      );
      assert.deepEqual(
        list.items.map((s) => [s.name, s.default]),
        [['app', true]],
      );
      const id = await runTask({ n: 1 });
      const page = await reader.request<Page>('GET', '/streams/app/events', {
        query: { after: 0 },
      });
      assert.equal(page.events.length, 1);
      assert.deepEqual(
        { seq: page.events[0]?.seq, task_id: page.events[0]?.task_id, type: page.events[0]?.type },
        { seq: '1', task_id: id, type: 'task.succeeded' },
      );
      assert.equal(page.next_after, '1');
      const empty = await reader.request<Page>('GET', '/streams/app/events', {
        query: { after: 1 },
      });
      assert.deepEqual(empty, { events: [], next_after: '1' });
    });

    test('a long-poll read wakes as soon as a result is appended', async () => {
      const { stream } = await reader.request<{ stream: { id: string; head_seq: string } }>(
        'GET',
        '/streams/app',
      );
      const signals = t.server.database.wakeUps;
      const waiters = signals.waiterCount(streamWakeUpKey(stream.id));
      const started = Date.now();
      const waiting = reader.request<Page>('GET', '/streams/app/events', {
        query: { after: stream.head_seq, wait_ms: 10_000 },
      });
      // Append only once the read found nothing and waits on this node.
      await waitFor(() => signals.waiterCount(streamWakeUpKey(stream.id)) > waiters || undefined, {
        what: 'the read to wait',
      });
      const id = await runTask('late');
      const page = await waiting;
      const elapsed = Date.now() - started;
      assert.equal(page.events[0]?.task_id, id);
      assert.ok(elapsed < 5_000, `woke after ${elapsed} ms`);
    });

    test('a submit may name another stream of its application; a stream of another application is refused', async () => {
      const created = await client.requestRaw('POST', '/streams', {
        body: { name: 'billing', application: 'app', retention: { max_events: 2 } },
      });
      assert.equal(created.status, 201);
      const other = await t.keyWith('ns', ['admin'], { application: 'other', queues: ['q2'] });
      const otherClient = t.clientFor('ns', other);
      await assert.rejects(
        otherClient.submitTask('q2', { input: {}, result_stream: 'billing' }),
        (e: { status: number; code: string; details: { path: string } }) =>
          e.status === 403 &&
          e.code === 'permission_denied' &&
          e.details.path === '$.result_stream',
      );
      await assert.rejects(client.submitTask('q1', { input: {}, result_stream: 'nope' }), {
        code: 'not_found',
      });
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) {
        ids.push(await runTask(i, { result_stream: 'billing' }));
      }
      const page = await reader.request<Page>('GET', '/streams/billing/events');
      assert.deepEqual(
        page.events.map((e) => [e.seq, e.task_id]),
        ids.map((id, i) => [String(i + 1), id]),
      );
      const app = await reader.request<Page>('GET', '/streams/app/events');
      assert.ok(!app.events.some((e) => ids.includes(e.task_id)), 'nothing went to the default');
    });

    test('after retention, a read behind the retained range is 410 cursor_expired with the earliest seq', async () => {
      await enforceRetention(t.server.database, 1000);
      const stream = await reader.request<{ stream: { earliest_seq: string; head_seq: string } }>(
        'GET',
        '/streams/billing',
      );
      assert.deepEqual(stream.stream, { ...stream.stream, earliest_seq: '4', head_seq: '5' });
      await assert.rejects(
        reader.request('GET', '/streams/billing/events', { query: { after: 2 } }),
        (e: { status: number; code: string; details: { earliest_seq: string } }) =>
          e.status === 410 && e.code === 'cursor_expired' && e.details.earliest_seq === '4',
      );
      const fromEarliest = await reader.request<Page>('GET', '/streams/billing/events');
      assert.deepEqual(
        fromEarliest.events.map((e) => e.seq),
        ['4', '5'],
      );
      const atEdge = await reader.request<Page>('GET', '/streams/billing/events', {
        query: { after: 3 },
      });
      assert.equal(atEdge.events.length, 2);
    });

    test('a subscription reads from its cursor; acks never move backwards nor past the head', async () => {
      const created = await reader.request<{ subscription: { id: string; acked_seq: string } }>(
        'POST',
        '/streams/app/subscriptions',
        { body: { name: 'reporting' } },
      );
      const sub = created.subscription;
      assert.equal(sub.acked_seq, '0');
      assert.equal('secret' in created, false);
      const first = await reader.request<Page>('GET', `/subscriptions/${sub.id}/events`, {
        query: { limit: 1 },
      });
      assert.deepEqual(
        first.events.map((e) => e.seq),
        ['1'],
      );
      const acked = await reader.request<{ subscription: { acked_seq: string } }>(
        'POST',
        `/subscriptions/${sub.id}/ack`,
        { body: { seq: '2' } },
      );
      assert.equal(acked.subscription.acked_seq, '2');
      const back = await reader.request<{ subscription: { acked_seq: string } }>(
        'POST',
        `/subscriptions/${sub.id}/ack`,
        { body: { seq: '1' } },
      );
      assert.equal(back.subscription.acked_seq, '2', 'an older ack changes nothing');
      await assert.rejects(
        reader.request('POST', `/subscriptions/${sub.id}/ack`, { body: { seq: '999' } }),
        { status: 400, code: 'invalid_argument' },
      );
      await runTask('third');
      const next = await reader.request<Page>('GET', `/subscriptions/${sub.id}/events`);
      assert.equal(next.events[0]?.seq, '3');
      const latest = await reader.request<{ subscription: { acked_seq: string } }>(
        'POST',
        '/streams/app/subscriptions',
        { body: { name: 'tail', start: 'latest' } },
      );
      const head = (await reader.request<{ stream: { head_seq: string } }>('GET', '/streams/app'))
        .stream.head_seq;
      assert.equal(latest.subscription.acked_seq, head);
      await assert.rejects(
        reader.request('POST', '/streams/app/subscriptions', { body: { name: 'tail' } }),
        { status: 409, code: 'already_exists' },
      );
    });

    test('a subscription behind retention reads 410; a webhook subscription needs admin and returns its secret once', async () => {
      const sub = await reader.request<{ subscription: { id: string } }>(
        'POST',
        '/streams/billing/subscriptions',
        { body: { name: 'late' } },
      );
      // Created at the earliest retained: readable. Then more results push it behind.
      for (let i = 0; i < 3; i++) {
        await runTask(i, { result_stream: 'billing' });
      }
      await enforceRetention(t.server.database, 1000);
      await assert.rejects(
        reader.request('GET', `/subscriptions/${sub.subscription.id}/events`),
        (e: { status: number; details: { earliest_seq: string } }) =>
          e.status === 410 && e.details.earliest_seq === '7',
      );
      await assert.rejects(
        reader.request('POST', '/streams/app/subscriptions', {
          body: { name: 'hook', webhook: { url: 'http://127.0.0.1:9/x' } },
        }),
        { status: 403, code: 'permission_denied' },
      );
      const hook = await client.requestRaw('POST', '/streams/app/subscriptions', {
        body: { name: 'hook', webhook: { url: 'http://127.0.0.1:9/x' } },
        idempotencyKey: 'hook-1',
      });
      const body = hook.body as { secret: string; subscription: { webhook: { url: string } } };
      assert.match(body.secret, /^whsec_[A-Za-z0-9_-]{43}$/);
      assert.equal(body.subscription.webhook.url, 'http://127.0.0.1:9/x');
      const replay = await client.requestRaw('POST', '/streams/app/subscriptions', {
        body: { name: 'hook', webhook: { url: 'http://127.0.0.1:9/x' } },
        idempotencyKey: 'hook-1',
      });
      assert.equal('secret' in (replay.body as object), false, 'a replay does not show it again');
    });

    test('bad input gets a clear error naming the field', async () => {
      const cases: [string, string, unknown, number, string][] = [
        ['POST', '/streams', { name: 'Bad Name', application: 'app' }, 400, '$.name'],
        ['POST', '/streams', { name: 'x1', application: 'ghost' }, 404, '$.application'],
        ['POST', '/streams', { name: 'app', application: 'app' }, 409, '$.name'],
        [
          'POST',
          '/streams',
          { name: 'x2', application: 'app', retention: { max_age: '7 days' } },
          400,
          '$.retention.max_age',
        ],
        [
          'POST',
          '/streams',
          { name: 'x3', application: 'app', retention: { max_events: 0 } },
          400,
          '$.retention.max_events',
        ],
        [
          'POST',
          '/streams/app/subscriptions',
          { name: 'h2', webhook: { url: 'ftp://x/' } },
          400,
          '$.webhook.url',
        ],
        ['POST', '/streams/app/subscriptions', { name: 's', start: 'middle' }, 400, '$.start'],
        ['POST', '/streams/app/subscriptions', { name: 's', extra: 1 }, 400, '$.extra'],
      ];
      for (const [method, path, body, status, field] of cases) {
        await assert.rejects(
          client.request(method, path, { body: body as never }),
          (e: { status: number; details: { path?: string } }) =>
            e.status === status && e.details.path === field,
          `${method} ${path} ${JSON.stringify(body)}`,
        );
      }
      for (const query of [
        { after: '-1' },
        { limit: '0' },
        { wait_ms: '40000' },
        { after: '99999' },
      ]) {
        await assert.rejects(reader.request('GET', '/streams/app/events', { query }), {
          status: 400,
        });
      }
      await assert.rejects(reader.request('GET', '/streams/ghost/events'), { status: 404 });
      await assert.rejects(reader.request('GET', '/subscriptions/999999'), { status: 404 });
      await assert.rejects(reader.request('GET', '/subscriptions/abc'), { status: 404 });
    });
  });
});
