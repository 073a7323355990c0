/**
 * The inbox consumer (seed 000 §2, §4 items 2–3; runtime.md §3.2, §3.3, §4.1, §5.5), on SQLite and
 * MariaDB with real HTTP completions. The server here runs no consumer loop
 * (`inboxIntervalMs: false`): each test runs the consumer transaction itself, so what one
 * transaction commits — or, when it fails or its node dies before COMMIT, leaves behind — is
 * observed exactly: checks of every row (E4.2, E1.7), all or nothing (E4.2, E4.3), a recomputed
 * round that creates no task twice (E4.3), the scan index and bounded pages over the persisted
 * rows (E2.7). The runners themselves: runners.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import type { ClaimedTask, WeaveClient } from '@weave/sdk';
import { DEFAULT_RETRY_POLICY } from '../../src/pulse/retry-policy.js';
import { submitOwnedTasks } from '../../src/pulse/submit-owned.js';
import { withTx } from '../../src/store/with-tx.js';
import { OWNER_ACTIVATION } from '../../src/weave/delivery/deliver-result.js';
import { consumeInstance } from '../../src/weave/runtime/consume-instance.js';
import { consumeTogether } from '../../src/weave/runtime/consume-together.js';
import { ProgramCache } from '../../src/weave/runtime/program-cache.js';
import type { Consumed } from '../../src/weave/runtime/consume-instance.js';
import { forEachDialect } from '../support/databases.js';
import { refusal } from '../support/refusal.js';
import { startServer, startTestServer } from '../support/servers.js';
import type { TestServer } from '../support/servers.js';
import { StatementLog, touches, verbOf } from '../support/statements.js';
import { waitFor } from '../support/wait-for.js';

const task = (id: string, queue: string) => ({ id, kind: 'TASK', queue, input: { op: id } });

/** first → PARALLEL of `n` TASKs: the round after `first` needs more than its 32 changes. */
function firstThenFan(name: string, n: number) {
  const branches: Record<string, unknown[]> = {};
  for (let i = 0; i < n; i++) {
    branches[`b${i}`] = [task(`t${i}`, name)];
  }
  return {
    schema_version: 1,
    name,
    steps: [task('first', name), { id: 'fan', kind: 'PARALLEL', branches }],
  };
}

const POLL = (name: string) => ({
  schema_version: 1,
  name,
  steps: [
    {
      id: 'track',
      kind: 'POLL',
      queue: name,
      input: { op: 'track' },
      interval: 'PT5M',
      max_rounds: 3,
      timeout: 'PT1H',
      classify: { path: '$.s', pending: ['W'], succeeded: ['D'] },
    },
  ],
});

forEachDialect((dialect) => {
  describe(`the consumer transaction on ${dialect}`, () => {
    let t: TestServer;
    let client: WeaveClient;
    let namespaceId: string;
    const db = () => t.server.database.kysely;

    before(async () => {
      t = await startTestServer(dialect, {
        inboxIntervalMs: false,
        sweepIntervalMs: false,
        scheduleIntervalMs: false,
      });
      client = t.admin;
      namespaceId = String(
        (
          await db()
            .selectFrom('namespaces')
            .select('id')
            .where('name', '=', 'ns')
            .executeTakeFirstOrThrow()
        ).id,
      );
    });
    after(() => t.close());

    const consume = (instanceId: string): Promise<Consumed> =>
      withTx(t.server.database, (tx) => consumeInstance(tx, { namespaceId, instanceId }));

    async function publish(
      definition: { readonly name: string; readonly [key: string]: unknown },
      application = 'app',
    ): Promise<void> {
      await client.createQueue({ name: definition.name, application });
      await client.workflows.publish(definition);
    }

    async function claim(queue: string, n = 1): Promise<readonly ClaimedTask[]> {
      const { tasks } = await client.claimTasks(queue, { worker_id: 'w', max_tasks: n });
      assert.equal(tasks.length, n, `${n} task(s) on ${queue}`);
      return tasks;
    }

    const claimOne = async (queue: string) => (await claim(queue))[0] as ClaimedTask;

    const succeed = (c: ClaimedTask, result: unknown) =>
      client.completeAttempt(c.task_id, c.attempt_id, c.permit, { outcome: 'succeeded', result });

    const steps = async (instanceId: string) =>
      Object.fromEntries(
        (
          await db()
            .selectFrom('weave_steps')
            .selectAll()
            .where('instance_id', '=', instanceId)
            .execute()
        ).map((s) => [s.step_id, s]),
      );

    const inbox = (instanceId: string) =>
      db()
        .selectFrom('weave_inbox')
        .selectAll()
        .where('instance_id', '=', instanceId)
        .orderBy('id')
        .execute();

    const history = (instanceId: string) =>
      db()
        .selectFrom('weave_history')
        .selectAll()
        .where('instance_id', '=', instanceId)
        .orderBy('seq')
        .execute();

    /** The tasks owned by the instance's activations, with their step. */
    const ownedTasks = (instanceId: string) =>
      db()
        .selectFrom('tasks as k')
        .innerJoin('weave_activations as a', (j) =>
          j.onRef('a.id', '=', 'k.owner_id').on('k.owner_kind', '=', OWNER_ACTIVATION),
        )
        .select(['k.id', 'k.input', 'k.status', 'a.step_id', 'a.id as activation_id'])
        .where('a.instance_id', '=', instanceId)
        .orderBy('a.step_id')
        .execute();

    const activations = (instanceId: string) =>
      db()
        .selectFrom('weave_activations')
        .selectAll()
        .where('instance_id', '=', instanceId)
        .orderBy('id')
        .execute();

    const instanceRow = (instanceId: string) =>
      db()
        .selectFrom('weave_instances')
        .selectAll()
        .where('id', '=', instanceId)
        .executeTakeFirstOrThrow();

    /** Everything a consumer transaction could change, for before/after comparisons. */
    const state = async (instanceId: string) => ({
      instance: await instanceRow(instanceId),
      steps: await steps(instanceId),
      activations: await activations(instanceId),
      tasks: await ownedTasks(instanceId),
      inbox: await inbox(instanceId),
      history: await history(instanceId),
      pending: await db()
        .selectFrom('weave_pending_advances')
        .selectAll()
        .where('instance_id', '=', instanceId)
        .execute(),
      quotas: await db().selectFrom('application_quotas').selectAll().execute(),
    });

    test('[E4.2] [E4.3] ack, step change, next task and history commit together or not at all: a quota shortage leaves the row pending and no orphan activation or task', async () => {
      await client.createApplication({ name: 'tight', quota: { max_active_tasks: 1 } });
      await publish(
        { schema_version: 1, name: 'tight', steps: [task('a', 'tight'), task('b', 'tight')] },
        'tight',
      );
      const { instance } = await client.instances.start('tight', { input: {} });
      const a = await claimOne('tight');
      await succeed(a, { paid: 1 });
      // The application's one slot is taken by a plain task before the consumer runs.
      const { task: blocker } = await client.submitTask('tight', { input: {} });
      const before = await state(instance.id);
      assert.equal(before.inbox[0]?.state, 'PENDING');

      const refused = await refusal(consume(instance.id));
      assert.equal(refused.code, 'quota_exceeded');
      assert.deepEqual(await state(instance.id), before, 'nothing of the round was committed');

      await client.cancelTask(blocker.id);
      const done = await consume(instance.id);
      assert.equal(done.rows, 1);
      const after = await state(instance.id);
      assert.deepEqual(
        after.inbox.map((r) => [r.state, r.outcome]),
        [['PROCESSED', 'APPLIED']],
      );
      assert.equal(after.steps.a?.status, 'SUCCEEDED');
      assert.equal(after.steps.a?.output, '{"paid":1}');
      assert.equal(after.steps.b?.status, 'ACTIVE');
      assert.deepEqual(
        after.tasks.map((k) => [k.step_id, k.status]),
        [
          ['a', 'SUCCEEDED'],
          ['b', 'PENDING'],
        ],
      );
      const revision = BigInt(before.instance.revision) + 1n;
      assert.equal(BigInt(after.instance.revision), revision);
      const added = after.history.slice(before.history.length);
      assert.deepEqual(
        added.map((h) => [h.type, h.step_id]),
        [
          ['result.applied', null],
          ['step.completed', 'a'],
          ['step.activated', 'b'],
        ],
      );
      assert.ok(
        added.every((h) => BigInt(h.instance_revision) === revision),
        'one commit',
      );
      assert.deepEqual((await consume(instance.id)).rows, 0, 'an acked row is not consumed again');
    });

    test('[E4.3] a consumer transaction that dies before COMMIT leaves nothing; the next one plans the same round from the rows, and no task is created twice', async () => {
      await publish(firstThenFan('refan', 40));
      const { instance } = await client.instances.start('refan', { input: {} });
      await succeed(await claimOne('refan'), { go: true });
      const before = await state(instance.id);

      // The node dies after every statement of the round and before COMMIT.
      let planned: { step: string; input: string }[] = [];
      await assert.rejects(
        withTx(t.server.database, async (tx) => {
          await consumeInstance(tx, { namespaceId, instanceId: instance.id });
          const inside = await tx.db
            .selectFrom('tasks as k')
            .innerJoin('weave_activations as a', 'a.id', 'k.owner_id')
            .select(['a.step_id', 'k.input'])
            .where('a.instance_id', '=', instance.id)
            .where('a.step_id', '<>', 'first')
            .orderBy('a.step_id')
            .execute();
          planned = inside.map((r) => ({ step: r.step_id, input: r.input }));
          throw new Error('the node died before COMMIT');
        }),
        /died before COMMIT/,
      );
      // Its 32 changes: ACTIVATE fan and 31 of its TASKs; the rest waits for the pending advance.
      assert.equal(planned.length, 31, 'the round had created 31 tasks');
      assert.deepEqual(await state(instance.id), before, 'the rollback left nothing');

      // The next consumer plans from the same rows: the same tasks, and the pending advance.
      await consume(instance.id);
      const committed = (await ownedTasks(instance.id))
        .filter((k) => k.step_id !== 'first')
        .map((k) => ({ step: k.step_id, input: k.input }));
      assert.deepEqual(committed, planned);
      const pending = await db()
        .selectFrom('weave_pending_advances')
        .select('root_step_revision')
        .where('instance_id', '=', instance.id)
        .execute();
      assert.equal(pending.length, 1);
      assert.equal(
        String(pending[0]?.root_step_revision),
        String((await steps(instance.id)).$root?.revision),
      );

      // The pending advance's round creates the other 9; then there is nothing left to do.
      const advanced = await consume(instance.id);
      assert.equal(advanced.advanced, true);
      assert.deepEqual(await consume(instance.id), { rows: 0, advanced: false, queueIds: [] });
      const all = await ownedTasks(instance.id);
      assert.equal(all.length, 41);
      assert.equal(new Set(all.map((k) => k.step_id)).size, 41, 'one task per step');
      const byStep = new Map<string, number>();
      for (const a of await activations(instance.id)) {
        byStep.set(a.step_id, (byStep.get(a.step_id) ?? 0) + 1);
      }
      assert.ok(
        [...byStep.values()].every((n) => n === 1),
        'every step has one activation',
      );
      assert.equal(byStep.size, 43, '$root, first, fan and the 40 branches');
      // The unique key backs it: a second activation number 1 of a step cannot be written.
      const [one] = await activations(instance.id);
      assert.ok(one);
      const { id: _id, ...copy } = one;
      await assert.rejects(db().insertInto('weave_activations').values(copy).execute());
    });

    /** Recovery's new activation (issue 12), written here by SQL: activation 2 with its task. */
    async function supersede(instanceId: string, stepId: string, queue: string) {
      return withTx(t.server.database, async (tx) => {
        const step = await tx.db
          .selectFrom('weave_steps')
          .selectAll()
          .where('instance_id', '=', instanceId)
          .where('step_id', '=', stepId)
          .executeTakeFirstOrThrow();
        const q = await tx.db
          .selectFrom('queues')
          .selectAll()
          .where('name', '=', queue)
          .executeTakeFirstOrThrow();
        const instance = await tx.db
          .selectFrom('weave_instances')
          .select('deadline_at')
          .where('id', '=', instanceId)
          .executeTakeFirstOrThrow();
        const { rows } = await tx.db.executeQuery(
          tx.db
            .insertInto('weave_activations')
            .values({
              namespace_id: namespaceId,
              instance_id: instanceId,
              step_row_id: step.id,
              step_id: stepId,
              number: Number(step.activation_count) + 1,
              kind: 'TASK',
              status: 'ACTIVE',
              task_id: null,
              input: `{"op":"${stepId}","again":true}`,
              created_at: tx.now,
              finished_at: null,
            })
            .returning('id')
            .compile(),
        );
        const activationId = String(rows[0]?.id);
        const [newTask] = await submitOwnedTasks(tx, namespaceId, [
          {
            namespaceId,
            applicationId: String(q.application_id),
            queueId: String(q.id),
            queueName: queue,
            capacity: Number(q.capacity),
            input: `{"op":"${stepId}","again":true}`,
            idempotent: false,
            priority: 0,
            deadlineAt: BigInt(instance.deadline_at),
            retry: DEFAULT_RETRY_POLICY,
            resultStreamId: null,
            owner: { kind: OWNER_ACTIVATION, id: activationId },
          },
        ]);
        await tx.db
          .updateTable('weave_activations')
          .set({ task_id: newTask?.id ?? null })
          .where('id', '=', activationId)
          .execute();
        await tx.db
          .updateTable('weave_steps')
          .set({
            current_activation_id: activationId,
            activation_count: Number(step.activation_count) + 1,
          })
          .where('id', '=', step.id)
          .execute();
        return { activationId, taskId: newTask?.id ?? '' };
      });
    }

    test('[E1.7] [E4.2] a result of an old activation keeps its identity, is recorded as stale and never advances the step; the current activation’s result does', async () => {
      await publish({
        schema_version: 1,
        name: 'redo',
        steps: [task('a', 'redo'), task('b', 'redo')],
      });
      const { instance } = await client.instances.start('redo', { input: {} });
      const old = await claimOne('redo');
      await client.startAttempt(old.task_id, old.attempt_id, old.permit);
      const oldActivation = String(
        (await activations(instance.id)).find((a) => a.step_id === 'a')?.id,
      );
      const current = await supersede(instance.id, 'a', 'redo');

      // The producer accepts the in-flight result of the old activation (it still owns its
      // task) and keeps that identity; it does not decide what is current.
      await succeed(old, { from: 'old' });
      const [row] = await inbox(instance.id);
      assert.equal(String(row?.source_activation_id), oldActivation);
      const before = await state(instance.id);

      await consume(instance.id);
      const after = await state(instance.id);
      assert.deepEqual(
        after.inbox.map((r) => [r.state, r.outcome]),
        [['PROCESSED', 'STALE']],
      );
      const trace = after.history.slice(before.history.length);
      assert.deepEqual(
        trace.map((h) => h.type),
        ['result.stale_ignored'],
      );
      assert.equal(
        (JSON.parse(trace[0]?.details ?? '{}') as { reason?: string }).reason,
        'activation_not_current',
      );
      assert.equal(after.steps.a?.status, 'ACTIVE', 'the old result did not settle the step');
      assert.equal(after.steps.a?.output, null);
      assert.equal(String(after.steps.a?.current_activation_id), current.activationId);
      assert.equal(after.steps.b?.status, 'PENDING', 'nor start the next one');
      assert.equal(after.instance.status, 'RUNNING');

      // The current activation's result settles the step and the instance moves on.
      const fresh = (await claim('redo')).find((c) => c.task_id === current.taskId);
      assert.ok(fresh, 'the new activation’s task');
      await succeed(fresh, { from: 'new' });
      await consume(instance.id);
      const moved = await steps(instance.id);
      assert.equal(moved.a?.status, 'SUCCEEDED');
      assert.equal(moved.a?.output, '{"from":"new"}');
      assert.equal(moved.b?.status, 'ACTIVE');
    });

    test('[E1.7] [E4.2] a result of an old POLL round is stale; the current round’s result completes the POLL', async () => {
      await publish(POLL('rounds'));
      const { instance } = await client.instances.start('rounds', { input: {} });
      const first = await claimOne('rounds');
      const activation = (await activations(instance.id)).find((a) => a.step_id === 'track');
      assert.ok(activation);
      // The clock's round 2 (runtime.md §4.2; the other engineer's work), written here by SQL.
      const round2 = await withTx(t.server.database, async (tx) => {
        const q = await tx.db
          .selectFrom('queues')
          .selectAll()
          .where('name', '=', 'rounds')
          .executeTakeFirstOrThrow();
        const { rows } = await tx.db.executeQuery(
          tx.db
            .insertInto('weave_poll_rounds')
            .values({
              namespace_id: namespaceId,
              instance_id: instance.id,
              activation_id: activation.id,
              number: 2,
              state: 'RUNNING',
              due_at: tx.now,
              task_id: null,
              classification: null,
              created_at: tx.now,
              finished_at: null,
            })
            .returning('id')
            .compile(),
        );
        const roundId = String(rows[0]?.id);
        const [query] = await submitOwnedTasks(tx, namespaceId, [
          {
            namespaceId,
            applicationId: String(q.application_id),
            queueId: String(q.id),
            queueName: 'rounds',
            capacity: Number(q.capacity),
            input: '{"op":"track"}',
            idempotent: true,
            priority: 0,
            deadlineAt: tx.now + 3_600_000_000n,
            retry: DEFAULT_RETRY_POLICY,
            resultStreamId: null,
            owner: { kind: OWNER_ACTIVATION, id: String(activation.id) },
          },
        ]);
        await tx.db
          .updateTable('weave_poll_rounds')
          .set({ task_id: query?.id ?? null })
          .where('id', '=', roundId)
          .execute();
        await tx.db
          .updateTable('weave_activations')
          .set({ current_round_id: roundId, poll_used_rounds: 2 })
          .where('id', '=', activation.id)
          .execute();
        return { roundId, taskId: query?.id ?? '' };
      });

      await succeed(first, { s: 'D' });
      await consume(instance.id);
      const [stale] = await inbox(instance.id);
      assert.deepEqual([stale?.state, stale?.outcome], ['PROCESSED', 'STALE']);
      const reasons = (await history(instance.id))
        .filter((h) => h.type === 'result.stale_ignored')
        .map((h) => (JSON.parse(h.details ?? '{}') as { reason?: string }).reason);
      assert.deepEqual(reasons, ['round_not_current']);
      assert.equal((await steps(instance.id)).track?.status, 'ACTIVE');

      const current = (await claim('rounds')).find((c) => c.task_id === round2.taskId);
      assert.ok(current);
      await succeed(current, { s: 'D' });
      await consume(instance.id);
      const track = (await steps(instance.id)).track;
      assert.equal(track?.status, 'SUCCEEDED');
      assert.equal(track?.completed_by, 'QUERY');
      assert.equal((await instanceRow(instance.id)).status, 'SUCCEEDED');
    });

    test('[E4.2] a result older than the one applied is stale; a row of another namespace is never read for this instance', async () => {
      await publish({ schema_version: 1, name: 'review', steps: [task('solo', 'review')] });
      const { instance } = await client.instances.start('review', { input: {} });
      const c = await claimOne('review');
      await client.completeAttempt(c.task_id, c.attempt_id, c.permit, { outcome: 'needs_review' });
      await consume(instance.id);
      assert.equal((await steps(instance.id)).solo?.status, 'NEEDS_REVIEW');
      const [applied] = await inbox(instance.id);
      assert.ok(applied);
      const { id: _id, ...row } = applied;
      const older = BigInt(row.source_revision ?? 0) - 1n;
      await db()
        .insertInto('weave_inbox')
        .values({
          ...row,
          event_id: `task.${c.task_id}.${older}`,
          source_revision: String(older),
          snapshot:
            row.snapshot?.replace(
              `"revision":"${String(row.source_revision)}"`,
              `"revision":"${older}"`,
            ) ?? null,
          state: 'PENDING',
          outcome: null,
          processed_at: null,
        })
        .execute();
      const foreign = String(BigInt(namespaceId) + 1000n);
      await db()
        .insertInto('weave_inbox')
        .values({
          ...row,
          namespace_id: foreign,
          state: 'PENDING',
          outcome: null,
          processed_at: null,
        })
        .execute();
      await consume(instance.id);
      const rows = await inbox(instance.id);
      assert.deepEqual(
        rows.map((r) => [String(r.namespace_id) === foreign, r.state, r.outcome]),
        [
          [false, 'PROCESSED', 'APPLIED'],
          [false, 'PROCESSED', 'STALE'],
          [true, 'PENDING', null],
        ],
      );
      const reasons = (await history(instance.id))
        .filter((h) => h.type === 'result.stale_ignored')
        .map((h) => (JSON.parse(h.details ?? '{}') as { reason?: string }).reason);
      assert.deepEqual(reasons, ['older_revision']);
      assert.equal((await steps(instance.id)).solo?.status, 'NEEDS_REVIEW');
      await db().deleteFrom('weave_inbox').where('namespace_id', '=', foreign).execute();
    });

    test('[E2.7] the inbox scan index is (state, available_at, namespace_id, id); rows committed while no consumer ran are found by another node in bounded pages', async () => {
      const index =
        dialect === 'sqlite'
          ? (
              await sql<{
                name: string;
              }>`SELECT name FROM pragma_index_info('ix_weave_inbox_scan') ORDER BY seqno`.execute(
                db(),
              )
            ).rows.map((r) => r.name)
          : (
              await sql<{
                name: string;
              }>`SELECT column_name AS name FROM information_schema.statistics
                WHERE table_schema = DATABASE() AND table_name = 'weave_inbox'
                AND index_name = 'ix_weave_inbox_scan' ORDER BY seq_in_index`.execute(db())
            ).rows.map((r) => r.name);
      assert.deepEqual(index, ['state', 'available_at', 'namespace_id', 'id']);

      // 60 results committed on this node, which runs no consumer: only rows hold them.
      await publish({ schema_version: 1, name: 'many', steps: [task('one', 'many')] });
      const ids: string[] = [];
      for (let i = 0; i < 60; i++) {
        ids.push((await client.instances.start('many', { input: {} })).instance.id);
      }
      for (const c of await claim('many', 60)) {
        await succeed(c, { ok: true });
      }
      const log = new StatementLog();
      const other = await startServer({
        db: t.db.url,
        port: 0,
        logLevel: false,
        sweepIntervalMs: false,
        scheduleIntervalMs: false,
        retentionIntervalMs: false,
        webhookIntervalMs: false,
        inboxIntervalMs: 20,
        onStatement: log.hook,
        // The bulk-operation runner's claim scan crosses namespaces by design (not this flow).
        operationIntervalMs: false,
      });
      try {
        await waitFor(
          async () =>
            (
              await db()
                .selectFrom('weave_instances')
                .select('id')
                .where('id', 'in', ids)
                .where('status', '=', 'SUCCEEDED')
                .execute()
            ).length === ids.length,
          { timeoutMs: 20_000, what: 'the other node to consume all 60' },
        );
      } finally {
        await other.stop();
      }
      const statements = log.transactions().flatMap((tx) => tx.statements);
      const scans = statements.filter(
        (s) =>
          verbOf(s.sql) === 'select' && touches(s, 'weave_inbox') && /where state = \?/.test(s.sql),
      );
      assert.ok(scans.length >= 2, 'more than one page was needed');
      for (const scan of scans) {
        assert.match(scan.sql, /where state = \? and available_at <= \? order by id limit \?$/);
        assert.equal(Number(scan.parameters.at(-1)), 50, 'a page is at most 50 instances');
      }
      const perInstance = statements.filter(
        (s) =>
          touches(s, 'weave_inbox') &&
          /where namespace_id = \? and instance_id = \? and state = \?/.test(s.sql),
      );
      assert.ok(perInstance.length >= 60);
      assert.ok(
        perInstance.every((s) => / limit \?$/.test(s.sql)),
        'an instance’s rows are read in a bounded batch',
      );
    });

    test('several instances in one consumer transaction: the one whose round throws is rolled back alone and reported, the others commit', async () => {
      await publish({ schema_version: 1, name: 'grouped', steps: [task('only', 'grouped')] });
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) {
        ids.push((await client.instances.start('grouped', { input: {} })).instance.id);
      }
      for (const c of await claim('grouped', 3)) {
        await succeed(c, { done: true });
      }
      const [first, broken, last] = ids as [string, string, string];
      // The pinned version no longer verifies: the broken instance's round throws.
      await db()
        .updateTable('weave_instances')
        .set({ digest: '0'.repeat(64) })
        .where('id', '=', broken)
        .execute();
      const before = await history(broken);
      const queues: string[][] = [];
      const outcome = await consumeTogether(
        t.server.database,
        ids.map((instanceId) => ({ namespaceId, instanceId })),
        new ProgramCache(),
        (queueIds) => queues.push([...queueIds]),
      );
      assert.equal(outcome.worked, true);
      assert.deepEqual(
        outcome.failed.map((f) => f.ref.instanceId),
        [broken],
      );
      for (const id of [first, last]) {
        assert.equal((await client.instances.get(id)).instance.status, 'SUCCEEDED', id);
        assert.deepEqual(
          (await inbox(id)).map((r) => r.state),
          ['PROCESSED'],
        );
      }
      assert.deepEqual(
        (await inbox(broken)).map((r) => [r.state, Number(r.failures)]),
        [['PENDING', 0]],
        'the broken instance’s row is left as it was (its back-off is the caller’s)',
      );
      assert.equal((await history(broken)).length, before.length, 'no history written for it');
      assert.equal((await steps(broken))['only']?.status, 'ACTIVE');
      assert.equal(queues.length, 1, 'one commit for the group');
    });
  });
});
