/**
 * The Weave step of the result transaction (seed 000 §1–§2, runtime.md §3.1), on SQLite and
 * MariaDB through real HTTP completions: which results reach the inbox (E1.2), how a workflow task
 * is owned (E1.3, A2.7), the read-only ownership check within one namespace (E1.4, E1.9) that
 * refuses the task result when an association is lost (E2.8), what the producer adds to a plain
 * result (E1.8: nothing), and the inbox row with its frozen snapshot (E2.1–E2.3). The consumer is
 * off on this server (`inboxIntervalMs: false`): inbox rows stay as the producer wrote them; where
 * a test needs them consumed it runs the consumer transaction itself.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import type { ClaimedTask, WeaveClient } from '@weave/sdk';
import { parseCron } from '../../src/pulse/cron.js';
import { nextSlotAfter } from '../../src/pulse/cron-zone.js';
import { expireLeases } from '../../src/pulse/expire-leases.js';
import { runDueSchedules } from '../../src/pulse/schedule-runner.js';
import { withTx } from '../../src/store/with-tx.js';
import { deliverResult } from '../../src/weave/delivery/deliver-result.js';
import { consumeInstance } from '../../src/weave/runtime/consume-instance.js';
import { forEachDialect, openTestDatabase } from '../support/databases.js';
import { refusal } from '../support/refusal.js';
import { waitFor } from '../support/wait-for.js';
import { startTestServer } from '../support/servers.js';
import type { TestServer } from '../support/servers.js';
import { StatementLog, isLockingRead, tablesOf, touches, verbOf } from '../support/statements.js';
import type { Statement, Transaction } from '../support/statements.js';

/** A one-TASK workflow on its own queue (each test its own, so claims never mix). */
const oneTask = (name: string) => ({
  schema_version: 1,
  name,
  steps: [{ id: 'charge', kind: 'TASK', queue: name, input: { op: 'charge' } }],
});

const polling = (name: string) => ({
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

const isWeave = (s: Statement) => tablesOf(s.sql).some((table) => table.startsWith('weave_'));
const updatesTasks = (s: Statement) => verbOf(s.sql) === 'update' && touches(s, 'tasks');
const insertsInbox = (s: Statement) => verbOf(s.sql) === 'insert' && touches(s, 'weave_inbox');

/** Resolves with `promise`, or fails the test after `ms` (a bound for a wait that must not block). */
function within<T>(ms: number, promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  // sleep-ok: a bound on a completion that must not wait for a lock, not an ordering of events
  const bound = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms} ms`)), ms);
  });
  return Promise.race([promise, bound]).finally(() => clearTimeout(timer));
}

forEachDialect((dialect) => {
  describe(`the result transaction's Weave step on ${dialect}`, () => {
    let t: TestServer;
    let client: WeaveClient;
    let namespaceId: string;
    const log = new StatementLog();
    const db = () => t.server.database.kysely;

    before(async () => {
      t = await startTestServer(dialect, {
        onStatement: log.hook,
        // The bulk-operation runner's claim scan crosses namespaces by design (not this flow).
        operationIntervalMs: false,
        inboxIntervalMs: false,
        sweepIntervalMs: false,
        scheduleIntervalMs: false,
        retentionIntervalMs: false,
        webhookIntervalMs: false,
      });
      client = t.admin;
      const ns = await db()
        .selectFrom('namespaces')
        .select('id')
        .where('name', '=', 'ns')
        .executeTakeFirstOrThrow();
      namespaceId = String(ns.id);
    });
    after(() => t.close());

    /** A queue and a published workflow of the same name. */
    async function publish(definition: {
      readonly name: string;
      readonly [key: string]: unknown;
    }): Promise<void> {
      await client.createQueue({ name: definition.name, application: 'app' });
      await client.workflows.publish(definition);
    }

    async function claimOne(queue: string): Promise<ClaimedTask> {
      const { tasks } = await client.claimTasks(queue, { worker_id: 'w', max_tasks: 1 });
      assert.equal(tasks.length, 1, `one task on ${queue}`);
      return tasks[0] as ClaimedTask;
    }

    const succeed = (c: ClaimedTask, result: unknown = { ok: 1 }) =>
      client.completeAttempt(c.task_id, c.attempt_id, c.permit, { outcome: 'succeeded', result });

    const inboxOf = (taskId: string) =>
      db().selectFrom('weave_inbox').selectAll().where('source_task_id', '=', taskId).execute();

    const taskRow = (taskId: string) =>
      db().selectFrom('tasks').selectAll().where('id', '=', taskId).executeTakeFirstOrThrow();

    const activationOf = (instanceId: string, stepId: string) =>
      db()
        .selectFrom('weave_activations')
        .selectAll()
        .where('instance_id', '=', instanceId)
        .where('step_id', '=', stepId)
        .executeTakeFirstOrThrow();

    /** The committed transaction of one completion: the one that updated the task row. */
    async function completionTx(complete: () => Promise<unknown>): Promise<Transaction> {
      const mark = log.mark();
      await complete();
      return log.only(mark, updatesTasks);
    }

    test('[E1.2] [E1.8] plain and scheduled tasks take the ordinary result chain; a workflow task adds only the association read and the inbox insert', async () => {
      await client.createQueue({ name: 'plain', application: 'app' });
      await publish(oneTask('wf-e12'));

      // A plain task.
      const { task: plainTask } = await client.submitTask('plain', { input: { n: 1 } });
      const plainClaim = await claimOne('plain');
      const plain = await completionTx(() => succeed(plainClaim));

      // A scheduled task: its slot fell due (moved into the past), fired by the schedule runner.
      await client.createSchedule({
        name: 'hourly',
        queue: 'plain',
        cron: '0 * * * *',
        catch_up: 'latest',
        task: { input: { from: 'schedule' } },
      });
      await withTx(t.server.database, async (tx) => {
        const slot = nextSlotAfter(parseCron('0 * * * *'), 'UTC', tx.now - 3_600_000_000n) ?? 0n;
        await tx.db.updateTable('schedules').set({ next_slot_at: slot }).execute();
      });
      await runDueSchedules(t.server.database);
      const scheduledClaim = await claimOne('plain');
      const scheduled = await completionTx(() => succeed(scheduledClaim));

      // A workflow task.
      const { instance } = await client.instances.start('wf-e12', { input: {} });
      const flowClaim = await claimOne('wf-e12');
      const flow = await completionTx(() => succeed(flowClaim));

      for (const [name, tx] of [
        ['plain', plain],
        ['scheduled', scheduled],
      ] as const) {
        assert.deepEqual(
          tx.statements.filter(isWeave).map((s) => s.sql),
          [],
          `the ${name} completion touches no Weave table`,
        );
      }
      assert.equal((await taskRow(plainTask.id)).owner_kind, null);
      assert.equal((await taskRow(scheduledClaim.task_id)).owner_kind, null);
      assert.deepEqual(await inboxOf(plainTask.id), []);
      assert.deepEqual(await inboxOf(scheduledClaim.task_id), []);
      assert.equal((await inboxOf(flowClaim.task_id)).length, 1);
      // The ordinary chain: both plain outcomes are on the application's stream.
      const page = await client.results.readStream('app');
      const onStream = page.events.map((e) => e.task_id);
      assert.ok(onStream.includes(plainTask.id) && onStream.includes(scheduledClaim.task_id));

      // E1.8: the owner markers come with the task row Pulse locks anyway (`select *`), so the
      // workflow completion is the plain one statement for statement, plus the Weave statements.
      const lockRead = plain.statements.find(
        (s) => verbOf(s.sql) === 'select' && touches(s, 'tasks'),
      );
      assert.match(lockRead?.sql ?? '', /^select \* from tasks where/);
      // The id of an application's default stream is read once per process (append-result.ts),
      // by whichever completion comes first: not part of the chain being compared.
      const texts = (tx: Transaction) =>
        tx.statements
          .map((s) => s.sql)
          .filter((sql) => !/^select id from orbit_streams .*is_default/.test(sql));
      assert.deepEqual(
        texts({ ...flow, statements: flow.statements.filter((s) => !isWeave(s)) }),
        texts(plain),
        'a workflow completion runs the plain completion’s statements, in the same order',
      );
      assert.deepEqual(
        texts(scheduled),
        texts(plain),
        'a scheduled task completes like a plain one',
      );
      const weave = flow.statements.filter(isWeave);
      assert.deepEqual(
        weave.map((s) => [verbOf(s.sql), tablesOf(s.sql)[0]]),
        [
          ['select', 'weave_activations'],
          ['insert', 'weave_inbox'],
        ],
      );
      assert.ok(instance.id);
    });

    test('[E1.3] [A2.7] a TASK activation owns its task through task_id; a POLL activation owns its query task through its round and keeps task_id empty', async () => {
      await publish(oneTask('wf-e13'));
      await publish(polling('poll-e13'));
      const task = await client.instances.start('wf-e13', { input: {} });
      const poll = await client.instances.start('poll-e13', { input: {} });

      const taskActivation = await activationOf(task.instance.id, 'charge');
      const taskClaim = await claimOne('wf-e13');
      const taskOwned = await taskRow(taskClaim.task_id);
      assert.equal(taskOwned.owner_kind, 'workflow_activation');
      assert.equal(String(taskOwned.owner_id), String(taskActivation.id));
      assert.equal(String(taskActivation.task_id), taskClaim.task_id);

      const pollActivation = await activationOf(poll.instance.id, 'track');
      const round = await db()
        .selectFrom('weave_poll_rounds')
        .selectAll()
        .where('activation_id', '=', pollActivation.id)
        .executeTakeFirstOrThrow();
      const pollClaim = await claimOne('poll-e13');
      const pollOwned = await taskRow(pollClaim.task_id);
      assert.equal(pollActivation.task_id, null, 'a POLL activation leaves task_id empty');
      assert.equal(String(round.task_id), pollClaim.task_id, 'its round names the query task');
      assert.equal(String(pollActivation.current_round_id), String(round.id));
      assert.equal(pollOwned.owner_kind, 'workflow_activation');
      assert.equal(String(pollOwned.owner_id), String(pollActivation.id));
      const { task: viewed } = await client.getTask(pollClaim.task_id);
      assert.deepEqual(viewed.owner, {
        kind: 'workflow_activation',
        id: String(pollActivation.id),
      });

      // Each result's inbox row names the activation, and for the POLL the round found.
      await succeed(taskClaim);
      await succeed(pollClaim, { s: 'W' });
      const [taskRowIn] = await inboxOf(taskClaim.task_id);
      const [pollRowIn] = await inboxOf(pollClaim.task_id);
      assert.equal(String(taskRowIn?.source_activation_id), String(taskActivation.id));
      assert.equal(taskRowIn?.source_round_id, null);
      assert.equal(String(pollRowIn?.source_activation_id), String(pollActivation.id));
      assert.equal(String(pollRowIn?.source_round_id), String(round.id));
      // The step detail checks the same links and shows them.
      const detail = await client.instances.step(poll.instance.id, 'track');
      assert.equal(detail.id, 'track');
    });

    /**
     * E1.4, E2.8: each relation the producer checks, broken one at a time by moving a row to
     * another namespace (or changing the link); the completion must be refused whole, and the
     * same completion commits once the row is back.
     */
    const BREAKS: {
      name: string;
      table: string;
      column: string;
      row: (ids: { instance: string; activation: string; task: string }) => Promise<string>;
      broken: (value: string) => string;
    }[] = [
      {
        name: 'the activation is in another namespace',
        table: 'weave_activations',
        column: 'namespace_id',
        row: (ids) => Promise.resolve(ids.activation),
        broken: (v) => String(BigInt(v) + 1000n),
      },
      {
        name: 'the step is in another namespace',
        table: 'weave_steps',
        column: 'namespace_id',
        row: async (ids) =>
          String(
            (
              await db()
                .selectFrom('weave_steps')
                .select('id')
                .where('instance_id', '=', ids.instance)
                .where('step_id', '=', 'charge')
                .executeTakeFirstOrThrow()
            ).id,
          ),
        broken: (v) => String(BigInt(v) + 1000n),
      },
      {
        name: 'the instance is in another namespace',
        table: 'weave_instances',
        column: 'namespace_id',
        row: (ids) => Promise.resolve(ids.instance),
        broken: (v) => String(BigInt(v) + 1000n),
      },
      {
        name: 'the gate is in another namespace',
        table: 'weave_gates',
        column: 'namespace_id',
        row: async (ids) =>
          String(
            (
              await db()
                .selectFrom('weave_gates')
                .select('id')
                .where('instance_id', '=', ids.instance)
                .executeTakeFirstOrThrow()
            ).id,
          ),
        broken: (v) => String(BigInt(v) + 1000n),
      },
      {
        name: 'the pinned version is in another namespace',
        table: 'weave_definition_versions',
        column: 'namespace_id',
        row: async (ids) =>
          String(
            (
              await db()
                .selectFrom('weave_instances')
                .select('version_id')
                .where('id', '=', ids.instance)
                .executeTakeFirstOrThrow()
            ).version_id,
          ),
        broken: (v) => String(BigInt(v) + 1000n),
      },
      {
        name: 'the instance pins another digest than its version has',
        table: 'weave_instances',
        column: 'digest',
        row: (ids) => Promise.resolve(ids.instance),
        broken: () => '0'.repeat(64),
      },
      {
        name: 'the activation owns another task',
        table: 'weave_activations',
        column: 'task_id',
        row: (ids) => Promise.resolve(ids.activation),
        broken: (v) => String(BigInt(v) + 1000n),
      },
      {
        name: 'the task names an owner kind Weave does not know',
        table: 'tasks',
        column: 'owner_kind',
        row: (ids) => Promise.resolve(ids.task),
        broken: () => 'workflow_something',
      },
    ];

    test('[E1.4] [E2.8] a lost association refuses the task result whole; the same completion commits once the link is repaired', async () => {
      await publish(oneTask('wf-e14'));
      for (const b of BREAKS) {
        const { instance } = await client.instances.start('wf-e14', { input: {} });
        const claim = await claimOne('wf-e14');
        await client.startAttempt(claim.task_id, claim.attempt_id, claim.permit);
        const activation = await activationOf(instance.id, 'charge');
        const ids = {
          instance: instance.id,
          activation: String(activation.id),
          task: claim.task_id,
        };
        const id = await b.row(ids);
        const table = sql.table(b.table);
        const column = sql.ref(b.column);
        const read = async () =>
          String(
            (
              await sql<{
                v: unknown;
              }>`SELECT ${column} AS v FROM ${table} WHERE id = ${id}`.execute(db())
            ).rows[0]?.v,
          );
        const original = await read();
        const set = (v: string) =>
          sql`UPDATE ${table} SET ${column} = ${v} WHERE id = ${id}`.execute(db());
        const before = await taskRow(claim.task_id);
        const events = await db()
          .selectFrom('task_events')
          .select('id')
          .where('task_id', '=', claim.task_id)
          .execute();

        await set(b.broken(original));
        const refused = await refusal(succeed(claim));
        assert.equal(refused.status, 500, b.name);
        assert.equal(refused.code, 'internal', b.name);
        const unchanged = await taskRow(claim.task_id);
        assert.equal(unchanged.status, 'RUNNING', `${b.name}: the task result did not commit`);
        assert.equal(String(unchanged.revision), String(before.revision), b.name);
        assert.deepEqual(await inboxOf(claim.task_id), [], b.name);
        assert.equal(
          (
            await db()
              .selectFrom('task_events')
              .select('id')
              .where('task_id', '=', claim.task_id)
              .execute()
          ).length,
          events.length,
          `${b.name}: no raw status event either`,
        );
        const page = await client.results.readStream('app');
        assert.ok(!page.events.some((e) => e.task_id === claim.task_id), `${b.name}: no outcome`);

        await set(original);
        const receipt = await succeed(claim);
        assert.equal(receipt.status, 'SUCCEEDED', b.name);
        assert.equal((await inboxOf(claim.task_id)).length, 1, b.name);
      }
    });

    test('[E1.4] every statement of the producer and of the consumer names the namespace of each table it reads or writes', async () => {
      await publish(oneTask('wf-scope'));
      await publish(polling('poll-scope'));
      const mark = log.mark();
      const flow = await client.instances.start('wf-scope', { input: {} });
      const poll = await client.instances.start('poll-scope', { input: {} });
      await succeed(await claimOne('wf-scope'));
      await succeed(await claimOne('poll-scope'), { s: 'D' });
      for (const instance of [flow.instance, poll.instance]) {
        await withTx(t.server.database, (tx) =>
          consumeInstance(tx, { namespaceId, instanceId: instance.id }),
        );
      }
      assert.equal((await client.instances.get(flow.instance.id)).instance.status, 'SUCCEEDED');
      assert.equal((await client.instances.get(poll.instance.id)).instance.status, 'SUCCEEDED');
      const { checkNamespaceScope } = await import('../support/namespace-scope.js');
      const namespaced = new Set(
        (await db().introspection.getTables())
          .filter((table) => table.columns.some((c) => c.name === 'namespace_id'))
          .map((table) => table.name),
      );
      // The credential lookup by key hash is the one read across namespaces by design (the key
      // names its namespace; namespace-scope.test.ts exempts it too).
      const statements = log
        .transactions(mark)
        .flatMap((tx) => tx.statements)
        .filter((s) => !/ where credentials\.lookup = \?$/.test(s.sql));
      const weave = statements.filter(isWeave);
      assert.ok(weave.some((s) => touches(s, 'weave_gates') && verbOf(s.sql) === 'select'));
      assert.ok(weave.some((s) => touches(s, 'weave_definition_versions')));
      const unscoped = statements
        .map((s) => ({ sql: s.sql, tables: checkNamespaceScope(s.sql, namespaced).unscoped }))
        .filter((s) => s.tables.length > 0);
      assert.deepEqual(unscoped, []);
      // The producer's association read joins step, instance, gate and version on the namespace.
      const association = weave.find(
        (s) => verbOf(s.sql) === 'select' && tablesOf(s.sql)[0] === 'weave_activations',
      );
      for (const table of [
        'weave_steps',
        'weave_instances',
        'weave_gates',
        'weave_definition_versions',
      ]) {
        assert.ok(tablesOf(association?.sql ?? '').includes(table), table);
      }
    });

    test('[E1.9] the association check reads without locks after the task lock, and the inbox row is written before the stream row is locked', async () => {
      await publish(oneTask('wf-e19'));
      await publish(polling('poll-e19'));
      const { instance } = await client.instances.start('wf-e19', { input: {} });
      await client.instances.start('poll-e19', { input: {} });
      for (const [queue, result] of [
        ['wf-e19', { ok: 1 }],
        ['poll-e19', { s: 'W' }],
      ] as const) {
        const claim = await claimOne(queue);
        const tx = await completionTx(() => succeed(claim, result));
        const list = tx.statements;
        const taskLock = list.findIndex((s) => verbOf(s.sql) === 'select' && touches(s, 'tasks'));
        const inbox = list.findIndex(insertsInbox);
        // The stream row is locked by the update that reserves its seqs (append-result.ts).
        const stream = list.findIndex(
          (s) => touches(s, 'orbit_streams') && verbOf(s.sql) === 'update',
        );
        assert.ok(taskLock >= 0 && inbox > taskLock && stream > inbox, `${queue}: order`);
        if (dialect === 'mysql') {
          assert.ok(isLockingRead(list[taskLock]?.sql ?? ''), 'the task row is locked first');
        }
        assert.deepEqual(
          list
            .slice(stream + 1, -1)
            .filter((s) => verbOf(s.sql) === 'select')
            .map((s) => s.sql),
          [],
          `${queue}: once the stream row is locked, nothing waits for an answer before COMMIT (on MariaDB, no round trip while it is held)`,
        );
        assert.equal(verbOf(list.at(-1)?.sql ?? ''), 'commit');
        const weave = list.slice(taskLock + 1).filter(isWeave);
        assert.deepEqual(
          weave.filter((s) => isLockingRead(s.sql)).map((s) => s.sql),
          [],
          `${queue}: no locking read of a Weave row after the task lock`,
        );
        assert.deepEqual(
          weave.filter((s) => verbOf(s.sql) !== 'select').map((s) => tablesOf(s.sql)[0]),
          ['weave_inbox'],
          `${queue}: the only Weave write is the inbox insert`,
        );
        assert.ok(!list.some((s) => touches(s, 'orbit_subscriptions')), 'no subscription row');
      }
      if (dialect !== 'mysql') {
        return;
      }
      // On MariaDB, held row locks prove it: another transaction holds the instance, its steps,
      // gate, activations and version exclusively, and the completion still commits at once.
      const side = openTestDatabase(t.db.url);
      try {
        const { instance: held } = await client.instances.start('wf-e19', { input: {} });
        const claim = await claimOne('wf-e19');
        await withTx(side, async (tx) => {
          for (const table of [
            'weave_instances',
            'weave_steps',
            'weave_gates',
            'weave_activations',
          ] as const) {
            const column = table === 'weave_instances' ? 'id' : 'instance_id';
            await sql`SELECT id FROM ${sql.table(table)} WHERE ${sql.ref(column)} = ${held.id} FOR UPDATE`.execute(
              tx.db,
            );
          }
          await sql`SELECT v.id FROM weave_definition_versions v JOIN weave_instances i ON i.version_id = v.id WHERE i.id = ${held.id} FOR UPDATE`.execute(
            tx.db,
          );
          const receipt = await within(5_000, succeed(claim), 'the completion');
          assert.equal(receipt.status, 'SUCCEEDED');
        });
        assert.equal((await inboxOf(claim.task_id)).length, 1);
      } finally {
        await side.close();
      }
      assert.ok(instance.id);
    });

    test('[E2.1] [E2.2] the inbox row has its four source fields and a schema_version 1 snapshot of the task at that moment, numbers as sent', async () => {
      await publish(oneTask('wf-e21'));
      const { instance } = await client.instances.start('wf-e21', { input: {} });
      const claim = await claimOne('wf-e21');
      const result = {
        n: { kind: 'number', text: '1e400' },
        big: { kind: 'number', text: '9007199254740993' },
        d: { kind: 'number', text: '0.10' },
        s: '引号 " and \\ kept',
      };
      const receipt = await succeed(claim, result);
      const [row] = await inboxOf(claim.task_id);
      assert.ok(row);
      const activation = await activationOf(instance.id, 'charge');
      const task = await taskRow(claim.task_id);
      assert.equal(String(row.namespace_id), namespaceId);
      assert.equal(String(row.instance_id), instance.id);
      assert.equal(String(row.source_task_id), claim.task_id);
      assert.equal(String(row.source_activation_id), String(activation.id));
      assert.equal(String(row.source_revision), receipt.revision);
      assert.ok(BigInt(row.source_revision ?? 0) > 0n);
      assert.equal(row.event_id, `task.${claim.task_id}.${receipt.revision}`);
      assert.equal(row.type, 'task.succeeded');
      assert.equal(row.state, 'PENDING');
      assert.equal(
        row.snapshot,
        `{"schema_version":1,"task_id":"${claim.task_id}","queue_id":"${String(task.queue_id)}",` +
          `"status":"SUCCEEDED","revision":"${receipt.revision}","attempt_id":"${claim.attempt_id}",` +
          `"effect_uncertain":false,"result":${task.result ?? ''}}`,
      );
      assert.equal(
        task.result,
        '{"n":1e400,"big":9007199254740993,"d":0.10,"s":"引号 \\" and \\\\ kept"}',
        'the raw result text, spliced into the snapshot unchanged',
      );

      // E2.2: the snapshot is what the consumer applies — not the task row as it is later, and
      // not the stream event, which retention may already have removed.
      await db()
        .updateTable('tasks')
        .set({ result: '{"rebuilt":true}' })
        .where('id', '=', claim.task_id)
        .execute();
      await db()
        .deleteFrom('orbit_result_events')
        .where('source_kind', '=', 'task')
        .where('source_id', '=', claim.task_id)
        .execute();
      await withTx(t.server.database, (tx) =>
        consumeInstance(tx, { namespaceId, instanceId: instance.id }),
      );
      const step = await db()
        .selectFrom('weave_steps')
        .select(['status', 'output'])
        .where('instance_id', '=', instance.id)
        .where('step_id', '=', 'charge')
        .executeTakeFirstOrThrow();
      assert.equal(step.status, 'SUCCEEDED');
      assert.equal(
        step.output,
        '{"n":1e400,"big":9007199254740993,"d":0.10,"s":"引号 \\" and \\\\ kept"}',
      );
    });

    test('[E2.2] a failure and an uncertain effect are frozen with the error, the attempt and the flag', async () => {
      await publish(oneTask('wf-e22'));
      await client.instances.start('wf-e22', { input: {} });
      await client.instances.start('wf-e22', { input: {} });
      const failing = await claimOne('wf-e22');
      const failed = await client.completeAttempt(
        failing.task_id,
        failing.attempt_id,
        failing.permit,
        {
          outcome: 'failed',
          error: { code: 'card_declined', message: 'declined: 1e400 €', retryable: false },
        },
      );
      const [failedRow] = await inboxOf(failing.task_id);
      assert.equal(failedRow?.type, 'task.failed');
      assert.equal(
        failedRow?.snapshot,
        `{"schema_version":1,"task_id":"${failing.task_id}","queue_id":"${String((await taskRow(failing.task_id)).queue_id)}",` +
          `"status":"FAILED","revision":"${failed.revision}","attempt_id":"${failing.attempt_id}",` +
          `"effect_uncertain":false,"error":{"code":"card_declined","message":"declined: 1e400 €"}}`,
      );
      // A started attempt of a non-idempotent task whose lease ends: the sweeper settles it
      // NEEDS_REVIEW with its effect unknown, and that is what the snapshot freezes.
      const running = await claimOne('wf-e22');
      await client.startAttempt(running.task_id, running.attempt_id, running.permit);
      await withTx(t.server.database, async (tx) => {
        for (const table of ['tasks', 'task_attempts'] as const) {
          await tx.db
            .updateTable(table)
            .set({ lease_until: tx.now - 1_000_000n })
            .where(table === 'tasks' ? 'id' : 'task_id', '=', running.task_id)
            .execute();
        }
      });
      await withTx(t.server.database, (tx) => expireLeases(tx, 10));
      const [uncertain] = await inboxOf(running.task_id);
      assert.equal(uncertain?.type, 'task.needs_review');
      const frozen = JSON.parse(uncertain?.snapshot ?? '{}') as Record<string, unknown>;
      assert.equal(frozen.status, 'NEEDS_REVIEW');
      assert.equal(frozen.effect_uncertain, true);
      assert.equal(frozen.attempt_id, running.attempt_id);
      assert.equal((frozen.error as { code?: string }).code, 'lease_expired');
      assert.equal(frozen.revision, String((await taskRow(running.task_id)).revision));
    });

    test('[E1.5] a workflow task failing with a retry left writes no inbox row; the attempt that ends it writes one', async () => {
      await publish({
        schema_version: 1,
        name: 'wf-e15',
        steps: [
          {
            id: 'charge',
            kind: 'TASK',
            queue: 'wf-e15',
            input: { op: 'charge' },
            retry: { max_attempts: 2, initial_interval: 'PT0.2S' },
          },
        ],
      });
      const { instance } = await client.instances.start('wf-e15', { input: {} });
      const first = await claimOne('wf-e15');
      await client.completeAttempt(first.task_id, first.attempt_id, first.permit, {
        outcome: 'failed',
        error: { code: 'busy', message: 'try again', retryable: true },
      });
      assert.deepEqual(await inboxOf(first.task_id), [], 'no internal event while a retry is due');
      const second = await waitFor(
        async () => {
          const { tasks } = await client.claimTasks('wf-e15', { worker_id: 'w', max_tasks: 1 });
          return tasks[0];
        },
        { timeoutMs: 10_000, what: 'the retry' },
      );
      assert.equal(second.task_id, first.task_id, 'the same task, a new attempt');
      assert.notEqual(second.attempt_id, first.attempt_id);
      await succeed(second);
      const rows = await inboxOf(first.task_id);
      assert.deepEqual(
        rows.map((r) => [r.type, String(r.source_activation_id)]),
        [['task.succeeded', String((await activationOf(instance.id, 'charge')).id)]],
      );
    });

    test('[E2.1] the producer refuses a snapshot over 512 KiB: nothing is written', async () => {
      await publish(oneTask('wf-big'));
      const { instance } = await client.instances.start('wf-big', { input: {} });
      const activation = await activationOf(instance.id, 'charge');
      const task = await taskRow(String(activation.task_id));
      const huge = `"${'x'.repeat(512 * 1024)}"`;
      const deliver = (text: string) =>
        withTx(t.server.database, (tx) =>
          deliverResult(tx, {
            namespaceId,
            taskId: String(task.id),
            queueId: String(task.queue_id),
            ownerKind: task.owner_kind ?? '',
            ownerId: String(task.owner_id),
            revision: BigInt(task.revision) + 1n,
            status: 'SUCCEEDED',
            attemptId: null,
            effectUncertain: false,
            result: text,
            error: null,
          }),
        );
      await assert.rejects(deliver(huge), /over 512 KiB/);
      assert.deepEqual(await inboxOf(String(task.id)), []);
      // Just under the bound it is written, exactly.
      const fits = `"${'x'.repeat(511 * 1024)}"`;
      await deliver(fits);
      const [row] = await inboxOf(String(task.id));
      assert.ok(row?.snapshot?.endsWith(`"result":${fits}}`));
      assert.ok(Buffer.byteLength(row?.snapshot ?? '') <= 512 * 1024);
    });

    test('[E2.3] the inbox is unique by (namespace, event_id) and by (namespace, source task, source revision); a re-report writes no second row', async () => {
      await publish(oneTask('wf-e23'));
      await client.instances.start('wf-e23', { input: {} });
      const claim = await claimOne('wf-e23');
      const first = await succeed(claim);
      const again = await succeed(claim);
      assert.deepEqual(again, first, 'the identical re-report answers the stored receipt');
      const rows = await inboxOf(claim.task_id);
      assert.equal(rows.length, 1);
      const { id: _id, ...row } = rows[0] as NonNullable<(typeof rows)[number]>;
      const insert = (values: typeof row) =>
        db().insertInto('weave_inbox').values(values).execute();
      await assert.rejects(
        insert({ ...row, source_revision: String(BigInt(row.source_revision ?? 0) + 1n) }),
        'the same event id in the namespace',
      );
      await assert.rejects(
        insert({ ...row, event_id: `${row.event_id}.copy` }),
        'the same source task and revision in the namespace',
      );
      // Both keys are per namespace: the same values in another namespace are another row.
      await insert({ ...row, namespace_id: String(BigInt(namespaceId) + 1000n) });
      await db()
        .deleteFrom('weave_inbox')
        .where('namespace_id', '=', String(BigInt(namespaceId) + 1000n))
        .execute();
    });
  });
});
