/**
 * Bulk instance operations (issue 12 Deliver 5, docs/design/bulk-operations.md) on SQLite and
 * MariaDB over real HTTP with the SDK: a bulk pause, resume and cancel of a filtered set (only
 * matching instances touched, instances started after the creation never), progress read while
 * the runner is held by a hook, an Idempotency-Key replay, `retry_failed` of FAILED instances,
 * a revoked creator stopping the operation, and refusals that write nothing.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { WeaveClient } from '@weave/sdk';
import type { operations } from '@weave/sdk/protocol';
import { forEachDialect } from '../support/databases.js';
import { refusal } from '../support/refusal.js';
import { startTestServer } from '../support/servers.js';
import type { TestServer } from '../support/servers.js';
import { waitFor } from '../support/wait-for.js';

const WAITING = {
  schema_version: 1,
  name: 'waiting',
  steps: [{ id: 'approval', kind: 'SIGNAL', name: 'approve', correlation: 'c' }],
};
const OTHER = { ...WAITING, name: 'other' };
const FRAGILE = {
  schema_version: 1,
  name: 'fragile',
  steps: [
    {
      id: 'charge',
      kind: 'TASK',
      queue: 'q1',
      input: { op: 'charge' },
      retry: { max_attempts: 1 },
    },
  ],
};

/** A hold on the runner: after each instance it waits while `held` is set. */
function runnerHold() {
  let release: (() => void) | undefined;
  let held: Promise<void> | undefined;
  let reached: (() => void) | undefined;
  return {
    hold(): Promise<void> {
      held = new Promise((resolve) => (release = resolve));
      return new Promise((resolve) => (reached = resolve));
    },
    release() {
      held = undefined;
      release?.();
    },
    async afterInstance() {
      reached?.();
      reached = undefined;
      await held;
    },
  };
}

forEachDialect((dialect) => {
  describe(`bulk instance operations on ${dialect}`, () => {
    let t: TestServer;
    let client: WeaveClient;
    const runner = runnerHold();

    before(async () => {
      t = await startTestServer(dialect, {
        scheduleIntervalMs: false,
        operationIntervalMs: 50,
        operationHooks: { afterInstance: () => runner.afterInstance() },
      });
      client = t.admin;
      for (const w of [WAITING, OTHER, FRAGILE]) {
        await client.workflows.publish(w);
      }
    });
    after(async () => {
      runner.release();
      await t.close();
    });

    const db = () => t.server.database.kysely;
    const finished = (id: string) =>
      waitFor(
        async () => {
          const { operation } = await client.operations.get(id);
          return operation.status === 'RUNNING' ? undefined : operation;
        },
        { timeoutMs: 60_000, what: `operation ${id} finished` },
      );
    const instance = async (id: string) => (await client.instances.get(id)).instance;
    const items = async (operationId: string) =>
      (
        await db()
          .selectFrom('weave_instance_operation_items')
          .select(['instance_id', 'outcome', 'error_code'])
          .where('operation_id', '=', operationId)
          .execute()
      ).map((r) => ({ instance: String(r.instance_id), outcome: r.outcome, code: r.error_code }));
    const counters = (op: operations.Operation) => ({
      status: op.status,
      matched: op.matched,
      done: op.done,
      failed: op.failed,
      skipped: op.skipped,
    });
    const operationRows = async () =>
      Number(
        (
          await db()
            .selectFrom('weave_instance_operations')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );

    test('[E4.7] a bulk pause, resume and cancel touch only the matching instances, never one started after the creation; progress is readable while the operation runs; a key replays it', async () => {
      const keyed: string[] = [];
      for (let i = 0; i < 5; i++) {
        keyed.push(
          (await client.instances.start('waiting', { input: {}, business_key: 'k' })).instance.id,
        );
      }
      const unkeyed = (await client.instances.start('waiting', { input: {} })).instance.id;
      const other = (await client.instances.start('other', { input: {}, business_key: 'k' }))
        .instance.id;

      // Pause: held after the first instance, the progress is read, then a late instance is started.
      const reached = runner.hold();
      const { operation: pause } = await client.operations.create(
        { action: 'pause', filter: { workflow: 'waiting', business_key: 'k' }, reason: 'incident' },
        'pause-1',
      );
      assert.equal(pause.status, 'RUNNING');
      await reached;
      const during = (await client.operations.get(pause.id)).operation;
      assert.deepEqual(counters(during), {
        status: 'RUNNING',
        matched: 1,
        done: 1,
        failed: 0,
        skipped: 0,
      });
      const late = (await client.instances.start('waiting', { input: {}, business_key: 'k' }))
        .instance.id;
      runner.release();
      const paused = await finished(pause.id);
      assert.deepEqual(counters(paused), {
        status: 'SUCCEEDED',
        matched: 5,
        done: 5,
        failed: 0,
        skipped: 0,
      });
      assert.ok(paused.finished_at !== undefined);
      for (const id of keyed) {
        assert.equal((await instance(id)).paused, true, `instance ${id} paused`);
      }
      for (const id of [unkeyed, other, late]) {
        assert.equal((await instance(id)).paused, false, `instance ${id} untouched`);
      }
      assert.deepEqual(
        (await items(pause.id)).map((i) => i.instance).sort(),
        [...keyed].sort(),
        'one item per matching instance',
      );
      // The same key is the same operation; the operation is listed.
      const replay = await client.operations.create(
        { action: 'pause', filter: { workflow: 'waiting', business_key: 'k' }, reason: 'incident' },
        'pause-1',
      );
      assert.equal(replay.operation.id, pause.id);
      assert.ok((await client.operations.list()).items.some((op) => op.id === pause.id));

      // Resume the same filter: the late one (now existing, not paused) is unchanged.
      const { operation: resume } = await client.operations.create({
        action: 'resume',
        filter: { workflow: 'waiting', business_key: 'k' },
      });
      assert.deepEqual(counters(await finished(resume.id)), {
        status: 'SUCCEEDED',
        matched: 6,
        done: 6,
        failed: 0,
        skipped: 0,
      });
      assert.deepEqual(
        (await items(resume.id)).filter((i) => i.outcome === 'UNCHANGED').map((i) => i.instance),
        [late],
      );
      for (const id of keyed) {
        assert.equal((await instance(id)).paused, false);
      }

      // Cancel the WAITING ones of the workflow (status as an array).
      const { operation: cancel } = await client.operations.create({
        action: 'cancel',
        filter: { workflow: 'waiting', status: ['WAITING'] },
      });
      assert.deepEqual(counters(await finished(cancel.id)), {
        status: 'SUCCEEDED',
        matched: 7,
        done: 7,
        failed: 0,
        skipped: 0,
      });
      for (const id of [...keyed, unkeyed, late]) {
        assert.equal((await instance(id)).status, 'CANCELLED');
      }
      assert.equal((await instance(other)).status, 'WAITING');
      // A pause of every instance now: the ended ones are skipped, not failed.
      const { operation: again } = await client.operations.create({
        action: 'pause',
        filter: { workflow: 'waiting' },
      });
      const skipped = await finished(again.id);
      assert.deepEqual(counters(skipped), {
        status: 'SUCCEEDED',
        matched: 7,
        done: 0,
        failed: 0,
        skipped: 7,
      });
      assert.ok((await items(again.id)).every((i) => i.code === 'invalid_state'));
    });

    test('[E4.7] [E4.6] retry_failed retries the failing step of every FAILED instance of the filter', async () => {
      const ids: string[] = [];
      for (let i = 0; i < 2; i++) {
        ids.push((await client.instances.start('fragile', { input: {} })).instance.id);
      }
      const fail = async () => {
        const claimed = await waitFor(
          async () => (await client.claimTasks('q1', { worker_id: 'w', max_tasks: 1 })).tasks[0],
          { timeoutMs: 30_000, what: 'a task on q1' },
        );
        await client.completeAttempt(claimed.task_id, claimed.attempt_id, claimed.permit, {
          outcome: 'failed',
          error: { code: 'declined', message: 'declined', retryable: false },
        });
      };
      await fail();
      await fail();
      for (const id of ids) {
        await waitFor(async () => (await instance(id)).status === 'FAILED' || undefined, {
          timeoutMs: 30_000,
          what: `instance ${id} FAILED`,
        });
      }
      const { operation } = await client.operations.create({
        action: 'retry_failed',
        filter: { workflow: 'fragile' },
        reason: 'the card service is back',
      });
      assert.deepEqual(operation.filter.status, ['FAILED'], 'retry_failed walks FAILED instances');
      assert.deepEqual(counters(await finished(operation.id)), {
        status: 'SUCCEEDED',
        matched: 2,
        done: 2,
        failed: 0,
        skipped: 0,
      });
      for (let i = 0; i < 2; i++) {
        const claimed = await waitFor(
          async () => (await client.claimTasks('q1', { worker_id: 'w', max_tasks: 1 })).tasks[0],
          { timeoutMs: 30_000, what: 'a retried task on q1' },
        );
        await client.completeAttempt(claimed.task_id, claimed.attempt_id, claimed.permit, {
          outcome: 'succeeded',
          result: { ok: true },
        });
      }
      for (const id of ids) {
        await waitFor(async () => (await instance(id)).status === 'SUCCEEDED' || undefined, {
          timeoutMs: 30_000,
          what: `instance ${id} SUCCEEDED after the retry`,
        });
      }
    });

    test('[E4.7] the operation acts with its creator’s rights: a revoked credential stops it FAILED', async () => {
      const { key, credential } = await client.createCredential({
        name: 'bulk',
        scopes: ['workflows:control', 'workflows:read'],
      });
      assert.ok(key !== undefined);
      const operator = t.clientFor('ns', key);
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) {
        ids.push(
          (await client.instances.start('other', { input: {}, business_key: 'r' })).instance.id,
        );
      }
      const reached = runner.hold();
      const { operation } = await operator.operations.create({
        action: 'pause',
        filter: { workflow: 'other', business_key: 'r' },
      });
      await reached;
      await client.revokeCredential(credential.id);
      runner.release();
      const stopped = await finished(operation.id);
      assert.equal(stopped.status, 'FAILED');
      assert.equal(stopped.error?.code, 'unauthenticated');
      // Each instance's transaction reads the rights again: the next one stopped it.
      assert.equal(stopped.matched, 1);
      assert.equal((await items(operation.id)).length, 1);
      assert.deepEqual(
        await Promise.all(ids.map(async (id) => (await instance(id)).paused)),
        [false, false, true],
        'only the newest (walked first) was paused',
      );
    });

    test('[E4.7] refusals write nothing: a bad filter (400 with its path), an unknown action, a missing scope (403)', async () => {
      const before = await operationRows();
      const bad = await refusal(
        client.operations.create({
          action: 'cancel',
          filter: { workflow: 'waiting', status: 'WAITING,SLEEPING' },
        }),
      );
      assert.equal(bad.status, 400);
      assert.equal(bad.details.path, '$.filter.status');
      const version = await refusal(
        client.operations.create({ action: 'cancel', filter: { version: 1 } }),
      );
      assert.equal(version.details.path, '$.filter.version');
      const unknown = await refusal(
        client.operations.create({ action: 'cancel', filter: { colour: 'red' } } as never),
      );
      assert.equal(unknown.details.path, '$.filter.colour');
      const action = await refusal(
        client.operations.create({ action: 'delete', filter: {} } as never),
      );
      assert.equal(action.details.path, '$.action');
      const reader = t.clientFor('ns', await t.keyWith('ns', ['workflows:read']));
      const denied = await refusal(reader.operations.create({ action: 'cancel', filter: {} }));
      assert.equal(denied.status, 403);
      assert.equal((await refusal(reader.operations.list())).status, 403);
      assert.equal(await operationRows(), before);
      assert.equal((await refusal(client.operations.get('999999'))).status, 404);
    });
  });
});
