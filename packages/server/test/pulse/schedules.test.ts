/**
 * Schedules on both engines (validation is in schedules-http.test.ts): exactly one task per slot (twice-run and concurrent
 * runners included), catch-up after downtime, overlap, a full queue keeping its slot, pause and
 * resume. Time is driven by writing `next_slot_at` (a real slot of the cron), never by sleeping.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { parseCron } from '../../src/pulse/cron.js';
import { nextSlotAfter } from '../../src/pulse/cron-zone.js';
import { DEFAULT_RETRY_POLICY } from '../../src/pulse/retry-policy.js';
import { fireNextDueSchedule } from '../../src/pulse/fire-schedule.js';
import { runDueSchedules } from '../../src/pulse/schedule-runner.js';
import { withTx } from '../../src/store/with-tx.js';
import type { CatchUpPolicy, OverlapPolicy, Schedule } from '../../src/pulse/schedules.js';
import { createSchedule, getSchedule, setSchedulePaused } from '../../src/pulse/schedules.js';
import { forEachDialect } from '../support/databases.js';
import { createPulseFixture } from '../support/pulse.js';
import type { PulseFixture } from '../support/pulse.js';

const MINUTE = 60_000_000n;
const HOUR = 60n * MINUTE;
let seq = 0;

async function makeSchedule(
  f: PulseFixture,
  opts: { cron: string; catchUp?: CatchUpPolicy; overlap?: OverlapPolicy; timezone?: string },
): Promise<Schedule> {
  return f.tx((tx) =>
    createSchedule(tx, f.namespaceId, {
      name: `s${++seq}`,
      queueName: f.queue,
      cron: opts.cron,
      timezone: opts.timezone ?? 'UTC',
      template: {
        input: '{"from":"schedule","n":1.50}',
        idempotent: true,
        priority: 0,
        retry: DEFAULT_RETRY_POLICY,
      },
      overlap: opts.overlap ?? 'allow',
      catchUp: opts.catchUp ?? 'none',
    }),
  );
}

const dbNow = (f: PulseFixture) => f.tx((tx) => Promise.resolve(tx.now));

async function setNextSlot(f: PulseFixture, s: Schedule, at: bigint): Promise<void> {
  await f.tx((tx) =>
    tx.db.updateTable('schedules').set({ next_slot_at: at }).where('id', '=', s.id).execute(),
  );
}

async function firings(f: PulseFixture, s: Schedule) {
  const rows = await f.db.database.kysely
    .selectFrom('schedule_firings')
    .selectAll()
    .where('schedule_id', '=', s.id)
    .orderBy('slot_at')
    .execute();
  return rows.map((r) => ({ slot: BigInt(r.slot_at), outcome: r.outcome, taskId: r.task_id }));
}

const reload = (f: PulseFixture, s: Schedule) =>
  f.tx((tx) => getSchedule(tx, f.namespaceId, s.name));
const fire = (f: PulseFixture, limit?: number) =>
  runDueSchedules(f.db.database, limit === undefined ? {} : { limit });

/**
 * An hourly cron whose minute is 30 minutes away from now, and its last four slots: all of
 * them at least ~29 minutes late (missed, not just due), the next one ~30 minutes ahead.
 */
async function missedHourly(f: PulseFixture) {
  const now = await dbNow(f);
  const minute = new Date(Number(now / 1000n)).getUTCMinutes();
  const cron = `${(minute + 30) % 60} * * * *`;
  const first = nextSlotAfter(parseCron(cron), 'UTC', now - 3n * HOUR - 45n * MINUTE) ?? 0n;
  const slots = [0n, 1n, 2n, 3n].map((h) => first + h * HOUR);
  return { cron, slots, future: first + 4n * HOUR };
}

forEachDialect((dialect) => {
  describe(`schedules on ${dialect}`, () => {
    let f: PulseFixture;
    before(async () => {
      f = await createPulseFixture(dialect, { capacity: 1000 });
    });
    after(() => f.close());

    test('a new schedule waits for its first slot after now, in its time zone', async () => {
      const s = await makeSchedule(f, { cron: '0 9 * * *', timezone: 'Europe/Berlin' });
      const now = await dbNow(f);
      assert.ok(s.nextSlotAt !== null && s.nextSlotAt > now && s.nextSlotAt <= now + 24n * HOUR);
      assert.deepEqual(await fire(f), []);
      await f.tx((tx) => tx.db.deleteFrom('schedules').execute());
    });

    test('firing a due slot creates exactly one task, and running the firing again creates none', async () => {
      const { cron, slots, future } = await missedHourly(f);
      const s = await makeSchedule(f, { cron, catchUp: 'latest' });
      const slot = slots[3] ?? 0n;
      await setNextSlot(f, s, slot);
      const tasksBefore = await f.count('tasks');
      const [result] = await fire(f);
      assert.equal(result?.kind === 'handled' && result.outcome, 'SUBMITTED');
      assert.deepEqual(await fire(f), [], 'a second run (a restart) finds nothing due');
      assert.equal((await f.count('tasks')) - tasksBefore, 1);
      const [firing] = await firings(f, s);
      assert.equal(firing?.slot, slot);
      const task = await f.task(String(firing?.taskId));
      assert.equal(task.input, '{"from":"schedule","n":1.50}');
      const after = await reload(f, s);
      assert.equal(after.nextSlotAt, future);
      assert.equal(after.lastTaskId, task.id);
      assert.equal(after.lastSlotAt, slot);
    });

    test('a stale next_slot_at pointing at a slot already fired submits nothing (unique firing)', async () => {
      const { cron, slots } = await missedHourly(f);
      const s = await makeSchedule(f, { cron, catchUp: 'all' });
      await setNextSlot(f, s, slots[3] ?? 0n);
      await fire(f);
      const tasks = await f.count('tasks');
      await setNextSlot(f, s, slots[3] ?? 0n);
      const [again] = await fire(f);
      assert.equal(again?.kind === 'handled' && again.outcome, 'DUPLICATE');
      assert.equal(await f.count('tasks'), tasks);
      assert.equal((await firings(f, s)).length, 1);
    });

    test('a firing that dies before its commit leaves nothing; the next run fires the slot once', async () => {
      const { cron, slots } = await missedHourly(f);
      const s = await makeSchedule(f, { cron, catchUp: 'latest' });
      await setNextSlot(f, s, slots[3] ?? 0n);
      const tasks = await f.count('tasks');
      const crash = withTx(f.db.database, async (tx) => {
        const fired = await fireNextDueSchedule(tx);
        assert.equal(fired.kind === 'handled' && fired.outcome, 'SUBMITTED');
        throw new Error('process killed before COMMIT');
      });
      await assert.rejects(crash, /killed/);
      assert.equal(await f.count('tasks'), tasks);
      assert.equal((await reload(f, s)).nextSlotAt, slots[3]);
      await fire(f);
      assert.equal((await f.count('tasks')) - tasks, 1);
      assert.deepEqual(
        (await firings(f, s)).map((x) => x.slot),
        [slots[3]],
      );
    });

    test('two runners at once fire a due slot once', async () => {
      const { cron, slots } = await missedHourly(f);
      const s = await makeSchedule(f, { cron, catchUp: 'latest' });
      await setNextSlot(f, s, slots[3] ?? 0n);
      const tasks = await f.count('tasks');
      await Promise.all([fire(f), fire(f), fire(f)]);
      assert.equal((await f.count('tasks')) - tasks, 1);
      assert.deepEqual(
        (await firings(f, s)).map((x) => x.outcome),
        ['SUBMITTED'],
      );
    });

    for (const [policy, fired] of [
      ['none', []],
      ['latest', [3]],
      ['all', [0, 1, 2, 3]],
    ] as const) {
      test(`after downtime, catch_up ${policy} fires slots [${fired.join(', ')}] of four missed`, async () => {
        const { cron, slots, future } = await missedHourly(f);
        const s = await makeSchedule(f, { cron, catchUp: policy });
        await setNextSlot(f, s, slots[0] ?? 0n);
        const tasks = await f.count('tasks');
        if (policy === 'all') {
          assert.equal((await fire(f, 2)).length, 2, 'a pass is a bounded batch');
        }
        await fire(f);
        const got = await firings(f, s);
        assert.deepEqual(
          got.map((x) => x.slot),
          fired.map((i) => slots[i]),
        );
        assert.ok(got.every((x) => x.outcome === 'SUBMITTED'));
        assert.equal((await f.count('tasks')) - tasks, fired.length);
        assert.equal((await reload(f, s)).nextSlotAt, future);
      });
    }

    test('overlap skip fires nothing while the previous task is not terminal; allow fires', async () => {
      const { cron, slots } = await missedHourly(f);
      const skip = await makeSchedule(f, { cron, catchUp: 'all', overlap: 'skip' });
      const allow = await makeSchedule(f, { cron, catchUp: 'all', overlap: 'allow' });
      for (const s of [skip, allow]) {
        await setNextSlot(f, s, slots[1] ?? 0n);
      }
      await fire(f);
      assert.deepEqual(
        (await firings(f, skip)).map((x) => x.outcome),
        ['SUBMITTED', 'SKIPPED', 'SKIPPED'],
      );
      assert.deepEqual(
        (await firings(f, allow)).map((x) => x.outcome),
        ['SUBMITTED', 'SUBMITTED', 'SUBMITTED'],
      );
      const first = (await firings(f, skip))[0];
      await f.tx((tx) =>
        tx.db
          .updateTable('tasks')
          .set({ status: 'SUCCEEDED' })
          .where('id', '=', String(first?.taskId))
          .execute(),
      );
      await setNextSlot(f, skip, slots[0] ?? 0n);
      await fire(f, 1);
      assert.equal((await firings(f, skip))[0]?.outcome, 'SUBMITTED', 'the previous task finished');
    });

    test('a full queue keeps the slot: 429 → retry later → the same slot fires once', async () => {
      const small = await createPulseFixture(dialect, { capacity: 1 });
      try {
        const { cron, slots } = await missedHourly(small);
        const s = await makeSchedule(small, { cron, catchUp: 'latest' });
        const filler = await small.submit();
        await setNextSlot(small, s, slots[3] ?? 0n);
        const [blocked] = await fire(small);
        assert.equal(blocked?.kind === 'handled' && blocked.outcome, 'BLOCKED');
        const waiting = await reload(small, s);
        assert.equal(waiting.nextSlotAt, slots[3]);
        assert.equal(waiting.lastErrorCode, 'queue_full');
        assert.ok(waiting.retryAt !== null);
        assert.deepEqual(await fire(small), [], 'not retried before retry_at');
        assert.equal(await small.count('tasks'), 1);
        await small.tx((tx) =>
          tx.db
            .updateTable('tasks')
            .set({ status: 'SUCCEEDED' })
            .where('id', '=', filler.id)
            .execute(),
        );
        await small.tx((tx) =>
          tx.db
            .updateTable('schedules')
            .set({ retry_at: tx.now - 1n })
            .execute(),
        );
        const [done] = await fire(small);
        assert.equal(done?.kind === 'handled' && done.outcome, 'SUBMITTED');
        assert.deepEqual(
          (await firings(small, s)).map((x) => x.slot),
          [slots[3]],
        );
        assert.equal((await reload(small, s)).retryAt, null);
      } finally {
        await small.close();
      }
    });

    test('a refused firing (429) rolls back only its savepoint: the rest of the transaction stays', async () => {
      const small = await createPulseFixture(dialect, { capacity: 1 });
      try {
        const { cron, slots } = await missedHourly(small);
        const s = await makeSchedule(small, { cron, catchUp: 'latest' });
        const other = await makeSchedule(small, { cron });
        await small.submit();
        await setNextSlot(small, s, slots[3] ?? 0n);
        const result = await small.tx(async (tx) => {
          // A write before the firing, in the same transaction: the refusal must not undo it.
          await tx.db
            .updateTable('schedules')
            .set({ paused: 1 })
            .where('id', '=', other.id)
            .execute();
          return fireNextDueSchedule(tx);
        });
        assert.equal(result.kind === 'handled' && result.outcome, 'BLOCKED');
        assert.equal((await reload(small, other)).paused, true, 'the earlier write stays');
        assert.deepEqual(await firings(small, s), [], 'the firing row is rolled back');
        assert.equal(await small.count('tasks'), 1, 'the refused task is rolled back');
        const blocked = await reload(small, s);
        assert.equal(blocked.lastErrorCode, 'queue_full', 'the block written after it stays');
        assert.ok(blocked.retryAt !== null);
      } finally {
        await small.close();
      }
    });

    test('a paused schedule does not fire; resume starts from the first slot after now', async () => {
      const { cron, slots, future } = await missedHourly(f);
      const s = await makeSchedule(f, { cron, catchUp: 'all' });
      await setNextSlot(f, s, slots[0] ?? 0n);
      const paused = await f.tx((tx) => setSchedulePaused(tx, s, true));
      assert.equal(paused.paused, true);
      assert.deepEqual(
        (await fire(f)).filter((r) => r.kind === 'handled' && r.scheduleId === s.id),
        [],
      );
      const resumed = await f.tx((tx) => setSchedulePaused(tx, paused, false));
      assert.equal(resumed.paused, false);
      assert.equal(resumed.nextSlotAt, future);
      assert.equal(resumed.revision, '3');
    });
  });
});
