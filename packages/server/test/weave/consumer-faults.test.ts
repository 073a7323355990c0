/**
 * What the inbox consumer refuses to execute (E2.4, E2.5) and what it does when a round cannot be
 * planned (PLAN_REJECTED after its retries), and how the clock treats a disabled application
 * (A5.2) — on SQLite and MariaDB. Faulty rows are planted directly: the producer never writes
 * them (its own refusals are E2.8's tests).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { WeaveClient } from '@weave/sdk';
import { MAX_FAILURES } from '../../src/weave/runtime/inbox-consumer.js';
import { forEachDialect } from '../support/databases.js';
import { startTestServer } from '../support/servers.js';
import type { TestServer } from '../support/servers.js';
import { waitFor } from '../support/wait-for.js';

const ONE_TASK = {
  schema_version: 1,
  name: 'one-task',
  steps: [{ id: 'work', kind: 'TASK', queue: 'q1', input: {} }],
};

const NAP = {
  schema_version: 1,
  name: 'nap',
  steps: [{ id: 'nap', kind: 'TIMER', duration: 'PT1S' }],
};

const NAP_SHORT_LIFE = {
  schema_version: 1,
  name: 'nap-short-life',
  timeout: 'PT1S',
  steps: [{ id: 'nap', kind: 'TIMER', duration: 'PT1H' }],
};

forEachDialect((dialect) => {
  describe(`inbox faults and the disabled application on ${dialect}`, () => {
    let t: TestServer;
    let client: WeaveClient;

    before(async () => {
      t = await startTestServer(dialect, { sweepIntervalMs: false, scheduleIntervalMs: false });
      client = t.admin;
      for (const w of [ONE_TASK, NAP, NAP_SHORT_LIFE]) {
        await client.workflows.publish(w);
      }
    });
    after(() => t.close());

    const db = () => t.server.database.kysely;

    /** An instance whose TASK waits (no worker), and the ids a planted row refers to. */
    async function waitingTask() {
      const { instance } = await client.instances.start('one-task', { input: {} });
      const activation = await db()
        .selectFrom('weave_activations')
        .select(['id', 'task_id', 'namespace_id'])
        .where('instance_id', '=', instance.id)
        .where('step_id', '=', 'work')
        .executeTakeFirstOrThrow();
      return { instanceId: instance.id, ...activation };
    }

    let planted = 0;
    async function plant(
      at: Awaited<ReturnType<typeof waitingTask>>,
      row: {
        snapshot: string | null;
        source_task_id?: string | null;
        source_activation_id?: string | null;
        source_revision?: number | null;
        lease?: { owner: string; until: number; generation: number };
      },
    ): Promise<string> {
      planted += 1;
      const inserted = await db()
        .insertInto('weave_inbox')
        .values({
          namespace_id: at.namespace_id,
          instance_id: at.instanceId,
          event_id: `planted.${planted}`,
          type: 'task.succeeded',
          source_task_id: row.source_task_id === undefined ? at.task_id : row.source_task_id,
          source_activation_id:
            row.source_activation_id === undefined ? at.id : row.source_activation_id,
          source_revision: row.source_revision === undefined ? 90 + planted : row.source_revision,
          source_round_id: null,
          source_step_revision: null,
          snapshot: row.snapshot,
          state: 'PENDING',
          outcome: null,
          available_at: 0,
          lease_owner: row.lease?.owner ?? null,
          lease_until: row.lease?.until ?? null,
          ...(row.lease === undefined ? {} : { generation: row.lease.generation }),
          error_code: null,
          created_at: 0,
          processed_at: null,
        })
        .executeTakeFirstOrThrow();
      return String(inserted.insertId);
    }

    const inboxRow = (id: string) =>
      waitFor(
        async () => {
          const row = await db()
            .selectFrom('weave_inbox')
            .selectAll()
            .where('id', '=', id)
            .executeTakeFirstOrThrow();
          return row.state === 'PENDING' ? undefined : row;
        },
        { timeoutMs: 15_000 },
      );
    const stepStatus = async (instanceId: string) =>
      (
        await db()
          .selectFrom('weave_steps')
          .select('status')
          .where('instance_id', '=', instanceId)
          .where('step_id', '=', 'work')
          .executeTakeFirstOrThrow()
      ).status;

    test('[E2.4] a snapshot that is not valid JSON, or names another task, is QUARANTINED SNAPSHOT_INVALID and never executed', async () => {
      const at = await waitingTask();
      const broken = await plant(at, { snapshot: '{"schema_version":1,' });
      const foreign = await plant(at, {
        snapshot: `{"schema_version":1,"task_id":"999999","status":"SUCCEEDED","revision":"1","result":{}}`,
      });
      for (const id of [broken, foreign]) {
        const row = await inboxRow(id);
        assert.equal(row.state, 'QUARANTINED');
        assert.equal(row.error_code, 'SNAPSHOT_INVALID');
        assert.equal(row.outcome, null);
      }
      assert.equal(await stepStatus(at.instanceId), 'ACTIVE', 'the task result was not applied');
      const { instance } = await client.instances.get(at.instanceId);
      assert.equal(instance.status, 'RUNNING');
      const history = await client.instances.history(at.instanceId);
      assert.equal(history.events.filter((e) => e.type === 'result.quarantined').length, 2);
    });

    test('[E2.5] a row without its frozen source is QUARANTINED LEGACY_RESULT_UNVERIFIED, lease cleared, generation kept', async () => {
      const at = await waitingTask();
      const snapshot = `{"schema_version":1,"task_id":"${String(at.task_id)}","status":"SUCCEEDED","revision":"1","result":{}}`;
      // Each lacks one frozen source field; each was leased by a node that died (the lease long
      // expired) and had been taken before (generation 7).
      const lease = (n: number) => ({ owner: `dead-node-${n}`, until: 1, generation: 7 });
      const ids = [
        await plant(at, { snapshot: null, lease: lease(1) }),
        await plant(at, { snapshot, source_task_id: null, lease: lease(2) }),
        await plant(at, { snapshot, source_activation_id: null, lease: lease(3) }),
        await plant(at, { snapshot, source_revision: null, lease: lease(4) }),
      ];
      for (const id of ids) {
        const row = await inboxRow(id);
        assert.equal(row.state, 'QUARANTINED');
        assert.equal(row.error_code, 'LEGACY_RESULT_UNVERIFIED');
        assert.equal(row.lease_owner, null);
        assert.equal(row.lease_until, null);
        assert.equal(Number(row.generation), 7);
        assert.equal(row.outcome, null);
      }
      assert.equal(await stepStatus(at.instanceId), 'ACTIVE', 'nothing rebuilt from the task');
    });

    test('[E2.4] a round that cannot be planned backs off and is QUARANTINED PLAN_REJECTED after its retries; the instance is NEEDS_REVIEW', async () => {
      const at = await waitingTask();
      // The pinned version no longer verifies: every consume of the instance throws.
      await db()
        .updateTable('weave_instances')
        .set({ digest: '0'.repeat(64) })
        .where('id', '=', at.instanceId)
        .execute();
      const id = await plant(at, {
        snapshot: `{"schema_version":1,"task_id":"${String(at.task_id)}","status":"SUCCEEDED","revision":"91","result":{}}`,
      });
      const row = await waitFor(
        async () => {
          const r = await db()
            .selectFrom('weave_inbox')
            .selectAll()
            .where('id', '=', id)
            .executeTakeFirstOrThrow();
          return r.state === 'PENDING' ? undefined : r;
        },
        { timeoutMs: 15_000 },
      );
      assert.equal(row.state, 'QUARANTINED');
      assert.equal(row.error_code, 'PLAN_REJECTED');
      assert.equal(Number(row.failures), MAX_FAILURES);
      assert.ok(Number(row.generation) >= MAX_FAILURES, 'every failed hand-over counted');
      assert.equal(await stepStatus(at.instanceId), 'ACTIVE');
      // What no round can apply is seen: the instance is NEEDS_REVIEW, its history says why.
      const held = await db()
        .selectFrom('weave_instances')
        .select('status')
        .where('id', '=', at.instanceId)
        .executeTakeFirstOrThrow();
      assert.equal(held.status, 'NEEDS_REVIEW');
      const entries = await db()
        .selectFrom('weave_history')
        .select('details')
        .where('instance_id', '=', at.instanceId)
        .where('type', '=', 'instance.needs_review')
        .execute();
      assert.deepEqual(
        entries.map((e) => e.details),
        ['{"error_code":"internal"}'],
      );
    });

    test('[A5.2] a disabled application: its timers do not fire until it is enabled, its deadlines still do', async () => {
      const { instance: napping } = await client.instances.start('nap', { input: {} });
      const { instance: mortal } = await client.instances.start('nap-short-life', { input: {} });
      await client.updateApplication('app', { disabled: true });
      try {
        const timedOut = await waitFor(
          async () => {
            const { instance } = await client.instances.get(mortal.id);
            return instance.status === 'TIMED_OUT' ? instance : undefined;
          },
          { timeoutMs: 10_000 },
        );
        assert.equal(timedOut.error?.code, 'deadline_exceeded');
        const wait = await db()
          .selectFrom('weave_waits')
          .select(['state', 'due_at'])
          .where('instance_id', '=', napping.id)
          .executeTakeFirstOrThrow();
        // Let the timer be a second past due: several scans have seen it by then.
        await waitFor(
          () =>
            Promise.resolve(
              BigInt(Date.now()) * 1000n > BigInt(wait.due_at) + 1_000_000n ? true : undefined,
            ),
          { timeoutMs: 5_000 },
        );
        const still = await db()
          .selectFrom('weave_waits')
          .select('state')
          .where('instance_id', '=', napping.id)
          .executeTakeFirstOrThrow();
        assert.equal(still.state, 'WAITING', 'a disabled application gets no new work');
      } finally {
        await client.updateApplication('app', { disabled: false });
      }
      const done = await waitFor(
        async () => {
          const { instance } = await client.instances.get(napping.id);
          return instance.status === 'SUCCEEDED' ? instance : undefined;
        },
        { timeoutMs: 10_000 },
      );
      assert.equal(done.status, 'SUCCEEDED');
    });

    test("[A5.2] [A5.1] what a disabled application holds does not hide other timers: 60 held timers, and another application's still fires", async () => {
      await client.createApplication({ name: 'held' });
      await client.workflows.publish({
        schema_version: 1,
        name: 'blink',
        // Long enough for the 60 Starts to finish before the first falls due.
        steps: [{ id: 'blink', kind: 'TIMER', duration: 'PT3S' }],
      });
      const held: string[] = [];
      for (let i = 0; i < 60; i++) {
        const { instance } = await client.instances.start('blink', {
          input: {},
          application: 'held',
        });
        held.push(instance.id);
      }
      await client.updateApplication('held', { disabled: true });
      try {
        // More held timers than one discovery page (50), all due before the one below.
        await waitFor(
          async () => {
            const rows = await db()
              .selectFrom('weave_waits')
              .select('due_at')
              .where('instance_id', 'in', held)
              .where('state', '=', 'WAITING')
              .execute();
            const now = BigInt(Date.now()) * 1000n;
            return rows.length === 60 && rows.every((r) => BigInt(r.due_at) < now)
              ? true
              : undefined;
          },
          { timeoutMs: 20_000, what: 'the held timers due' },
        );
        const { instance } = await client.instances.start('blink', {
          input: {},
          application: 'app',
        });
        const done = await waitFor(
          async () => {
            const { instance: now } = await client.instances.get(instance.id);
            return now.status === 'SUCCEEDED' ? now : undefined;
          },
          { timeoutMs: 15_000, what: "the other application's timer" },
        );
        assert.equal(done.status, 'SUCCEEDED');
        const still = await client.instances.get(held[0] ?? '0');
        assert.equal(still.instance.status, 'WAITING', 'the held ones still wait');
      } finally {
        await client.updateApplication('held', { disabled: false });
      }
    });
  });
});
