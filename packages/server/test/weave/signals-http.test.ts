/**
 * Workflow signals (issue 12 Deliver 1, docs/design/signals.md) on SQLite and MariaDB, real HTTP
 * and the SDK: delivery by exact name, correlation bytes and payload version, once per instance
 * and Idempotency-Key; buffering within a window and never after it; late signals recorded and
 * never applied; a POLL completed by its final signal; refused requests change no row.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { WeaveClient } from '@weave/sdk';
import { readNow } from '../../src/store/with-tx.js';
import { forEachDialect } from '../support/databases.js';
import { refusal } from '../support/refusal.js';
import { startTestServer } from '../support/servers.js';
import type { TestServer } from '../support/servers.js';
import { waitFor } from '../support/wait-for.js';
import { startWorker } from '../support/workers.js';
import type { Worker } from '@weave/sdk';
import { checkNamespaceScope } from '../support/namespace-scope.js';
import { StatementLog } from '../support/statements.js';

const KEYED = { type: 'object', required: ['key'], properties: { key: { type: 'string' } } };

function signalWorkflow(name: string, extra: Record<string, unknown> = {}) {
  return {
    schema_version: 1,
    name,
    input: KEYED,
    steps: [
      {
        id: 'approve',
        kind: 'SIGNAL',
        name: 'approval',
        correlation: '$.input.key',
        timeout: 'PT60S',
        ...extra,
      },
    ],
  };
}

const POLL = {
  schema_version: 1,
  name: 'parcel',
  input: KEYED,
  steps: [
    {
      id: 'track',
      kind: 'POLL',
      queue: 'q1',
      input: { op: 'poll', key: '$.input.key' },
      classify: { path: '$.status', pending: ['WAIT'], succeeded: ['DONE'], failed: ['LOST'] },
      interval: 'PT0.2S',
      max_rounds: 100,
      timeout: 'PT60S',
      final_signal: { name: 'delivered', correlation: '$.input.key' },
    },
  ],
};

const WORKFLOWS = [
  signalWorkflow('approve'),
  signalWorkflow('approve-v2', { payload_version: 2 }),
  signalWorkflow('approve-short', { timeout: 'PT0.3S' }),
  POLL,
];

/** Tables a refused request must leave as they were. */
const COUNTED = [
  'weave_signals',
  'weave_inbox',
  'weave_history',
  'weave_instances',
  'receipts',
] as const;

forEachDialect((dialect) => {
  describe(`signals on ${dialect}`, () => {
    let t: TestServer;
    let client: WeaveClient;
    let worker: Worker;

    before(async () => {
      t = await startTestServer(dialect, { sweepIntervalMs: false, scheduleIntervalMs: false });
      client = t.admin;
      for (const w of WORKFLOWS) {
        await client.workflows.publish(w);
      }
      worker = startWorker({
        client,
        concurrency: 4,
        waitMs: 500,
        heartbeatMs: 200,
        handlers: { q1: () => Promise.resolve({ status: 'WAIT' }) },
      });
    });
    after(async () => {
      await worker.stop();
      await t.close();
    });

    const db = () => t.server.database.kysely;
    const start = async (workflow: string, key: string) =>
      (await client.instances.start(workflow, { input: { key } })).instance;
    const settled = (id: string) =>
      waitFor(
        async () => {
          const { instance } = await client.instances.get(id);
          return instance.status === 'RUNNING' || instance.status === 'WAITING'
            ? undefined
            : instance;
        },
        { timeoutMs: 20_000, what: `instance ${id} to end` },
      );
    const history = async (id: string) =>
      (await client.instances.history(id, { limit: 1000 })).events.map((e) => e.type);
    const counts = async () => {
      const out: Record<string, number> = {};
      for (const table of COUNTED) {
        const row = await db()
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow();
        out[table] = Number(row.n);
      }
      return out;
    };
    const signalRows = (key: string) =>
      db()
        .selectFrom('weave_signals')
        .select(['id', 'state', 'matched_count', 'expires_at', 'consumed_wait_id'])
        .where('correlation_key', '=', new TextEncoder().encode(key))
        .orderBy('id')
        .execute();

    test('[A2.4] [A5.1] one signal sent twice with one Idempotency-Key is delivered once', async () => {
      const instance = await start('approve', `once-${dialect}`);
      assert.equal(instance.status, 'WAITING');
      const body = {
        name: 'approval',
        correlation_key: `once-${dialect}`,
        payload: { approved: true, amount: 1250 },
      };
      const first = await client.signals.send(body, 'send-once');
      assert.deepEqual(first.matched, [{ instance_id: instance.id, step_id: 'approve' }]);
      const again = await client.signals.send(body, 'send-once');
      assert.deepEqual(again, first, 'the replay answers the first answer');
      const done = await settled(instance.id);
      assert.equal(done.status, 'SUCCEEDED');
      assert.deepEqual(done.output, { approved: true, amount: 1250 });
      const text = await db()
        .selectFrom('weave_steps')
        .select('output')
        .where('instance_id', '=', instance.id)
        .where('step_id', '=', 'approve')
        .executeTakeFirstOrThrow();
      assert.equal(text.output, '{"approved":true,"amount":1250}', 'the payload text, exactly');
      assert.equal((await signalRows(`once-${dialect}`)).length, 1, 'one signal row');
      const events = await history(instance.id);
      assert.equal(events.filter((e) => e === 'signal.received').length, 1);
      assert.equal(events.filter((e) => e === 'signal.applied').length, 1);
    });

    test('[A4.4] [A4.6] [A2.4] a correlation differing by a trailing space or by case, or another payload version, matches nothing', async () => {
      const key = `Order-${dialect}`;
      const instance = await start('approve', key);
      const v2 = await start('approve-v2', key);
      for (const [correlation_key, payload_version] of [
        [`${key} `, 1],
        [key.toLowerCase(), 1],
        [key, 3],
      ] as const) {
        const sent = await client.signals.send({
          name: 'approval',
          correlation_key,
          payload: { n: 1 },
          payload_version,
        });
        assert.deepEqual(
          sent.matched,
          [],
          `${JSON.stringify(correlation_key)} v${payload_version}`,
        );
        assert.deepEqual(sent.late, []);
      }
      const wrongName = await client.signals.send({
        name: 'approval2',
        correlation_key: key,
        payload: 1,
      });
      assert.deepEqual(wrongName.matched, []);
      assert.equal((await client.instances.get(instance.id)).instance.status, 'WAITING');
      const exact = await client.signals.send({
        name: 'approval',
        correlation_key: key,
        payload: { v: 2 },
        payload_version: 2,
      });
      assert.deepEqual(exact.matched, [{ instance_id: v2.id, step_id: 'approve' }]);
      assert.equal((await settled(v2.id)).status, 'SUCCEEDED');
      assert.equal((await client.instances.get(instance.id)).instance.status, 'WAITING');
      const states = (await signalRows(key)).map((r) => r.state);
      // The space and case variants are other keys: here the wrong version, the wrong name, the match.
      assert.deepEqual(states, ['UNMATCHED', 'UNMATCHED', 'DELIVERED']);
    });

    test('[A4.6] a SIGNAL wait whose signal name or payload version is NULL (unverified old metadata) is never a valid signal wait', async () => {
      const key = `legacy-${dialect}`;
      const noName = await start('approve', key);
      const noVersion = await start('approve', key);
      for (const [instance, column] of [
        [noName, 'signal_name'],
        [noVersion, 'payload_version'],
      ] as const) {
        await db()
          .updateTable('weave_waits')
          .set({ [column]: null })
          .where('instance_id', '=', instance.id)
          .where('purpose', '=', 'SIGNAL')
          .execute();
      }
      const sent = await client.signals.send({
        name: 'approval',
        correlation_key: key,
        payload: { ok: true },
      });
      assert.deepEqual(sent.matched, []);
      for (const instance of [noName, noVersion]) {
        const direct = await refusal(
          client.instances.signal(instance.id, { name: 'approval', payload: { ok: true } }),
        );
        assert.deepEqual([direct.status, direct.code], [409, 'invalid_state'], 'nor a direct one');
        const { instance: now } = await client.instances.get(instance.id);
        assert.equal(now.status, 'WAITING');
        const wait = await db()
          .selectFrom('weave_waits')
          .select('state')
          .where('instance_id', '=', instance.id)
          .where('purpose', '=', 'SIGNAL')
          .executeTakeFirstOrThrow();
        assert.equal(wait.state, 'WAITING');
      }
    });

    test('[A2.4] closed waits never crowd open ones out: 1,000 CANCELLED waits of a key, and a newer WAITING one still takes the signal', async () => {
      const key = `crowded-${dialect}`;
      const first = await start('approve', key);
      const wait = await db()
        .selectFrom('weave_waits')
        .selectAll()
        .where('instance_id', '=', first.id)
        .executeTakeFirstOrThrow();
      // Closed waits of the same name and key (as many instances' timed-out waits leave), with
      // ids above every id in use; the next wait made gets a higher id still on SQLite.
      const base = BigInt(wait.id) + 1_000_000_000_000n;
      const closed = Array.from({ length: 1_000 }, (_, i) => ({
        ...wait,
        id: String(base + BigInt(i)),
        state: 'CANCELLED',
        closed_at: wait.created_at,
      }));
      for (let at = 0; at < closed.length; at += 250) {
        await db()
          .insertInto('weave_waits')
          .values(closed.slice(at, at + 250))
          .execute();
      }
      const second = await start('approve', key);
      const sent = await client.signals.send({
        name: 'approval',
        correlation_key: key,
        payload: 1,
      });
      assert.deepEqual(sent.matched.map((m) => m.instance_id).sort(), [first.id, second.id].sort());
      assert.equal((await settled(second.id)).status, 'SUCCEEDED');
    });

    test('[A4.4] refused signals change no row: correlation over 512 bytes or empty, payload over 256 KiB, ttl over the cap, bad direct targets', async () => {
      const instance = await start('approve', `refuse-${dialect}`);
      const before = await counts();
      const cases: [() => Promise<unknown>, number, string, string | undefined][] = [
        [
          () =>
            client.signals.send({ name: 'approval', correlation_key: 'é'.repeat(257), payload: 1 }),
          400,
          'invalid_argument',
          '$.correlation_key',
        ],
        [
          () => client.signals.send({ name: 'approval', correlation_key: '', payload: 1 }),
          400,
          'invalid_argument',
          '$.correlation_key',
        ],
        [
          () =>
            client.signals.send({
              name: 'approval',
              correlation_key: 'k',
              payload: 'x'.repeat(256 * 1024),
            }),
          413,
          'payload_too_large',
          '$.payload',
        ],
        [
          () =>
            client.signals.send({ name: 'approval', correlation_key: 'k', payload: 1, ttl: 'P2D' }),
          400,
          'invalid_argument',
          '$.ttl',
        ],
        [
          () => client.signals.send({ name: 'Bad Name', correlation_key: 'k', payload: 1 }),
          400,
          'invalid_argument',
          '$.name',
        ],
        [
          () => client.instances.signal('999999', { name: 'approval', payload: 1 }),
          404,
          'not_found',
          undefined,
        ],
        [
          () => client.instances.signal(instance.id, { name: 'nope', payload: 1 }),
          409,
          'invalid_state',
          undefined,
        ],
        [
          () =>
            client.instances.signal(instance.id, {
              name: 'approval',
              payload: 1,
              payload_version: 2,
            }),
          409,
          'invalid_state',
          undefined,
        ],
      ];
      for (const [p, status, code, path] of cases) {
        const r = await refusal(p());
        assert.equal(r.status, status, r.message);
        assert.equal(r.code, code);
        if (path !== undefined) {
          assert.equal(r.details.path, path);
        }
      }
      // 512 bytes exactly is allowed (and matches nothing here).
      const max = await client.signals.send({
        name: 'approval',
        correlation_key: 'é'.repeat(256),
        payload: 1,
      });
      assert.deepEqual(max.matched, []);
      const afterCounts = await counts();
      assert.deepEqual(
        { ...afterCounts, weave_signals: (afterCounts.weave_signals ?? 0) - 1 },
        before,
        'only the accepted signal left a row',
      );
    });

    test('[A2.4] [A5.1] a buffered signal is taken by a wait created within its window, and not after it', async () => {
      const key = `early-${dialect}`;
      const sent = await client.signals.send({
        name: 'approval',
        correlation_key: key,
        payload: { early: true },
        ttl: 'PT30S',
      });
      assert.deepEqual(sent.matched, []);
      assert.ok(sent.buffered_until !== undefined);
      const instance = await start('approve', key);
      const done = await settled(instance.id);
      assert.equal(done.status, 'SUCCEEDED');
      assert.deepEqual(done.output, { early: true });
      const [row] = await signalRows(key);
      assert.equal(row?.state, 'CONSUMED');
      const activated = (await client.instances.history(instance.id)).events.find(
        (e) => e.type === 'step.activated' && e.step_id === 'approve',
      );
      assert.deepEqual(activated?.details, { buffered_signal_id: row?.id.toString() });
      // The signal is gone: a second instance of the same key waits.
      const second = await start('approve', key);
      assert.equal(second.status, 'WAITING');

      // A window that has passed (DB time) is never used.
      const late = `window-${dialect}`;
      const short = await client.signals.send({
        name: 'approval',
        correlation_key: late,
        payload: 1,
        ttl: 'PT0.2S',
      });
      const until = BigInt(Date.parse(short.buffered_until ?? '')) * 1000n;
      await waitFor(
        async () => (await readNow(db(), t.server.database.dialect)) > until + 1000n || undefined,
        { what: 'the DB clock to pass the window' },
      );
      const expired = await start('approve', late);
      assert.equal(expired.status, 'WAITING');
      const inbox = await db()
        .selectFrom('weave_inbox')
        .select('id')
        .where('instance_id', '=', expired.id)
        .execute();
      assert.equal(inbox.length, 0, 'nothing delivered after the window');
      assert.equal((await signalRows(late))[0]?.state, 'BUFFERED');
    });

    test('[A2.4] [A5.1] one signal matching waits in three instances delivers to all three, once each', async () => {
      const key = `three-${dialect}`;
      const ids = [
        (await start('approve', key)).id,
        (await start('approve', key)).id,
        (await start('approve', key)).id,
      ];
      const sent = await client.signals.send({
        name: 'approval',
        correlation_key: key,
        payload: 3,
      });
      assert.deepEqual(sent.matched.map((m) => m.instance_id).sort(), [...ids].sort());
      for (const id of ids) {
        const done = await settled(id);
        assert.equal(done.status, 'SUCCEEDED');
        assert.equal(done.output, 3);
        const events = await history(id);
        assert.equal(events.filter((e) => e === 'signal.applied').length, 1, id);
      }
      const [row] = await signalRows(key);
      assert.equal(Number(row?.matched_count), 3);
      const again = await client.signals.send({
        name: 'approval',
        correlation_key: key,
        payload: 4,
      });
      assert.deepEqual(again.matched, [], 'the waits are closed');
    });

    test('[A2.4] a direct signal reaches its one instance without a correlation check', async () => {
      const instance = await start('approve', `direct-${dialect}`);
      const sent = await client.instances.signal(instance.id, {
        name: 'approval',
        payload: { direct: true },
      });
      assert.deepEqual(sent.matched, [{ instance_id: instance.id, step_id: 'approve' }]);
      const done = await settled(instance.id);
      assert.deepEqual(done.output, { direct: true });
    });

    test('[A2.6] [A5.1] a POLL completed by its final signal: FINAL_SIGNAL, the payload, its round and query cancelled', async () => {
      const key = `parcel-${dialect}`;
      const instance = await start('parcel', key);
      await waitFor(
        async () =>
          (
            await db()
              .selectFrom('weave_poll_rounds')
              .select('id')
              .where('instance_id', '=', instance.id)
              .execute()
          ).length >= 2 || undefined,
        { timeoutMs: 20_000, what: 'a second round' },
      );
      const sent = await client.signals.send({
        name: 'delivered',
        correlation_key: key,
        payload: { at: 'door' },
      });
      assert.deepEqual(sent.matched, [{ instance_id: instance.id, step_id: 'track' }]);
      const done = await settled(instance.id);
      assert.equal(done.status, 'SUCCEEDED');
      assert.deepEqual(done.output, { at: 'door' });
      const step = await db()
        .selectFrom('weave_steps')
        .select(['completed_by', 'status'])
        .where('instance_id', '=', instance.id)
        .where('step_id', '=', 'track')
        .executeTakeFirstOrThrow();
      assert.deepEqual({ ...step }, { completed_by: 'FINAL_SIGNAL', status: 'SUCCEEDED' });
      const rounds = await db()
        .selectFrom('weave_poll_rounds')
        .select(['state'])
        .where('instance_id', '=', instance.id)
        .execute();
      assert.equal(
        rounds.filter((r) => r.state === 'SCHEDULED' || r.state === 'RUNNING').length,
        0,
        'no round left open',
      );
      const waits = await db()
        .selectFrom('weave_waits')
        .select(['purpose', 'state'])
        .where('instance_id', '=', instance.id)
        .execute();
      assert.deepEqual(
        waits.map((w) => [w.purpose, w.state]),
        [['POLL_SIGNAL', 'MATCHED']],
      );
    });
  });

  describe(`late signals on ${dialect}`, () => {
    let t: TestServer;
    before(async () => {
      // No consumer: a wait past its deadline stays WAITING (the clock has not closed it yet).
      t = await startTestServer(dialect, {
        sweepIntervalMs: false,
        scheduleIntervalMs: false,
        inboxIntervalMs: false,
      });
      await t.admin.workflows.publish(signalWorkflow('approve-short', { timeout: 'PT0.3S' }));
    });
    after(() => t.close());

    test('[E4.5] [A2.4] a signal after the wait deadline is recorded as late and never applied', async () => {
      const client = t.admin;
      const db = () => t.server.database.kysely;
      const key = `late-${dialect}`;
      const { instance } = await client.instances.start('approve-short', { input: { key } });
      const wait = await db()
        .selectFrom('weave_waits')
        .select(['due_at'])
        .where('instance_id', '=', instance.id)
        .executeTakeFirstOrThrow();
      await waitFor(
        async () =>
          (await readNow(db(), t.server.database.dialect)) > BigInt(wait.due_at) || undefined,
        { what: 'the DB clock to pass the wait deadline' },
      );
      const sent = await client.signals.send({
        name: 'approval',
        correlation_key: key,
        payload: 1,
      });
      assert.deepEqual(sent.matched, []);
      assert.deepEqual(sent.late, [{ instance_id: instance.id, step_id: 'approve' }]);
      const direct = await client.instances.signal(instance.id, { name: 'approval', payload: 2 });
      assert.deepEqual(direct.late, [{ instance_id: instance.id, step_id: 'approve' }]);
      const events = (await client.instances.history(instance.id)).events.filter(
        (e) => e.type === 'signal.late',
      );
      assert.equal(events.length, 2);
      assert.equal(
        (events[0]?.details as { reason?: string } | undefined)?.reason,
        'wait_deadline_passed',
      );
      const inbox = await db()
        .selectFrom('weave_inbox')
        .select('id')
        .where('instance_id', '=', instance.id)
        .execute();
      assert.equal(inbox.length, 0, 'nothing for the consumer to apply');
      const waitNow = await db()
        .selectFrom('weave_waits')
        .select('state')
        .where('instance_id', '=', instance.id)
        .executeTakeFirstOrThrow();
      assert.equal(waitNow.state, 'WAITING', 'the clock, not the signal, closes it');
    });
  });

  describe(`signal statements on ${dialect}`, () => {
    const log = new StatementLog();
    let t: TestServer;
    before(async () => {
      t = await startTestServer(dialect, {
        onStatement: log.hook,
        // The bulk-operation runner's claim scan crosses namespaces by design (not this flow).
        operationIntervalMs: false,
        sweepIntervalMs: false,
        scheduleIntervalMs: false,
        // The webhook loop's scans are not part of this flow (and cross namespaces by design).
        webhookIntervalMs: false,
      });
      for (const w of WORKFLOWS) {
        await t.admin.workflows.publish(w);
      }
    });
    after(() => t.close());

    test('[E1.4] [A2.4] every statement of sending, buffering, taking and applying a signal names the namespace of each table', async () => {
      const client = t.admin;
      const mark = log.mark();
      await client.signals.send({
        name: 'approval',
        correlation_key: 'b',
        payload: 1,
        ttl: 'PT30S',
      });
      const buffered = (await client.instances.start('approve', { input: { key: 'b' } })).instance;
      const direct = (await client.instances.start('approve', { input: { key: 'd' } })).instance;
      await client.instances.signal(direct.id, { name: 'approval', payload: 2 });
      const parcel = (await client.instances.start('parcel', { input: { key: 'p' } })).instance;
      const { tasks } = await client.claimTasks('q1', { worker_id: 'w', max_tasks: 1 });
      const [task] = tasks;
      assert.ok(task);
      await client.startAttempt(task.task_id, task.attempt_id, task.permit);
      await client.signals.send({ name: 'delivered', correlation_key: 'p', payload: 3 });
      for (const id of [buffered.id, direct.id, parcel.id]) {
        await waitFor(
          async () => (await client.instances.get(id)).instance.status === 'SUCCEEDED' || undefined,
          { timeoutMs: 20_000, what: `instance ${id} SUCCEEDED` },
        );
      }
      await client.completeAttempt(task.task_id, task.attempt_id, task.permit, {
        outcome: 'succeeded',
        result: { status: 'DONE' },
      });
      await waitFor(
        async () =>
          (await client.instances.history(parcel.id, { limit: 1000 })).events.some(
            (e) => e.type === 'result.late',
          ) || undefined,
        { timeoutMs: 20_000, what: 'the late query result recorded' },
      );
      const namespaced = new Set(
        (await t.server.database.kysely.introspection.getTables())
          .filter((table) => table.columns.some((c) => c.name === 'namespace_id'))
          .map((table) => table.name),
      );
      const statements = log
        .transactions(mark)
        .flatMap((tx) => tx.statements)
        .filter((s) => !/ where credentials\.lookup = \?$/.test(s.sql))
        // The consumer's discovery reads scan across namespaces by design (runtime.md §7).
        .filter(
          (s) => !/^select (w\.)?namespace_id, (w\.)?(instance_id|id as instance_id), /.test(s.sql),
        );
      assert.ok(statements.some((s) => s.sql.includes('weave_signals')));
      const unscoped = statements
        .map((s) => ({ sql: s.sql, tables: checkNamespaceScope(s.sql, namespaced).unscoped }))
        .filter((s) => s.tables.length > 0);
      assert.deepEqual(unscoped, []);
    });
  });
});
