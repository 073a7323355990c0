/**
 * The acceptance tests of the Start transaction (issue 11; seed 002 §1 steps 1–6, A1.3–A1.8,
 * A3.1, A3.2, A4.1), on SQLite and MariaDB: a refusal leaves every table as it was, tasks
 * included, and the same key then succeeds; the queues a version uses and the caller's rights
 * over them; a replay before any usage check but after today's rights; deadlines from DB time;
 * every row the one transaction writes; what a round that ran out of budget leaves; exact
 * numbers from the Start input to the task input. A3.x/A1.2 concurrency: start-concurrency.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import type { WeaveClient } from '@weave/sdk';
import { forEachDialect } from '../support/databases.js';
import { withTx } from '../../src/store/with-tx.js';
import { startTestServer } from '../support/servers.js';
import type { TestServer } from '../support/servers.js';
import { refusal } from '../support/refusal.js';

const task = (id: string, queue: string, extra: Record<string, unknown> = {}) => ({
  id,
  kind: 'TASK',
  queue,
  input: {},
  ...extra,
});

/** A PARALLEL of `n` TASKs on `queue`, one branch each. */
function fanOut(name: string, queue: string | readonly string[], n: number) {
  const queues = typeof queue === 'string' ? [queue] : queue;
  const branches: Record<string, unknown[]> = {};
  for (let i = 0; i < n; i++) {
    branches[`b${i}`] = [task(`t${i}`, queues[i % queues.length] ?? '')];
  }
  return { schema_version: 1, name, steps: [{ id: 'fan', kind: 'PARALLEL', branches }] };
}

const HOUR_US = 3_600_000_000n;
const MINUTE_US = 60_000_000n;

/** Tables outside `weave_*` that a Start writes (or must not). */
const OTHER_TABLES = ['tasks', 'task_events', 'receipts', 'audit_log'];

forEachDialect((dialect) => {
  describe(`the Start transaction on ${dialect}`, () => {
    let t: TestServer;
    let client: WeaveClient;
    let tables: string[];

    const db = () => t.server.database.kysely;

    /** Row counts of every weave table and of the Pulse, receipt and audit tables. */
    const counts = async () => {
      const out: Record<string, number> = {};
      for (const table of tables) {
        const row = await sql<{
          n: number | string | bigint;
        }>`SELECT COUNT(*) AS n FROM ${sql.table(table)}`.execute(db());
        out[table] = Number(row.rows[0]?.n ?? 0);
      }
      return out;
    };

    /** The bound rows a Start updates: they roll back with the rest. */
    const bounds = async () => ({
      quotas: await db()
        .selectFrom('application_quotas')
        .select(['application_id', 'active_bound'])
        .orderBy('application_id')
        .execute(),
      instances: await db()
        .selectFrom('weave_instance_bounds')
        .select(['namespace_id', 'active_bound'])
        .execute(),
    });

    const rowsOf = async (table: string, instanceId: string) => {
      const row = await sql<{ n: number | string | bigint }>`SELECT COUNT(*) AS n FROM ${sql.table(
        table,
      )} WHERE instance_id = ${instanceId}`.execute(db());
      return Number(row.rows[0]?.n ?? 0);
    };

    /** The database clock (µs), as a Start reads it. */
    const dbNow = () => withTx(t.server.database, (tx) => Promise.resolve(tx.now));

    before(async () => {
      // No inbox consumer: these tests read what the Start transaction left, and a consumer
      // would continue a pending advance within its 250 ms scan (consumer.test.ts runs that).
      t = await startTestServer(dialect, {
        sweepIntervalMs: false,
        scheduleIntervalMs: false,
        inboxIntervalMs: false,
      });
      client = t.admin;
      const all = await db().introspection.getTables();
      tables = [
        ...all
          .map((x) => x.name)
          .filter((name) => name.startsWith('weave_'))
          .sort(),
        ...OTHER_TABLES,
      ];
      assert.ok(tables.includes('weave_pending_advances') && tables.includes('weave_history'));
    });
    after(() => t.close());

    test('[A1.7] a full queue refuses the whole graph, first-batch tasks included; the same key succeeds once the capacity is raised', async () => {
      await client.createQueue({ name: 'small', application: 'app', capacity: 2 });
      await client.workflows.publish(fanOut('three-small', 'small', 3));
      const before = { counts: await counts(), bounds: await bounds() };
      const body = { input: {} };
      const full = await refusal(client.instances.start('three-small', body, 'a17-queue'));
      assert.equal(full.status, 429);
      assert.equal(full.code, 'queue_full');
      assert.deepEqual(await counts(), before.counts);
      assert.deepEqual(await bounds(), before.bounds);
      await client.updateQueue('small', { capacity: 3 });
      const ok = await client.requestRaw('POST', '/workflows/three-small/instances', {
        body,
        idempotencyKey: 'a17-queue',
      });
      assert.equal(ok.status, 201);
      assert.equal(ok.headers.get('idempotent-replayed'), null);
      const id = (ok.body as { instance: { id: string } }).instance.id;
      const tasks = await db()
        .selectFrom('tasks')
        .select('id')
        .where('owner_kind', '=', 'workflow_activation')
        .where('queue_id', '=', (await client.getQueue('small')).queue.id)
        .execute();
      assert.equal(tasks.length, 3);
      assert.equal(await rowsOf('weave_activations', id), 5, '$root, the PARALLEL, 3 TASKs');
    });

    test('[A1.7] [E4.3] the application quota, shared by its queues, refuses the whole graph; the same key succeeds once it is raised', async () => {
      await client.createApplication({ name: 'tight', quota: { max_active_tasks: 2 } });
      await client.createQueue({ name: 'tight-q', application: 'tight' });
      await client.createQueue({ name: 'tight-r', application: 'tight' });
      // Two tasks on tight-q and one on tight-r: each queue alone is within the quota of 2.
      await client.workflows.publish(fanOut('three-tight', ['tight-q', 'tight-r'], 3));
      const before = { counts: await counts(), bounds: await bounds() };
      const body = { input: {} };
      const e = await refusal(client.instances.start('three-tight', body, 'a17-quota'));
      assert.equal(e.status, 429);
      assert.equal(e.code, 'quota_exceeded');
      assert.deepEqual(await counts(), before.counts);
      assert.deepEqual(await bounds(), before.bounds);
      await client.updateApplication('tight', { quota: { max_active_tasks: 3 } });
      const ok = await client.requestRaw('POST', '/workflows/three-tight/instances', {
        body,
        idempotencyKey: 'a17-quota',
      });
      assert.equal(ok.status, 201);
      assert.equal((ok.body as { instance: { status: string } }).instance.status, 'RUNNING');
      // Now at the quota: another Start of the same workflow is refused as a whole again.
      const again = await counts();
      assert.equal(
        (await refusal(client.instances.start('three-tight', { input: { n: 2 } }))).code,
        'quota_exceeded',
      );
      assert.deepEqual(await counts(), again);
    });

    test('[A1.7] a paused queue still admits: the Start is 201, its task waits for the queue', async () => {
      await client.createQueue({ name: 'held', application: 'app' });
      await client.pauseQueue('held');
      await client.workflows.publish({
        schema_version: 1,
        name: 'on-held',
        steps: [task('held', 'held')],
      });
      const { instance } = await client.instances.start('on-held', { input: {} });
      assert.equal(instance.status, 'RUNNING');
      const { queue } = await client.getQueue('held');
      assert.equal(queue.counts.PENDING, 1);
      const claimed = await client.claimTasks('held', { worker_id: 'w', max_tasks: 1 });
      assert.equal(claimed.tasks.length, 0, 'workers are gated by the pause');
      await client.resumeQueue('held');
      const resumed = await client.claimTasks('held', { worker_id: 'w', max_tasks: 1 });
      assert.equal(resumed.tasks.length, 1);
    });

    test('[A1.3] [E4.1] a version whose queue was never created is 404 at $.workflow and writes nothing', async () => {
      await client.workflows.publish({
        schema_version: 1,
        name: 'ghost',
        steps: [task('boo', 'never-made')],
      });
      const before = await counts();
      const e = await refusal(client.instances.start('ghost', { input: {} }, 'a13-ghost'));
      assert.equal(e.status, 404);
      assert.equal(e.details.path, '$.workflow');
      assert.deepEqual(await counts(), before);
    });

    test('[A1.3] a credential limited to other queues is 403 permission_denied; limited to the queue it starts', async () => {
      await client.createQueue({ name: 'elsewhere', application: 'app' });
      await client.workflows.publish({
        schema_version: 1,
        name: 'on-q1',
        steps: [task('one', 'q1')],
      });
      const scopes = ['workflows:start', 'tasks:submit'] as const;
      const other = await client.createCredential({
        name: 'other-queues',
        scopes: [...scopes],
        queues: ['elsewhere'],
      });
      const before = await counts();
      const e = await refusal(
        t.clientFor('ns', other.key ?? '').instances.start('on-q1', { input: {} }, 'a13-other'),
      );
      assert.equal(e.status, 403);
      assert.equal(e.code, 'permission_denied');
      const after = await counts();
      // Only the denial's own audit row (written in its own transaction) is new.
      assert.deepEqual({ ...after, audit_log: (after.audit_log ?? 0) - 1 }, before);
      const denial = await db()
        .selectFrom('audit_log')
        .select(['action', 'code'])
        .orderBy('id', 'desc')
        .executeTakeFirstOrThrow();
      assert.deepEqual(denial, { action: 'request.denied', code: 'permission_denied' });
      const mine = await client.createCredential({
        name: 'q1-only',
        scopes: [...scopes],
        queues: ['q1'],
      });
      const ok = await t.clientFor('ns', mine.key ?? '').instances.start('on-q1', { input: {} });
      assert.equal(ok.instance.status, 'RUNNING');
    });

    test('[A1.4] a replay answers before the active-instance limit, but only while the caller still has the rights', async () => {
      const limited = await startTestServer(dialect, {
        sweepIntervalMs: false,
        scheduleIntervalMs: false,
        maxActiveInstances: 1,
      });
      try {
        const c = limited.admin;
        await c.workflows.publish({ schema_version: 1, name: 'one', steps: [task('w', 'q1')] });
        const body = { input: { n: 1 }, business_key: 'b-1' };
        const first = await c.requestRaw('POST', '/workflows/one/instances', {
          body,
          idempotencyKey: 'a14',
        });
        assert.equal(first.status, 201);
        const full = await refusal(c.instances.start('one', { input: { n: 2 } }));
        assert.equal(full.code, 'active_instance_limit');
        const rows = async () =>
          Number(
            (
              await limited.server.database.kysely
                .selectFrom('tasks')
                .select((eb) => eb.fn.countAll().as('n'))
                .executeTakeFirstOrThrow()
            ).n,
          );
        const tasksBefore = await rows();
        const replay = await c.requestRaw('POST', '/workflows/one/instances', {
          body,
          idempotencyKey: 'a14',
        });
        assert.equal(replay.status, 201);
        assert.equal(replay.headers.get('idempotent-replayed'), 'true');
        assert.deepEqual(replay.body, first.body);
        assert.equal(await rows(), tasksBefore, 'a replay creates no first batch');
        // Keys are per namespace and operation: another credential with the same body gets the
        // same receipt — when its current rights cover the instance's queues.
        const scopes = ['workflows:start', 'tasks:submit'] as const;
        const peer = await c.createCredential({
          name: 'peer',
          scopes: [...scopes],
          queues: ['q1'],
        });
        const peerReplay = await limited
          .clientFor('ns', peer.key ?? '')
          .requestRaw('POST', '/workflows/one/instances', { body, idempotencyKey: 'a14' });
        assert.equal(peerReplay.status, 201);
        assert.deepEqual(peerReplay.body, first.body);
        await c.createQueue({ name: 'q2', application: 'app' });
        const revoked = await c.createCredential({
          name: 'revoked',
          scopes: [...scopes],
          queues: ['q2'],
        });
        const refused = await refusal(
          limited.clientFor('ns', revoked.key ?? '').instances.start('one', body, 'a14'),
        );
        assert.equal(refused.status, 403);
        assert.equal(refused.code, 'permission_denied');
        // tasks:submit is a right of a Start with business tasks: the replay needs it too.
        const noSubmit = await c.createCredential({
          name: 'no-submit',
          scopes: ['workflows:start'],
        });
        const refusedToo = await refusal(
          limited.clientFor('ns', noSubmit.key ?? '').instances.start('one', body, 'a14'),
        );
        assert.equal(refusedToo.status, 403);
        assert.equal(refusedToo.code, 'permission_denied');
      } finally {
        await limited.close();
      }
    });

    test('[A1.5] [A1.8] [A4.5] [E4.4] [E4.1] deadlines come from DB time: instance + timeout; tasks, POLLs and waits never past it', async () => {
      await client.workflows.publish({
        schema_version: 1,
        name: 'timed',
        timeout: 'PT1H',
        steps: [
          {
            id: 'all',
            kind: 'PARALLEL',
            branches: {
              long: [
                task('long', 'q1', {
                  timeout: 'PT2H',
                  retry: { max_attempts: 7, initial_interval: 'PT50M', max_interval: 'PT90M' },
                }),
              ],
              short: [task('short', 'q1', { timeout: 'PT1M' })],
              open: [task('open', 'q1')],
              sig: [{ id: 'sig', kind: 'SIGNAL', name: 'go', correlation: 'c-1' }],
              poll: [
                {
                  id: 'track',
                  kind: 'POLL',
                  queue: 'q1',
                  input: { op: 'track' },
                  classify: { path: '$.status', pending: ['WAIT'], succeeded: ['DONE'] },
                  interval: 'PT1M',
                  max_rounds: 10,
                  timeout: 'PT2H',
                  task_timeout: 'PT3H',
                },
              ],
            },
          },
        ],
      });
      const clockBefore = await dbNow();
      const { instance } = await client.instances.start('timed', { input: {} });
      const clockAfter = await dbNow();
      const row = await db()
        .selectFrom('weave_instances')
        .select(['created_at', 'deadline_at'])
        .where('id', '=', instance.id)
        .executeTakeFirstOrThrow();
      const createdAt = BigInt(row.created_at);
      const deadline = BigInt(row.deadline_at);
      assert.equal(deadline - createdAt, HOUR_US);
      assert.ok(createdAt >= clockBefore && createdAt <= clockAfter, 'created_at is DB time');
      assert.equal(BigInt(Date.parse(instance.deadline_at)), deadline / 1000n, 'the view, in ms');
      const tasks = await db()
        .selectFrom('tasks as k')
        .innerJoin('weave_activations as a', 'a.task_id', 'k.id')
        .select(['a.step_id', 'k.deadline_at', 'k.created_at'])
        .where('a.instance_id', '=', instance.id)
        .execute();
      const due = new Map(tasks.map((k) => [k.step_id, BigInt(k.deadline_at)]));
      assert.equal(due.get('long'), deadline, 'PT2H is cut at the instance deadline');
      // A1.8: the retry policy is frozen as written, not shrunk to the hour left: Pulse ends
      // authorisation at the real deadline (a retry due after it is not made).
      const policy = await db()
        .selectFrom('tasks as k')
        .innerJoin('weave_activations as a', 'a.task_id', 'k.id')
        .select(['k.retry_max_attempts', 'k.retry_initial_interval_us', 'k.retry_max_interval_us'])
        .where('a.instance_id', '=', instance.id)
        .where('a.step_id', '=', 'long')
        .executeTakeFirstOrThrow();
      assert.deepEqual(
        [
          Number(policy.retry_max_attempts),
          BigInt(policy.retry_initial_interval_us),
          BigInt(policy.retry_max_interval_us),
        ],
        [7, 50n * MINUTE_US, 90n * MINUTE_US],
      );
      assert.equal(due.get('short'), createdAt + MINUTE_US);
      assert.equal(due.get('open'), deadline, 'no task timeout: the instance deadline');
      // A4.5, E4.4: a POLL's PT2H deadline and its query task's PT3H are cut at the instance's.
      const poll = await db()
        .selectFrom('weave_activations as a')
        .innerJoin('weave_poll_rounds as r', 'r.activation_id', 'a.id')
        .innerJoin('tasks as k', 'k.id', 'r.task_id')
        .select(['a.poll_deadline_at', 'k.deadline_at'])
        .where('a.instance_id', '=', instance.id)
        .where('a.step_id', '=', 'track')
        .executeTakeFirstOrThrow();
      assert.equal(BigInt(poll.poll_deadline_at ?? 0), deadline, 'the POLL deadline is cut');
      assert.equal(BigInt(poll.deadline_at), deadline, 'its query task too');
      const waits = await db()
        .selectFrom('weave_waits')
        .select(['purpose', 'due_at', 'signal_name'])
        .where('instance_id', '=', instance.id)
        .execute();
      for (const w of waits) {
        assert.ok(BigInt(w.due_at) <= deadline, `a ${w.purpose} wait is due by the deadline`);
      }
      const signalWaits = waits.filter((w) => w.purpose === 'SIGNAL');
      const [wait, ...more] = signalWaits;
      assert.equal(more.length, 0);
      assert.deepEqual(
        { ...wait, due_at: BigInt(wait?.due_at ?? 0) },
        {
          purpose: 'SIGNAL',
          due_at: deadline,
          signal_name: 'go',
        },
      );
    });

    test('[A1.6] [E4.1] one transaction writes gate, instance, every step and $root, activations, tasks, waits, the poll round, history, audit and receipt', async () => {
      await client.workflows.publish({
        schema_version: 1,
        name: 'graph',
        steps: [
          {
            id: 'all',
            kind: 'PARALLEL',
            branches: {
              work: [task('work', 'q1')],
              pick: [
                {
                  id: 'pick',
                  kind: 'BRANCH',
                  cases: [
                    { when: { eq: ['$.input.kind', 'x'] }, steps: [task('x1', 'q1')] },
                    { when: { eq: ['$.input.kind', 'y'] }, steps: [task('y1', 'q1')] },
                  ],
                  default: [],
                },
              ],
              both: [
                {
                  id: 'both',
                  kind: 'PARALLEL',
                  branches: {
                    nap: [{ id: 'nap', kind: 'TIMER', duration: 'PT5M' }],
                    sig: [{ id: 'sig', kind: 'SIGNAL', name: 'go', correlation: '$.input.kind' }],
                  },
                },
              ],
              track: [
                {
                  id: 'track',
                  kind: 'POLL',
                  queue: 'q1',
                  input: { label: 'L1' },
                  interval: 'PT5M',
                  max_rounds: 3,
                  timeout: 'PT1H',
                  classify: { path: '$.status', pending: ['WAIT'], succeeded: ['DONE'] },
                },
              ],
            },
          },
        ],
      });
      // $root plus the 9 static steps: all, work, pick, x1, y1, both, nap, sig, track.
      const staticSteps = 10;
      const before = await counts();
      const started = await client.requestRaw('POST', '/workflows/graph/instances', {
        body: { input: { kind: 'y' } },
        idempotencyKey: 'a16',
      });
      assert.equal(started.status, 201);
      const instance = (started.body as { instance: { id: string; status: string } }).instance;
      assert.equal(instance.status, 'RUNNING');
      const after = await counts();
      const delta = Object.fromEntries(
        tables.map((table) => [table, (after[table] ?? 0) - (before[table] ?? 0)]),
      );
      const steps = await db()
        .selectFrom('weave_steps')
        .select(['step_id', 'status', 'revision', 'case_index', 'current_activation_id'])
        .where('instance_id', '=', instance.id)
        .orderBy('position')
        .execute();
      assert.equal(steps.length, staticSteps);
      const status = Object.fromEntries(steps.map((s) => [s.step_id, s.status]));
      assert.deepEqual(status, {
        $root: 'ACTIVE',
        all: 'ACTIVE',
        work: 'ACTIVE',
        pick: 'ACTIVE',
        x1: 'SKIPPED',
        y1: 'ACTIVE',
        both: 'ACTIVE',
        nap: 'WAITING',
        sig: 'WAITING',
        track: 'ACTIVE',
      });
      assert.equal(Number(steps.find((s) => s.step_id === 'pick')?.case_index), 1);
      const activated = steps.filter((s) => s.status !== 'SKIPPED');
      assert.ok(activated.every((s) => s.current_activation_id !== null));
      assert.ok(
        steps.filter((s) => s.status === 'SKIPPED').every((s) => s.current_activation_id === null),
      );
      const activations = await db()
        .selectFrom('weave_activations')
        .select(['step_id', 'kind', 'status', 'task_id', 'current_round_id'])
        .where('instance_id', '=', instance.id)
        .execute();
      assert.deepEqual(
        activations.map((a) => a.step_id).sort(),
        activated.map((s) => s.step_id).sort(),
      );
      const rounds = await db()
        .selectFrom('weave_poll_rounds')
        .select(['id', 'number', 'state', 'task_id'])
        .where('instance_id', '=', instance.id)
        .execute();
      assert.equal(rounds.length, 1);
      assert.equal(rounds[0]?.state, 'RUNNING');
      assert.equal(Number(rounds[0]?.number), 1);
      assert.notEqual(rounds[0]?.task_id, null);
      const track = activations.find((a) => a.step_id === 'track');
      assert.equal(String(track?.current_round_id), String(rounds[0]?.id));
      assert.equal(track?.task_id, null, 'a POLL activation owns its tasks through rounds');
      const waits = await db()
        .selectFrom('weave_waits')
        .select(['purpose'])
        .where('instance_id', '=', instance.id)
        .execute();
      assert.deepEqual(waits.map((w) => w.purpose).sort(), ['POLL_DEADLINE', 'SIGNAL', 'TIMER']);
      const history = await db()
        .selectFrom('weave_history')
        .select(['seq', 'instance_revision', 'type', 'step_id'])
        .where('instance_id', '=', instance.id)
        .orderBy('seq')
        .execute();
      assert.deepEqual(
        history.map((h) => [Number(h.seq), Number(h.instance_revision), h.type]).slice(0, 2),
        [
          [1, 1, 'instance.admitted'],
          [2, 2, history[1]?.type],
        ],
      );
      assert.ok(history.slice(1).every((h) => Number(h.instance_revision) === 2));
      assert.equal(history.filter((h) => h.type === 'step.activated').length, activations.length);
      assert.deepEqual(
        history.filter((h) => h.type === 'step.skipped').map((h) => h.step_id),
        ['x1'],
      );
      const audit = await db()
        .selectFrom('audit_log')
        .select(['action', 'object_type', 'object_id', 'outcome'])
        .where('action', '=', 'workflow.start')
        .where('object_id', '=', instance.id)
        .execute();
      assert.deepEqual(audit, [
        {
          action: 'workflow.start',
          object_type: 'instance',
          object_id: instance.id,
          outcome: 'ok',
        },
      ]);
      assert.deepEqual(delta, {
        ...Object.fromEntries(tables.map((table) => [table, 0])),
        weave_instances: 1,
        weave_gates: 1,
        weave_steps: staticSteps,
        weave_activations: activated.length,
        // work, y1, and the POLL's first round.
        tasks: 3,
        task_events: 3,
        weave_poll_rounds: 1,
        weave_waits: 3,
        weave_history: history.length,
        audit_log: 1,
        receipts: 1,
        // The namespace's first Start creates its bound row.
        weave_instance_bounds: delta.weave_instance_bounds ?? 0,
      });
      const receipt = await db()
        .selectFrom('receipts')
        .select(['operation', 'status_code'])
        .where('idempotency_key', '=', 'a16')
        .executeTakeFirstOrThrow();
      assert.deepEqual(
        { ...receipt, status_code: Number(receipt.status_code) },
        {
          operation: 'workflow.start',
          status_code: 201,
        },
      );
    });

    test("[A3.1] [A3.2] a first round that runs out of its 32 changes leaves one pending advance at $root's revision", async () => {
      await client.workflows.publish(fanOut('forty', 'q1', 40));
      const { instance } = await client.instances.start('forty', { input: {} });
      assert.equal(instance.status, 'RUNNING');
      assert.equal(instance.revision, '2');
      const pending = await db()
        .selectFrom('weave_pending_advances')
        .select(['root_step_row_id', 'root_step_revision', 'checkpoint', 'state'])
        .where('instance_id', '=', instance.id)
        .execute();
      assert.equal(pending.length, 1);
      const root = await db()
        .selectFrom('weave_steps')
        .select(['id', 'revision'])
        .where('instance_id', '=', instance.id)
        .where('step_id', '=', '$root')
        .executeTakeFirstOrThrow();
      const [advance] = pending;
      assert.equal(String(advance?.root_step_row_id), String(root.id));
      assert.equal(Number(advance?.root_step_revision), Number(root.revision));
      assert.equal(advance?.state, 'PENDING');
      const checkpoint = JSON.parse(advance?.checkpoint ?? '{}') as Record<string, unknown>;
      assert.equal(checkpoint.schema_version, 1);
      assert.equal(checkpoint.root_step_id, '$root');
      assert.equal(checkpoint.root_step_revision, String(root.revision));
      const activations = await rowsOf('weave_activations', instance.id);
      const tasks = await db()
        .selectFrom('tasks as k')
        .innerJoin('weave_activations as a', 'a.task_id', 'k.id')
        .select('k.id')
        .where('a.instance_id', '=', instance.id)
        .execute();
      assert.ok(tasks.length > 0 && tasks.length < 40, `${tasks.length} tasks`);
      // $root and the PARALLEL take two of the 32 changes; the rest are TASK activations.
      assert.equal(activations, 32);
      assert.equal(tasks.length, 30);
      assert.equal(await rowsOf('weave_steps', instance.id), 42);
    });

    test('[A4.1] exact numbers in the Start input reach the task input unchanged', async () => {
      await client.createQueue({ name: 'exact', application: 'app' });
      await client.workflows.publish({
        schema_version: 1,
        name: 'exact',
        input: {
          type: 'object',
          required: ['huge', 'long'],
          properties: { huge: { type: 'number' }, long: { type: 'number' } },
        },
        steps: [
          task('pass', 'exact', {
            input: { huge: '$.input.huge', long: '$.input.long', both: '$.input' },
          }),
        ],
      });
      const huge = { kind: 'number', text: '1e400' };
      const long = { kind: 'number', text: '0.12345678901234567890' };
      const started = await client.requestRaw('POST', '/workflows/exact/instances', {
        body: { input: { huge, long } },
      });
      assert.equal(started.status, 201);
      const instance = (started.body as { instance: { id: string; input: unknown } }).instance;
      assert.deepEqual(instance.input, { huge, long });
      const { tasks } = await client.claimTasks('exact', { worker_id: 'w', max_tasks: 1 });
      assert.equal(tasks.length, 1);
      assert.deepEqual(tasks[0]?.input, { huge, long, both: { huge, long } });
      const stored = await db()
        .selectFrom('tasks')
        .select('input')
        .where('id', '=', tasks[0]?.task_id ?? '')
        .executeTakeFirstOrThrow();
      assert.equal(
        stored.input,
        '{"huge":1e400,"long":0.12345678901234567890,"both":{"huge":1e400,"long":0.12345678901234567890}}',
      );
    });
  });
});
