/**
 * Namespace scoping (docs/design/runtime.md §7, DESIGN.md §5a "Beyond one database"): a real
 * server with a statement hook runs a representative workload through the HTTP API and the SDK,
 * with its background loops on; every statement it ran on a table with a `namespace_id` column
 * must constrain that column (test/support/namespace-scope.ts), except the cross-namespace
 * discovery scans listed in CROSS_NAMESPACE_SCANS.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { NonRetryableError } from '@weave/sdk';
import type { WeaveClient } from '@weave/sdk';
import { CompiledQuery, sql } from 'kysely';
import type { Database } from '../../src/store/database.js';
import { withTx } from '../../src/store/with-tx.js';
import { forEachDialect, openTestDatabase } from '../support/databases.js';
import { checkNamespaceScope } from '../support/namespace-scope.js';
import { startTestServer } from '../support/servers.js';
import type { TestServer } from '../support/servers.js';
import { waitFor } from '../support/wait-for.js';
import { startWorker } from '../support/workers.js';

interface Statement {
  readonly sql: string;
  readonly parameters: readonly unknown[];
  readonly connection: object;
  /** The server's own frames (build/src) of the call that ran it. */
  readonly path: string;
}

/**
 * The scans that read across namespaces by design: each is a non-locking (or SKIP LOCKED)
 * discovery of due work, named here with its reason (runtime.md §7 lists them).
 */
const CROSS_NAMESPACE_SCANS: readonly { name: string; why: string; path: RegExp }[] = [
  {
    name: 'credential lookup',
    why: 'the key itself says which namespace it belongs to: a unique point read by lookup hash',
    path: /readCredentialRow \(auth\/authenticate\.js/,
  },
  {
    name: 'workflow inbox discovery',
    why: 'finds instances with pending results or advances in every namespace (non-locking); each is then consumed in its own transaction scoped by namespace',
    path: /discover \(weave\/runtime\/inbox-consumer\.js/,
  },
  {
    name: 'lease and deadline sweep',
    why: 'discovers due tasks of every namespace (SKIP LOCKED); settling them is scoped by id',
    path: /selectDue \(pulse\/expire-leases\.js/,
  },
  {
    name: 'schedule runner',
    why:
      'discovers the next due schedule of any namespace (SKIP LOCKED); known gap: its firing ' +
      'statements by schedule id are not yet scoped',
    path: /\(pulse\/(fire-schedule|prune-firings)\.js/,
  },
  {
    name: 'webhook loop',
    why:
      'discovers due webhook subscriptions of every namespace; known gap: the claim and ' +
      'attempt record by subscription id are not yet scoped',
    path: /\(orbit\/(webhook-loop|webhook-delivery)\.js/,
  },
  {
    name: 'stream event page (known gap, not by design)',
    why:
      'reads orbit_result_events by stream id, the stream already resolved in the namespace; ' +
      'StreamPosition does not carry namespace_id yet',
    path: /readEvents \(orbit\/read-events\.js/,
  },
  {
    name: 'bulk-operation discovery',
    why:
      'finds a RUNNING instance operation of any namespace whose lease is free (SKIP LOCKED); ' +
      'its lease, batches and instances are then scoped by namespace_id',
    path: /discoverOperation \(weave\/operations\/operation-runner\.js/,
  },
  {
    name: 'retention loop',
    why: 'lists the streams with a retention policy across namespaces, then trims each by id',
    path: /\(orbit\/retention\.js/,
  },
];

/** A plan step that searches an index by `namespace_id` alone: every row of the namespace. */
const NAMESPACE_ONLY_SEARCH =
  /^SEARCH \S+(?: AS \S+)? USING (?:COVERING )?INDEX \S+ \(namespace_id=\?\)$/;

/** Values in a list from which SQLite (no statistics) prefers a namespace-first index: 8. */
const WIDE_LIST = 24;

/** A column's `in (?, …)` list, other than `namespace_id`'s (inNamespaces keeps that one). */
const IN_LIST = /("(?!namespace_id")\w+"(?:\."\w+")?) in \(((?:\?, )*\?)\)/gi;

/**
 * The statement with each `column in (…)` list made `size` long (the list's own values
 * repeated): SQLite's plan depends on a list's length, not on its values.
 */
function widenLists(
  text: string,
  parameters: readonly unknown[],
  size: number,
): { sql: string; parameters: unknown[] } {
  let sql = '';
  const wideParameters: unknown[] = [];
  let textAt = 0;
  let parameterAt = 0;
  for (const list of text.matchAll(IN_LIST)) {
    const before = text.slice(textAt, list.index);
    const upTo = parameterAt + (before.match(/\?/g) ?? []).length;
    wideParameters.push(...parameters.slice(parameterAt, upTo));
    const values = parameters.slice(upTo, upTo + (list[2] ?? '').split('?').length - 1);
    const wide = Array.from({ length: size }, (_, i) => values[i % values.length]);
    sql += `${before}${list[1] ?? ''} in (${wide.map(() => '?').join(', ')})`;
    wideParameters.push(...wide);
    textAt = list.index + list[0].length;
    parameterAt = upTo + values.length;
  }
  return {
    sql: sql + text.slice(textAt),
    parameters: [...wideParameters, ...parameters.slice(parameterAt)],
  };
}

function isExempt(statement: Statement): boolean {
  return CROSS_NAMESPACE_SCANS.some((scan) => scan.path.test(statement.path));
}

/** The server's frames of the current stack, innermost first. */
function serverFrames(): string {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 60;
  const stack = new Error().stack ?? '';
  Error.stackTraceLimit = limit;
  return stack
    .split('\n')
    .filter((line) => line.includes('/build/src/') && !line.includes('/store/coalescing-driver'))
    .map((line) =>
      line
        .trim()
        .replace(/^at /, '')
        .replace(/\(?\S*\/build\/src\//, '('),
    )
    .slice(0, 12)
    .join(' < ');
}

/** Tables with a `namespace_id` column, from the database catalog. */
async function namespacedTables(database: Database): Promise<Set<string>> {
  if (database.dialect.name === 'sqlite') {
    const { rows } = await sql<{ name: string }>`
      select m.name as name from sqlite_master m, pragma_table_info(m.name) c
      where m.type = 'table' and c.name = 'namespace_id'`.execute(database.kysely);
    return new Set(rows.map((r) => r.name));
  }
  const { rows } = await sql<{ name: string }>`
    select table_name as name from information_schema.columns
    where table_schema = database() and column_name = 'namespace_id'`.execute(database.kysely);
  return new Set(rows.map((r) => r.name));
}

forEachDialect((dialect) => {
  describe(`Namespace scoping on ${dialect}`, () => {
    const statements: Statement[] = [];
    let t: TestServer;
    let admin: WeaveClient;
    let namespaced: Set<string>;

    before(async () => {
      t = await startTestServer(dialect, {
        onStatement(text, parameters, connection) {
          const path = /^\s*(select|insert|update|delete|with)/i.test(text) ? serverFrames() : '';
          statements.push({ sql: text, parameters, connection, path });
        },
        sweepIntervalMs: 50,
        scheduleIntervalMs: 50,
        retentionIntervalMs: 50,
        webhookIntervalMs: 50,
      });
      admin = t.admin;
      const catalog = openTestDatabase(t.db.url);
      try {
        namespaced = await namespacedTables(catalog);
      } finally {
        await catalog.close();
      }
    });
    after(() => t.close());

    test('the schema has namespaced tables (the catalog read works)', () => {
      for (const table of ['tasks', 'task_attempts', 'queues', 'credentials', 'orbit_streams']) {
        assert.ok(namespaced.has(table), table);
      }
      assert.equal(namespaced.has('namespaces'), false);
    });

    test('every statement of a representative workload names its namespace', async () => {
      await runWorkload(t, admin);
      const unscoped = new Map<
        string,
        { tables: readonly string[]; count: number; path: string }
      >();
      for (const statement of statements) {
        const { unscoped: tables } = checkNamespaceScope(statement.sql, namespaced);
        if (tables.length === 0 || isExempt(statement)) {
          continue;
        }
        const seen = unscoped.get(statement.sql);
        unscoped.set(statement.sql, {
          tables,
          count: (seen?.count ?? 0) + 1,
          path: seen?.path ?? statement.path,
        });
      }
      const report = [...unscoped].map(
        ([text, v]) => `- [${v.tables.join(', ')}] ×${v.count} ${text}\n    at ${v.path}`,
      );
      assert.ok(statements.length > 200, `saw ${statements.length} statements`);
      assert.equal(unscoped.size, 0, `unscoped statements:\n${report.join('\n')}`);
    });

    if (dialect === 'sqlite') {
      // docs/design/hot-path.md §5, §18: without statistics SQLite's planner serves
      // `namespace_id = ? AND id IN (…)` (8 ids or more) from a namespace-first index, every
      // row of the namespace read to find the listed ones; `inNamespaces` leaves it the key.
      test('on SQLite, no statement with an IN list searches an index by namespace_id alone (hot-path.md §18)', async () => {
        const catalog = openTestDatabase(t.db.url);
        const byNamespace = new Map<string, string>();
        try {
          for (const statement of statements) {
            if (!statement.sql.match(IN_LIST) || byNamespace.has(statement.sql)) {
              continue;
            }
            const wide = widenLists(statement.sql, statement.parameters, WIDE_LIST);
            const plan = await catalog.kysely.executeQuery<{ detail: string }>(
              CompiledQuery.raw(`explain query plan ${wide.sql}`, [...wide.parameters]),
            );
            const scan = plan.rows.find((row) => NAMESPACE_ONLY_SEARCH.test(row.detail));
            byNamespace.set(statement.sql, scan === undefined ? '' : scan.detail);
          }
        } finally {
          await catalog.close();
        }
        const slow = [...byNamespace].filter(([, detail]) => detail !== '');
        assert.ok(byNamespace.size >= 5, `saw ${byNamespace.size} statements with an IN list`);
        assert.deepEqual(
          slow.map(([text, detail]) => `${detail}: ${text}`),
          [],
          'statements that read a whole namespace to find the rows of a list',
        );
      });
    }
  });
});

/** Bootstrap (done by startTestServer), then every kind of call once or more. */
async function runWorkload(t: TestServer, admin: WeaveClient): Promise<void> {
  await admin.createApplication({ name: 'shop', quota: { max_active_tasks: 100 } });
  await admin.getApplication('shop');
  await admin.updateApplication('shop', { quota: { max_active_tasks: 50 } });
  await admin.createQueue({ name: 'work', application: 'shop', capacity: 100 });
  await admin.createQueue({ name: 'sdk', application: 'shop', capacity: 100 });
  await admin.listQueues();
  await admin.getQueue('work');
  await admin.pauseQueue('work');
  await admin.resumeQueue('work');
  await admin.requestRaw('POST', '/streams', {
    body: { name: 'orders', application: 'shop', retention: { max_events: 100 } },
  });
  await admin.requestRaw('GET', '/streams');
  const sub = await admin.request<{ subscription: { id: string } }>(
    'POST',
    '/streams/orders/subscriptions',
    { body: { name: 'reader' } },
  );
  await admin.requestRaw('POST', '/streams/orders/subscriptions', {
    body: { name: 'hook', webhook: { url: 'http://127.0.0.1:9/x' } },
  });
  await admin.requestRaw('GET', '/streams/orders/subscriptions');
  await workerCalls(admin);
  await sdkWorker(admin);
  await admin.requestRaw('GET', '/streams/orders/events', { query: { after: 0 } });
  await admin.requestRaw('GET', '/streams/orders/events', { query: { after: 0, wait_ms: 1 } });
  await admin.requestRaw('GET', `/subscriptions/${sub.subscription.id}`);
  const page = await admin.request<{ events: { seq: string }[] }>(
    'GET',
    `/subscriptions/${sub.subscription.id}/events`,
  );
  const last = page.events[page.events.length - 1]?.seq ?? '0';
  await admin.requestRaw('POST', `/subscriptions/${sub.subscription.id}/ack`, {
    body: { seq: last },
  });
  await schedules(t, admin);
  await credentials(admin);
  // A claimed task left alone (the sweeper scans leases and deadlines).
  await admin.submitTask('work', { input: 'abandoned' });
  await admin.claimTasks('work', { worker_id: 'w9', max_tasks: 1 });
  await instanceReads(t, admin);
  // The loops run a few passes (sweeper, schedule runner, webhook loop, retention).
  await new Promise((resolve) => setTimeout(resolve, 300));
}

/** The worker protocol by hand: long-poll and batch claims, start, heartbeat, completions. */
async function workerCalls(admin: WeaveClient): Promise<void> {
  const ok = await admin.submitTask('work', { input: { n: 1 }, result_stream: 'orders' });
  const retried = await admin.submitTask('work', {
    input: { n: 2 },
    retry: { max_attempts: 3, initial_interval: 'PT0.001S' },
    result_stream: 'orders',
  });
  const review = await admin.submitTask('work', { input: { n: 3 }, idempotent: false });
  const cancelled = await admin.submitTask('work', { input: { n: 4 } });
  await admin.cancelTask(cancelled.task.id);
  const waited = await admin.claimTasks('work', { worker_id: 'w1', max_tasks: 1, wait_ms: 1000 });
  const batch = await admin.claimTasks('work', { worker_id: 'w1', max_tasks: 10 });
  const claims = [...waited.tasks, ...batch.tasks];
  const find = (id: string) => {
    const claim = claims.find((c) => c.task_id === id);
    assert.ok(claim, `claimed ${id}`);
    return claim;
  };
  const a = find(ok.task.id);
  await admin.startAttempt(a.task_id, a.attempt_id, a.permit);
  await admin.heartbeat(a.task_id, a.attempt_id, a.permit);
  await admin.completeAttempt(a.task_id, a.attempt_id, a.permit, {
    outcome: 'succeeded',
    result: { ok: true },
  });
  const b = find(retried.task.id);
  await admin.startAttempt(b.task_id, b.attempt_id, b.permit);
  await admin.completeAttempt(b.task_id, b.attempt_id, b.permit, {
    outcome: 'failed',
    error: { code: 'flaky', retryable: true },
  });
  const c = find(review.task.id);
  await admin.startAttempt(c.task_id, c.attempt_id, c.permit);
  await admin.completeAttempt(c.task_id, c.attempt_id, c.permit, {
    outcome: 'needs_review',
    error: { code: 'unsure' },
  });
  await admin.reviewTask(c.task_id, { action: 'succeed', output: 1, reason: 'checked' });
  const again = await admin.claimTasks('work', { worker_id: 'w1', max_tasks: 10, wait_ms: 2000 });
  const b2 = again.tasks.find((x) => x.task_id === retried.task.id);
  assert.ok(b2, 'the retry was claimed');
  const more = await admin.submitTask('work', { input: { n: 5 } });
  const answer = await admin.completeMany('work', {
    completions: [
      { task_id: b2.task_id, attempt_id: b2.attempt_id, permit: b2.permit, outcome: 'succeeded' },
    ],
    claim: { worker_id: 'w1', max_tasks: 5, start: true },
  });
  const m = answer.tasks.find((x) => x.task_id === more.task.id);
  assert.ok(m, 'the batch claimed the next task');
  await admin.completeMany('work', {
    completions: [
      {
        task_id: m.task_id,
        attempt_id: m.attempt_id,
        permit: m.permit,
        outcome: 'failed',
        error: { code: 'fatal', retryable: false },
      },
    ],
  });
  await admin.listTasks({});
  await admin.getTask(ok.task.id);
  await admin.listTaskEvents(ok.task.id);
  await admin.getTaskSource(ok.task.id);
}

/** The SDK Worker: a success, a retried failure and a final failure. */
async function sdkWorker(admin: WeaveClient): Promise<void> {
  let flaky = 0;
  const worker = startWorker({
    client: admin,
    concurrency: 2,
    waitMs: 200,
    handlers: {
      sdk: (input) => {
        if (input === 'flaky' && flaky++ === 0) {
          throw new Error('once');
        }
        if (input === 'bad') {
          throw new NonRetryableError('bad input', { code: 'bad_input' });
        }
        return Promise.resolve({ echo: input });
      },
    },
  });
  try {
    const ids: string[] = [];
    for (const input of ['fine', 'flaky', 'bad']) {
      const retry = { max_attempts: 3, initial_interval: 'PT0.001S' };
      ids.push((await admin.submitTask('sdk', { input, retry, result_stream: 'orders' })).task.id);
    }
    for (const id of ids) {
      await waitFor(
        async () => ['SUCCEEDED', 'FAILED'].includes((await admin.getTask(id)).task.status),
        { what: `task ${id} done` },
      );
    }
  } finally {
    await worker.stop();
  }
}

/** Create, list, pause, resume; one firing (its next slot moved to the past); delete. */
async function schedules(t: TestServer, admin: WeaveClient): Promise<void> {
  await admin.createSchedule({
    name: 'hourly',
    queue: 'work',
    cron: '0 * * * *',
    timezone: 'UTC',
    catch_up: 'latest',
    task: { input: { report: 1 } },
  });
  await admin.listSchedules();
  await admin.getSchedule('hourly');
  await admin.pauseSchedule('hourly');
  await admin.resumeSchedule('hourly');
  const side = openTestDatabase(t.db.url);
  try {
    await withTx(side, async (tx) => {
      await tx.db
        .updateTable('schedules')
        .set({ next_slot_at: tx.now - 60_000_000n })
        .execute();
    });
    await waitFor(
      async () => {
        const row = await side.kysely
          .selectFrom('schedule_firings')
          .select('id')
          .executeTakeFirst();
        return row !== undefined || undefined;
      },
      { what: 'the schedule to fire' },
    );
  } finally {
    await side.close();
  }
  await admin.deleteSchedule('hourly');
}

/** A workflow started, its TASK claimed, then every instance read (runtime.md §6). */
async function instanceReads(t: TestServer, admin: WeaveClient): Promise<void> {
  await admin.createQueue({ name: 'flows', application: 'shop', capacity: 100 });
  await admin.workflows.publish({
    schema_version: 1,
    name: 'scoped',
    steps: [
      {
        id: 'both',
        kind: 'PARALLEL',
        branches: {
          a: [{ id: 'pay', kind: 'TASK', queue: 'flows', input: {} }],
          b: [
            {
              id: 'track',
              kind: 'POLL',
              queue: 'flows',
              input: {},
              interval: 'PT5M',
              max_rounds: 2,
              timeout: 'PT1H',
              classify: { path: '$.s', pending: ['W'], succeeded: ['D'] },
            },
          ],
          c: [{ id: 'nap', kind: 'TIMER', duration: 'PT1H' }],
        },
      },
    ],
  });
  const { instance } = await admin.instances.start('scoped', { input: {} });
  await admin.claimTasks('flows', { worker_id: 'w-flows', max_tasks: 5 });
  await admin.instances.get(instance.id);
  await admin.instances.steps(instance.id);
  for (const step of ['pay', 'track', 'nap', 'both']) {
    await admin.instances.step(instance.id, step);
  }
  await admin.instances.history(instance.id, { after: '1', limit: 3 });
  // The list (issue 12 Deliver 4): every filter, a later page, a queue-limited key.
  await admin.instances.start('scoped', { input: {}, business_key: 'b-1' });
  const first = await admin.instances.list({ page_size: 1 });
  await admin.instances.list({ page_size: 1, page_token: first.next_page_token ?? '' });
  await admin.instances.list({
    workflow: 'scoped',
    version: 1,
    status: 'RUNNING,WAITING',
    business_key: 'b-1',
    created_after: '2000-01-01T00:00:00Z',
    created_before: '2999-01-01T00:00:00Z',
  });
  const { key } = await admin.createCredential({
    name: 'flows-reader',
    scopes: ['workflows:read', 'tasks:read'],
    queues: ['flows'],
  });
  const limited = t.clientFor('ns', key ?? '');
  await limited.instances.list({ workflow: 'scoped' });
  // Task sources of workflow tasks (issue 12 Deliver 6): a TASK's and a POLL round's.
  for (const step of (await admin.instances.steps(instance.id)).steps) {
    if (step.task_id !== undefined) {
      await admin.getTaskSource(step.task_id);
      await limited.getTaskSource(step.task_id);
    }
  }
  // A bulk operation (issue 12 Deliver 5): created, walked by the runner, read and listed.
  const { operation } = await admin.operations.create({
    action: 'pause',
    filter: { workflow: 'scoped', status: ['RUNNING', 'WAITING'] },
    reason: 'scope check',
  });
  await waitFor(
    async () =>
      (await admin.operations.get(operation.id)).operation.status !== 'RUNNING' || undefined,
    { timeoutMs: 20_000, what: 'the bulk operation finished' },
  );
  await admin.operations.list();
}

async function credentials(admin: WeaveClient): Promise<void> {
  const created = await admin.createCredential({ name: 'reader', scopes: ['tasks:read'] });
  await admin.listCredentials();
  await admin.revokeCredential(created.credential.id);
}
