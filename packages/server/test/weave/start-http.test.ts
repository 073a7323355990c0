/**
 * Start over HTTP (issue 11 slice 1; seed 002 §1–§4), on SQLite and MariaDB: one transaction
 * admits the instance and persists its first round; a replay answers the frozen receipt; every
 * refusal leaves the database as it was; the receipt shows revision "2".
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import type { WeaveClient } from '@weave/sdk';
import { forEachDialect } from '../support/databases.js';
import { startTestServer } from '../support/servers.js';
import type { TestServer } from '../support/servers.js';
import { refusal } from '../support/refusal.js';
import { waitFor } from '../support/wait-for.js';

const EMPTY = {
  schema_version: 1,
  name: 'empty',
  steps: [],
  output: { n: { kind: 'number', text: '1e400' } },
};
const NAP = {
  schema_version: 1,
  name: 'nap',
  steps: [{ id: 'nap', kind: 'TIMER', duration: 'PT1H' }],
};
const CHARGE = {
  schema_version: 1,
  name: 'charge',
  input: {
    type: 'object',
    required: ['amount'],
    properties: { amount: { type: 'number' }, note: { type: 'string' } },
  },
  steps: [
    {
      id: 'charge',
      kind: 'TASK',
      queue: 'q1',
      input: { amount: '$.input.amount' },
      timeout: 'PT1M',
    },
  ],
};

const TABLES = [
  'weave_instances',
  'weave_gates',
  'weave_steps',
  'weave_activations',
  'weave_waits',
  'weave_poll_rounds',
  'weave_history',
  'weave_pending_advances',
  'tasks',
  'task_events',
  'receipts',
];

forEachDialect((dialect) => {
  describe(`Start on ${dialect}`, () => {
    let t: TestServer;
    let client: WeaveClient;

    const counts = async () => {
      const out: Record<string, number> = {};
      for (const table of TABLES) {
        const row = await sql<{
          n: number | string | bigint;
        }>`SELECT COUNT(*) AS n FROM ${sql.table(table)}`.execute(t.server.database.kysely);
        out[table] = Number(row.rows[0]?.n ?? 0);
      }
      return out;
    };

    before(async () => {
      t = await startTestServer(dialect, {
        sweepIntervalMs: false,
        scheduleIntervalMs: false,
        maxActiveInstances: 20,
      });
      client = t.admin;
      for (const definition of [EMPTY, NAP, CHARGE]) {
        await client.workflows.publish(definition);
      }
    });
    after(() => t.close());

    test('[A2.8] [A2.9] an empty workflow completes inside admission: SUCCEEDED at revision "2", outcome on the stream', async () => {
      const { instance } = await client.instances.start('empty', { input: {} });
      assert.equal(instance.status, 'SUCCEEDED');
      assert.equal(instance.revision, '2');
      assert.deepEqual(instance.output, { n: { kind: 'number', text: '1e400' } });
      assert.ok(instance.finished_at);
      // A2.8: its gate closed in the admission transaction, and no work row written.
      const gate = await t.server.database.kysely
        .selectFrom('weave_gates')
        .select('state')
        .where('instance_id', '=', instance.id)
        .executeTakeFirstOrThrow();
      assert.equal(gate.state, 'CLOSED');
      const work = await t.server.database.kysely
        .selectFrom('weave_activations')
        .select('id')
        .where('instance_id', '=', instance.id)
        .where('step_id', '!=', '$root')
        .execute();
      assert.equal(work.length, 0);
      const page = await client.results.readStream('app');
      const event = page.events.find((e) => e.instance_id === instance.id);
      assert.equal(event?.type, 'instance.succeeded');
      assert.deepEqual(event?.result, { n: { kind: 'number', text: '1e400' } });
    });

    test('[A2.8] [A2.5] a pure-wait workflow is WAITING with its timer wait due in DB time', async () => {
      const { instance } = await client.instances.start('nap', { input: {} });
      assert.equal(instance.status, 'WAITING');
      assert.equal(instance.revision, '2');
      const db = t.server.database.kysely;
      const waits = await db
        .selectFrom('weave_waits')
        .select(['purpose', 'state', 'due_at', 'created_at', 'signal_name'])
        .where('instance_id', '=', instance.id)
        .execute();
      assert.equal(waits.length, 1);
      assert.equal(waits[0]?.purpose, 'TIMER');
      assert.equal(waits[0]?.signal_name, null);
      assert.equal(
        BigInt(waits[0]?.due_at ?? 0) - BigInt(waits[0]?.created_at ?? 0),
        3_600_000_000n,
      );
      const steps = await db
        .selectFrom('weave_steps')
        .select(['step_id', 'status', 'current_activation_id'])
        .where('instance_id', '=', instance.id)
        .orderBy('position')
        .execute();
      assert.deepEqual(
        steps.map((s) => [s.step_id, s.status]),
        [
          ['$root', 'ACTIVE'],
          ['nap', 'WAITING'],
        ],
      );
      assert.ok(steps.every((s) => s.current_activation_id !== null));
    });

    test('[A2.1] [A2.7] [E1.3] a TASK workflow is RUNNING: its task is owned by the activation, exact input, deadline within the instance', async () => {
      const { instance } = await client.instances.start('charge', {
        input: { amount: { kind: 'number', text: '12345678901234567890.5' } },
      });
      assert.equal(instance.status, 'RUNNING');
      const { tasks } = await client.claimTasks('q1', { worker_id: 'w', max_tasks: 5 });
      const task = tasks.find((c) => c.input !== undefined);
      assert.ok(task);
      assert.deepEqual(task.input, { amount: { kind: 'number', text: '12345678901234567890.5' } });
      const { task: full } = await client.getTask(task.task_id);
      assert.equal(full.owner?.kind, 'workflow_activation');
      const activation = await t.server.database.kysely
        .selectFrom('weave_activations')
        .select(['id', 'task_id', 'status'])
        .where('instance_id', '=', instance.id)
        .where('step_id', '=', 'charge')
        .executeTakeFirstOrThrow();
      assert.equal(String(activation.task_id), task.task_id);
      assert.equal(full.owner?.id, String(activation.id));
      assert.ok(Date.parse(full.deadline_at) <= Date.parse(instance.deadline_at));
    });

    test('[A1.2] [A3.5] [E4.1] a replay answers the frozen receipt; the same key with another input, business key, workflow or version is 409', async () => {
      const body = { input: { amount: 5 }, business_key: 'order 7 ' };
      const first = await client.requestRaw('POST', '/workflows/charge/instances', {
        body,
        idempotencyKey: 'start-7',
      });
      assert.equal(first.status, 201);
      const before = await counts();
      const again = await client.requestRaw('POST', '/workflows/charge/instances', {
        body,
        idempotencyKey: 'start-7',
      });
      assert.equal(again.headers.get('idempotent-replayed'), 'true');
      assert.deepEqual(again.body, first.body);
      assert.deepEqual(await counts(), before);
      const other = await refusal(
        client.instances.start(
          'charge',
          { input: { amount: 6 }, business_key: 'order 7 ' },
          'start-7',
        ),
      );
      assert.equal(other.code, 'idempotency_conflict');
      // Another business key, or another workflow, under the same key: the same conflict.
      const otherKey = await refusal(
        client.instances.start(
          'charge',
          { input: { amount: 5 }, business_key: 'order 7' },
          'start-7',
        ),
      );
      assert.equal(otherKey.code, 'idempotency_conflict');
      const otherWorkflow = await refusal(
        client.instances.start('nap', { input: {}, business_key: 'order 7 ' }, 'start-7'),
      );
      assert.equal(otherWorkflow.code, 'idempotency_conflict');
      // The whole request is frozen: naming the version the first one got is another request.
      const otherVersion = await refusal(
        client.instances.start(
          'charge',
          { version: 1, input: { amount: 5 }, business_key: 'order 7 ' },
          'start-7',
        ),
      );
      assert.equal(otherVersion.code, 'idempotency_conflict');
      assert.deepEqual(await counts(), before, 'no refusal wrote a row');
      const { instance } = await client.instances.get(
        (first.body as { instance: { id: string } }).instance.id,
      );
      assert.equal(instance.business_key, 'order 7 ', 'the business key is kept exactly');
    });

    test('[A4.1] [A4.2] input and business-key refusals name their path and leave no row behind', async () => {
      const before = await counts();
      const cases: [() => Promise<unknown>, string][] = [
        [() => client.instances.start('charge', { input: { amount: 'ten' } }), '$.input.amount'],
        [() => client.instances.start('charge', { input: {} }), '$.input'],
        [
          () =>
            client.instances.start('charge', {
              input: { amount: 1 },
              business_key: 'k'.repeat(192),
            }),
          '$.business_key',
        ],
        [() => client.instances.start('nope', { input: {} }), '$.workflow'],
        [() => client.instances.start('charge', { version: 9, input: { amount: 1 } }), '$.version'],
      ];
      for (const [request, path] of cases) {
        const e = await refusal(request());
        assert.ok(e.details.path?.startsWith(path), `${path}: ${JSON.stringify(e)}`);
      }
      assert.deepEqual(await counts(), before);
      const ok = await client.instances.start('charge', {
        input: { amount: 1 },
        business_key: 'k'.repeat(191),
      });
      assert.equal(ok.instance.business_key, 'k'.repeat(191));
      // A4.1: the input is at most 256 KiB as compact JSON: exactly that is admitted, one byte
      // more is 413 at $.input with nothing written.
      const note = 'x'.repeat(256 * 1024 - '{"amount":1,"note":""}'.length);
      const atLimit = await client.instances.start('charge', { input: { amount: 1, note } });
      assert.equal(atLimit.instance.status, 'RUNNING');
      const full = await counts();
      const over = await refusal(
        client.instances.start('charge', { input: { amount: 1, note: `${note}x` } }),
      );
      assert.deepEqual(
        [over.status, over.code, over.details.path],
        [413, 'payload_too_large', '$.input'],
      );
      assert.equal(over.details.limit, 256 * 1024);
      assert.deepEqual(await counts(), full);
    });

    test('[A3.5] [A2.9] after the instance moved on, Get shows the current view and a Start replay the view frozen at admission', async () => {
      await client.createQueue({ name: 'moves', application: 'app' });
      await client.workflows.publish({
        schema_version: 1,
        name: 'moves',
        steps: [{ id: 'one', kind: 'TASK', queue: 'moves', input: { op: 'one' } }],
      });
      const first = await client.requestRaw('POST', '/workflows/moves/instances', {
        body: { input: {} },
        idempotencyKey: 'moves-1',
      });
      assert.equal(first.status, 201);
      const admitted = (
        first.body as { instance: { id: string; status: string; revision: string } }
      ).instance;
      assert.equal(admitted.status, 'RUNNING');
      assert.equal(admitted.revision, '2');
      const { tasks } = await client.claimTasks('moves', { worker_id: 'w', max_tasks: 1 });
      const [claimed] = tasks;
      assert.ok(claimed);
      await client.completeAttempt(claimed.task_id, claimed.attempt_id, claimed.permit, {
        outcome: 'succeeded',
        result: { done: true },
      });
      const current = await waitFor(async () => {
        const { instance } = await client.instances.get(admitted.id);
        return instance.status === 'SUCCEEDED' ? instance : undefined;
      });
      assert.ok(
        BigInt(current.revision) > 2n,
        `the runner moved it on (revision ${current.revision})`,
      );
      assert.deepEqual(current.output, { done: true });

      const replay = await client.requestRaw('POST', '/workflows/moves/instances', {
        body: { input: {} },
        idempotencyKey: 'moves-1',
      });
      assert.equal(replay.status, 201);
      assert.equal(replay.headers.get('idempotent-replayed'), 'true');
      assert.deepEqual(replay.body, first.body, 'the replay is the view at admission');
      assert.equal((await client.instances.get(admitted.id)).instance.revision, current.revision);
    });

    test('[A4.2] a business key of exactly 191 characters, trailing spaces included, is kept byte for byte; 192 are refused with no row written; it is no idempotency key', async () => {
      // 191 code points: 100 BMP, 88 astral (two UTF-16 units each) and 3 trailing spaces.
      const key = `${'键'.repeat(100)}${'🦄'.repeat(88)}   `;
      assert.equal([...key].length, 191);
      const before = await counts();
      const long = await refusal(
        client.instances.start('charge', { input: { amount: 1 }, business_key: `${key} ` }),
      );
      assert.equal(long.status, 400);
      assert.equal(long.details.path, '$.business_key');
      assert.deepEqual(await counts(), before, 'the refused Start wrote nothing');

      const a = await client.instances.start('charge', { input: { amount: 1 }, business_key: key });
      const b = await client.instances.start('charge', { input: { amount: 1 }, business_key: key });
      assert.notEqual(a.instance.id, b.instance.id, 'the same business key is another instance');
      for (const started of [a, b]) {
        assert.equal(started.instance.business_key, key);
        assert.equal((await client.instances.get(started.instance.id)).instance.business_key, key);
        const row = await t.server.database.kysely
          .selectFrom('weave_instances')
          .select('business_key')
          .where('id', '=', started.instance.id)
          .executeTakeFirstOrThrow();
        assert.equal(Buffer.compare(Buffer.from(row.business_key ?? ''), Buffer.from(key)), 0);
      }
    });

    test('[A1.1] [A3.6] [E4.1] rights: publishing is not starting; a TASK workflow needs tasks:submit; reading needs workflows:read', async () => {
      const publisher = t.clientFor('ns', await t.keyWith('ns', ['workflows:publish']));
      assert.equal((await refusal(publisher.instances.start('nap', { input: {} }))).status, 403);
      const starter = t.clientFor('ns', await t.keyWith('ns', ['workflows:start']));
      assert.equal(
        (await refusal(starter.instances.start('charge', { input: { amount: 1 } }))).status,
        403,
      );
      const { instance } = await starter.instances.start('nap', { input: {} });
      assert.equal((await refusal(starter.instances.get(instance.id))).status, 403);
      const reader = t.clientFor('ns', await t.keyWith('ns', ['workflows:read']));
      assert.equal((await reader.instances.get(instance.id)).instance.status, 'WAITING');
    });

    test('[A4.3] at the active-instance limit a Start is 429 active_instance_limit while a replay still answers', async () => {
      const limited = await startTestServer(dialect, {
        sweepIntervalMs: false,
        scheduleIntervalMs: false,
        maxActiveInstances: 2,
      });
      try {
        const c = limited.admin;
        await c.workflows.publish(NAP);
        await c.workflows.publish(EMPTY);
        // An instance that ends inside admission does not stay active.
        await c.instances.start('empty', { input: {} });
        const first = await c.requestRaw('POST', '/workflows/nap/instances', {
          body: { input: {} },
          idempotencyKey: 'fill-1',
        });
        await c.instances.start('nap', { input: {} });
        const full = await refusal(c.instances.start('nap', { input: {} }));
        assert.equal(full.status, 429);
        assert.equal(full.code, 'active_instance_limit');
        const replay = await c.requestRaw('POST', '/workflows/nap/instances', {
          body: { input: {} },
          idempotencyKey: 'fill-1',
        });
        assert.equal(replay.headers.get('idempotent-replayed'), 'true');
        assert.deepEqual(replay.body, first.body);
      } finally {
        await limited.close();
      }
    });

    test('[A4.3] by default 10,000 RUNNING, WAITING, CANCELLING or NEEDS_REVIEW instances fill a namespace; terminal ones do not count, and one that ends frees its place', async () => {
      const full = await startTestServer(dialect, {
        sweepIntervalMs: false,
        scheduleIntervalMs: false,
      });
      try {
        const c = full.admin;
        const k = full.server.database.kysely;
        await c.workflows.publish(NAP);
        const { instance } = await c.instances.start('nap', { input: {} });
        const row = await k
          .selectFrom('weave_instances')
          .selectAll()
          .where('id', '=', instance.id)
          .executeTakeFirstOrThrow();
        // 9,999 more active instances beside the real one, and terminal ones that must not
        // count: rows copied from it (only their status matters to the limit), far from any id
        // the server hands out.
        const active = ['RUNNING', 'WAITING', 'CANCELLING', 'NEEDS_REVIEW'];
        const terminal = ['SUCCEEDED', 'FAILED', 'CANCELLED', 'TIMED_OUT'];
        const first = 900_000_000_000_000n;
        const planted = [
          ...Array.from({ length: 9_999 }, (_, i) => active[i % 4] ?? 'RUNNING'),
          ...Array.from({ length: 40 }, (_, i) => terminal[i % 4] ?? 'SUCCEEDED'),
        ].map((status, i) => ({ ...row, id: String(first + BigInt(i)), status }));
        for (let at = 0; at < planted.length; at += 400) {
          await k
            .insertInto('weave_instances')
            .values(planted.slice(at, at + 400))
            .execute();
        }
        // Start keeps an upper bound of the namespace's active instances and counts only when it
        // reaches the limit; the rows planted above went round it.
        await k
          .updateTable('weave_instance_bounds')
          .set({ active_bound: 10_000 })
          .where('namespace_id', '=', row.namespace_id)
          .execute();
        const refused = await refusal(c.instances.start('nap', { input: {} }));
        assert.equal(refused.status, 429);
        assert.equal(refused.code, 'active_instance_limit');
        assert.equal(refused.details.limit, 10_000);
        // A CANCELLING instance ends: its place is free for one Start, and then no more.
        const cancelling = planted.find((p) => p.status === 'CANCELLING');
        await k
          .updateTable('weave_instances')
          .set({ status: 'CANCELLED' })
          .where('id', '=', cancelling?.id ?? '0')
          .execute();
        const admitted = await c.instances.start('nap', { input: {} });
        assert.equal(admitted.instance.status, 'WAITING');
        const again = await refusal(c.instances.start('nap', { input: {} }));
        assert.equal(again.code, 'active_instance_limit');
      } finally {
        await full.close();
      }
    });
  });
});
