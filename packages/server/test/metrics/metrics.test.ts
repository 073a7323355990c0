/**
 * `/metrics` (issue 13 Deliver 4, docs/operations.md "Metrics"), on SQLite and MariaDB: after a
 * small workload — plain tasks that succeed and fail, a workflow with a TASK and a TIMER, two
 * instances waiting for a signal, tasks left pending — the scrape parses as the Prometheus text
 * format, every listed metric is there with its type, counters and histograms moved, and the
 * database gauges equal known counts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { NonRetryableError } from '@weave/sdk';
import { forEachDialect } from '../support/databases.js';
import { parseExposition, valueOf } from '../support/exposition.js';
import type { Family } from '../support/exposition.js';
import { startTestServer } from '../support/servers.js';
import type { TestServer } from '../support/servers.js';
import { waitFor } from '../support/wait-for.js';
import { startWorker } from '../support/workers.js';

const EXPECTED: Readonly<Record<string, Family['type']>> = {
  weave_http_request_duration_seconds: 'histogram',
  weave_task_outcomes_total: 'counter',
  weave_task_claim_wait_seconds: 'histogram',
  weave_timer_lateness_seconds: 'histogram',
  weave_queue_tasks: 'gauge',
  weave_tasks_in_flight: 'gauge',
  weave_instances_active: 'gauge',
  weave_inbox_pending_rows: 'gauge',
  weave_inbox_lag_seconds: 'gauge',
  weave_pending_advances: 'gauge',
  weave_pending_advance_lag_seconds: 'gauge',
  weave_metrics_database_read_seconds: 'gauge',
  weave_metrics_dropped_facts_total: 'counter',
  weave_group_commit_items: 'histogram',
  process_cpu_user_seconds_total: 'counter',
  process_resident_memory_bytes: 'gauge',
  nodejs_eventloop_lag_seconds: 'gauge',
  nodejs_heap_size_used_bytes: 'gauge',
};

const WORKFLOWS = [
  {
    schema_version: 1,
    name: 'metered',
    steps: [
      { id: 'work', kind: 'TASK', queue: 'q1', input: { op: 'work' } },
      { id: 'nap', kind: 'TIMER', duration: 'PT0.2S' },
    ],
  },
  {
    schema_version: 1,
    name: 'approval',
    steps: [{ id: 'approve', kind: 'SIGNAL', name: 'approve', correlation: 'never' }],
  },
];

async function scrape(url: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${url}/metrics`, { headers });
  return { response, text: await response.text() };
}

forEachDialect((dialect) => {
  describe(`/metrics on ${dialect}`, () => {
    let t: TestServer;
    let families: Map<string, Family>;

    before(async () => {
      t = await startTestServer(dialect, { metricsCacheMs: 0, scheduleIntervalMs: false });
      for (const w of WORKFLOWS) {
        await t.admin.workflows.publish(w);
      }
      const worker = startWorker({
        client: t.admin,
        concurrency: 4,
        waitMs: 500,
        handlers: {
          q1: (input) => {
            if ((input as { op?: unknown }).op === 'fail') {
              throw new NonRetryableError('declined', { code: 'card_declined' });
            }
            return Promise.resolve({ ok: true });
          },
        },
      });
      try {
        const submitted: string[] = [];
        for (const op of ['ok', 'ok', 'fail']) {
          submitted.push((await t.admin.submitTask('q1', { input: { op } })).task.id);
        }
        const { instance } = await t.admin.instances.start('metered', { input: {} });
        for (let i = 0; i < 2; i++) {
          await t.admin.instances.start('approval', { input: {} });
        }
        await waitFor(
          async () => {
            const done = await Promise.all(submitted.map((id) => t.admin.getTask(id)));
            const run = await t.admin.instances.get(instance.id);
            return done.every((d) => ['SUCCEEDED', 'FAILED'].includes(d.task.status)) &&
              run.instance.status === 'SUCCEEDED'
              ? true
              : undefined;
          },
          { timeoutMs: 30_000 },
        );
      } finally {
        await worker.stop();
      }
      // Left for the gauges: two tasks nobody claims, on a queue no worker ever polled (a long
      // poll the stopped worker abandoned may still claim on q1 until the server sees it gone).
      await t.keyWith('ns', ['admin'], { application: 'app', queues: ['q2'] });
      await t.admin.submitTask('q2', { input: { op: 'ok' } });
      await t.admin.submitTask('q2', { input: { op: 'ok' } });
      const { response, text } = await scrape(t.server.url);
      assert.equal(response.status, 200);
      assert.match(response.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
      families = parseExposition(text);
    });
    after(() => t.close());

    test('every listed metric is there with its type and help', () => {
      for (const [name, type] of Object.entries(EXPECTED)) {
        const family = families.get(name);
        assert.ok(family, `${name} is exposed`);
        assert.equal(family.type, type, name);
        assert.notEqual(family.help, '', `${name} has help`);
      }
    });

    test('task outcomes counted by namespace, queue and outcome', () => {
      const count = (outcome: string) =>
        valueOf(families, 'weave_task_outcomes_total', { namespace: 'ns', queue: 'q1', outcome });
      // Two plain tasks and the workflow's TASK succeeded; one plain task failed.
      assert.equal(count('succeeded'), 3);
      assert.equal(count('failed'), 1);
    });

    test('claim waits and timer lateness have samples', () => {
      const claims = valueOf(families, 'weave_task_claim_wait_seconds_count', {
        namespace: 'ns',
        queue: 'q1',
      });
      assert.equal(claims, 4);
      const timers = valueOf(families, 'weave_timer_lateness_seconds_count', { namespace: 'ns' });
      assert.equal(timers, 1);
      const late = valueOf(families, 'weave_timer_lateness_seconds_sum', { namespace: 'ns' });
      assert.ok(late !== undefined && late >= 0 && late < 30, `lateness ${late}`);
    });

    test('queue depth, in-flight tasks and active instances equal the known counts', () => {
      const depth = (status: string) =>
        valueOf(families, 'weave_queue_tasks', { namespace: 'ns', queue: 'q2', status });
      assert.equal(depth('PENDING'), 2);
      assert.equal(depth('RUNNING'), 0);
      assert.equal(depth('NEEDS_REVIEW'), 0);
      assert.equal(valueOf(families, 'weave_tasks_in_flight', { namespace: 'ns', queue: 'q2' }), 0);
      const active = (status: string) =>
        valueOf(families, 'weave_instances_active', { namespace: 'ns', status });
      assert.equal(active('WAITING'), 2);
      assert.equal(active('RUNNING'), 0);
      assert.equal(valueOf(families, 'weave_inbox_pending_rows', { namespace: 'ns' }), 0);
      assert.equal(valueOf(families, 'weave_inbox_lag_seconds', { namespace: 'ns' }), 0);
      assert.equal(valueOf(families, 'weave_pending_advances', { namespace: 'ns' }), 0);
    });

    test('grouped transactions are counted by group, with the requests each held', () => {
      const items = (group: string) => ({
        count: valueOf(families, 'weave_group_commit_items_count', { group }) ?? 0,
        sum: valueOf(families, 'weave_group_commit_items_sum', { group }) ?? 0,
      });
      // The five submits (three, then two on q2) are the only short shared requests here.
      assert.equal(items('shared_short').sum, 5);
      const starts = items('shared_long');
      assert.equal(starts.sum, 3, 'three Starts');
      assert.ok(starts.count >= 1 && starts.count <= 3);
      // The SDK Worker's claims and batch completions.
      const calls = items('worker_calls');
      assert.ok(calls.count >= 1 && calls.sum >= calls.count, JSON.stringify(calls));
    });

    test('requests are timed by route template and status, never by raw URL', () => {
      const family = families.get('weave_http_request_duration_seconds');
      const submits = valueOf(families, 'weave_http_request_duration_seconds_count', {
        method: 'POST',
        route: '/v1/namespaces/{ns}/queues/{queue}/tasks',
        status: '201',
      });
      assert.equal(submits, 5);
      const routes = new Set(family?.samples.map((s) => s.labels.route));
      assert.ok(![...routes].some((r) => r?.includes('q1') === true), [...routes].join(' '));
    });
  });

  describe(`/metrics backlog gauges on ${dialect}`, () => {
    let t: TestServer;
    // No workflow runner on this node: rows written below stay pending.
    before(async () => {
      t = await startTestServer(dialect, {
        metricsCacheMs: 0,
        inboxIntervalMs: false,
        scheduleIntervalMs: false,
      });
    });
    after(() => t.close());

    test('a pending inbox row and a pending advance show as backlog with their age', async () => {
      const db = t.server.database.kysely;
      const ns = await db
        .selectFrom('namespaces')
        .select('id')
        .where('name', '=', 'ns')
        .executeTakeFirstOrThrow();
      const dueAt = (BigInt(Date.now()) - 90_000n) * 1000n;
      await db
        .insertInto('weave_inbox')
        .values({
          namespace_id: ns.id,
          instance_id: '999',
          event_id: 'task.999.2',
          type: 'task.succeeded',
          state: 'PENDING',
          available_at: dueAt,
          created_at: dueAt,
        })
        .execute();
      await db
        .insertInto('weave_pending_advances')
        .values({
          namespace_id: ns.id,
          instance_id: '999',
          root_step_row_id: '1',
          root_step_revision: '1',
          checkpoint: '{}',
          state: 'PENDING',
          available_at: dueAt,
          created_at: dueAt,
        })
        .execute();
      const families = parseExposition((await scrape(t.server.url)).text);
      assert.equal(valueOf(families, 'weave_inbox_pending_rows', { namespace: 'ns' }), 1);
      assert.equal(valueOf(families, 'weave_pending_advances', { namespace: 'ns' }), 1);
      for (const name of ['weave_inbox_lag_seconds', 'weave_pending_advance_lag_seconds']) {
        const lag = valueOf(families, name, { namespace: 'ns' }) ?? -1;
        assert.ok(lag >= 85 && lag < 300, `${name} ${lag}`);
      }
    });
  });

  describe(`/metrics with a metrics token on ${dialect}`, () => {
    let t: TestServer;
    before(async () => {
      t = await startTestServer(dialect, { metricsToken: 'scrape-me', scheduleIntervalMs: false });
    });
    after(() => t.close());

    test('answers 401 without the token and 200 with it; health needs no token', async () => {
      assert.equal((await scrape(t.server.url)).response.status, 401);
      const wrong = await scrape(t.server.url, { authorization: 'Bearer scrape-you' });
      assert.equal(wrong.response.status, 401);
      const { response, text } = await scrape(t.server.url, { authorization: 'Bearer scrape-me' });
      assert.equal(response.status, 200);
      assert.ok(parseExposition(text).has('weave_queue_tasks'));
      assert.equal((await fetch(`${t.server.url}/healthz`)).status, 200);
    });
  });
});
