/**
 * `GET /tasks/{id}/source` (API.md "Pulse") and the retention of schedule firing records.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { pruneFirings } from '../../src/pulse/prune-firings.js';
import { runDueSchedules } from '../../src/pulse/schedule-runner.js';
import { withTx } from '../../src/store/with-tx.js';
import { forEachDialect } from '../support/databases.js';
import { startTestServer } from '../support/servers.js';
import type { TestServer } from '../support/servers.js';

forEachDialect((dialect) => {
  describe(`task sources and firing retention on ${dialect}`, () => {
    let t: TestServer;
    before(async () => {
      t = await startTestServer(dialect, { sweepIntervalMs: false, scheduleIntervalMs: false });
    });
    after(() => t.close());

    const db = () => t.server.database;

    async function fireEveryMinute(name: string) {
      await t.admin.createSchedule({ name, queue: 'q1', cron: '* * * * *', task: { input: {} } });
      await withTx(db(), (tx) =>
        tx.db
          .updateTable('schedules')
          .set({ next_slot_at: tx.now - 30_000_000n })
          .where('name', '=', name)
          .execute(),
      );
      const [fired] = await runDueSchedules(db());
      assert.equal(fired?.kind, 'handled');
      const schedule = await t.admin.getSchedule(name);
      const taskId = (schedule.schedule as { last_task_id: string }).last_task_id;
      return { taskId, slotAt: (schedule.schedule as { last_slot_at: string }).last_slot_at };
    }

    test('a submitted task comes from a submit; a fired one names its schedule and slot', async () => {
      const { task } = await t.admin.submitTask('q1', { input: {} });
      assert.deepEqual(await t.admin.request('GET', `/tasks/${task.id}/source`), {
        task_id: task.id,
        source: { kind: 'submit' },
      });
      const { taskId, slotAt } = await fireEveryMinute('minutely');
      assert.deepEqual(await t.admin.request('GET', `/tasks/${taskId}/source`), {
        task_id: taskId,
        source: { kind: 'schedule', schedule: 'minutely', slot_at: slotAt },
      });
      await assert.rejects(t.admin.request('GET', '/tasks/999999/source'), { status: 404 });
      await t.admin.createQueue({ name: 'q9', application: 'app' });
      const limited = await t.admin.createCredential({
        name: 'limited',
        scopes: ['tasks:read'],
        queues: ['q9'],
      });
      const other = t.clientFor('ns', limited.key ?? '');
      await assert.rejects(other.request('GET', `/tasks/${taskId}/source`), { status: 403 });
    });

    test('firing records older than the retention period are pruned, oldest first, in batches', async () => {
      const { taskId } = await fireEveryMinute('pruned');
      const count = async () =>
        Number(
          (
            await db()
              .kysely.selectFrom('schedule_firings')
              .select((eb) => eb.fn.countAll().as('n'))
              .executeTakeFirstOrThrow()
          ).n,
        );
      const before = await count();
      assert.ok(before >= 2);
      assert.equal(await withTx(db(), (tx) => pruneFirings(tx)), 0, 'nothing is 30 days old');
      await withTx(db(), (tx) =>
        tx.db
          .updateTable('schedule_firings')
          .set({ created_at: tx.now - 31n * 86_400_000_000n })
          .execute(),
      );
      assert.equal(await withTx(db(), (tx) => pruneFirings(tx, undefined, 1)), 1);
      assert.equal(await count(), before - 1);
      assert.equal(await withTx(db(), (tx) => pruneFirings(tx)), before - 1);
      assert.equal(await count(), 0);
      // The task stays; its source is now unknown as a schedule slot.
      const source = await t.admin.request<{ source: { kind: string } }>(
        'GET',
        `/tasks/${taskId}/source`,
      );
      assert.equal(source.source.kind, 'submit');
    });
  });
});
