/**
 * One firing, in the caller's transaction: claim the most overdue schedule (FOR UPDATE SKIP
 * LOCKED, so nodes share the work), plan its slot (`schedule-plan.ts`), submit the task through
 * the ordinary submit path (quota, capacity, limits), record the firing and advance
 * `next_slot_at` — all in one commit, so a crash leaves either all of it or none of it.
 *
 * Idempotency identity: the `schedule_firings` row, unique on (schedule_id, slot_at). It is
 * checked and inserted before the submit; even if a stale `next_slot_at` ever pointed at a slot
 * again, the slot would not submit twice.
 *
 * 429 (quota_exceeded / queue_full): the submit is rolled back to a savepoint, the slot stays in
 * `next_slot_at` and `retry_at` = now + `BLOCKED_RETRY_US`; the next attempt fires the same slot.
 *
 * Lock order: schedule row → (submit) application quota row → task rows.
 */
import { isWeaveError } from '../errors.js';
import type { Micros } from '../store/values.js';
import { toId } from '../store/values.js';
import type { Tx } from '../store/with-tx.js';
import { parseCron } from './cron.js';
import { planSlot } from './schedule-plan.js';
import type { Schedule } from './schedules.js';
import { toSchedule } from './schedules.js';
import { submitTask } from './submit-task.js';
import { isTerminal } from './task-states.js';
import type { StoredTaskStatus } from './task-states.js';

/** 5 s: how long a slot refused with 429 waits before the same slot is tried again. */
export const BLOCKED_RETRY_US = 5_000_000n;

export type FiringOutcome = 'SUBMITTED' | 'SKIPPED' | 'FAILED' | 'DUPLICATE' | 'MISSED' | 'BLOCKED';

export type FiringResult =
  | { readonly kind: 'idle' }
  | {
      readonly kind: 'handled';
      readonly scheduleId: string;
      readonly outcome: FiringOutcome;
      readonly slotAt: Micros | undefined;
      /** The queue that received a task (wake its claimers after commit). */
      readonly queueId: string | undefined;
    };

/** Handles the most overdue unlocked due schedule, if any. */
export async function fireNextDueSchedule(tx: Tx): Promise<FiringResult> {
  const schedule = await claimDueSchedule(tx);
  if (schedule === undefined || schedule.nextSlotAt === null) {
    return { kind: 'idle' };
  }
  const plan = planSlot(
    {
      spec: parseCron(schedule.cron),
      timezone: schedule.timezone,
      catchUp: schedule.catchUp,
      slotAt: schedule.nextSlotAt,
      owed: schedule.retryAt !== null,
    },
    tx.now,
  );
  const base = { kind: 'handled', scheduleId: schedule.id, slotAt: plan.fire } as const;
  if (plan.fire === undefined) {
    await advance(tx, schedule, { next: plan.next });
    return { ...base, outcome: 'MISSED', queueId: undefined };
  }
  const fired = await fireSlot(tx, schedule, plan.fire);
  if (fired.outcome === 'BLOCKED') {
    await block(tx, schedule, { slotAt: plan.fire, code: fired.errorCode });
  } else {
    await advance(tx, schedule, { next: plan.next, slotAt: plan.fire, ...fired });
  }
  const queueId = fired.outcome === 'SUBMITTED' ? schedule.queueId : undefined;
  return { ...base, outcome: fired.outcome, queueId };
}

/**
 * SKIP LOCKED: a schedule another node is firing is left to it. The queue name is read after
 * the lock, without joining, so the locking read touches the schedule row only.
 */
async function claimDueSchedule(tx: Tx): Promise<Schedule | undefined> {
  const query = tx.db
    .selectFrom('schedules')
    .selectAll()
    .where('paused', '=', 0)
    .where('next_slot_at', '<=', tx.now)
    .where((eb) => eb.or([eb('retry_at', 'is', null), eb('retry_at', '<=', tx.now)]))
    .orderBy('next_slot_at')
    .limit(1);
  const row = await tx.dialect.forUpdateSkipLocked(query).executeTakeFirst();
  if (row === undefined) {
    return undefined;
  }
  const queue = await tx.db
    .selectFrom('queues')
    .select('name')
    .where('id', '=', row.queue_id)
    .executeTakeFirst();
  return toSchedule(row, queue?.name ?? '');
}

interface Fired {
  readonly outcome: Exclude<FiringOutcome, 'MISSED'>;
  readonly taskId?: string;
  readonly errorCode?: string;
}

async function fireSlot(tx: Tx, schedule: Schedule, slotAt: Micros): Promise<Fired> {
  const seen = await tx.db
    .selectFrom('schedule_firings')
    .select('id')
    .where('schedule_id', '=', schedule.id)
    .where('slot_at', '=', slotAt)
    .executeTakeFirst();
  if (seen !== undefined) {
    return { outcome: 'DUPLICATE' };
  }
  if (schedule.overlap === 'skip' && (await previousStillActive(tx, schedule))) {
    await recordFiring(tx, schedule, { slotAt, outcome: 'SKIPPED' });
    return { outcome: 'SKIPPED' };
  }
  return submitForSlot(tx, schedule, slotAt);
}

async function submitForSlot(tx: Tx, schedule: Schedule, slotAt: Micros): Promise<Fired> {
  try {
    return await tx.savepoint(async (): Promise<Fired> => {
      const firingId = await recordFiring(tx, schedule, { slotAt, outcome: 'SUBMITTED' });
      const created = await submitTask(tx, {
        ...schedule.template,
        namespaceId: schedule.namespaceId,
        queueName: schedule.queueName,
      });
      await tx.db
        .updateTable('schedule_firings')
        .set({ task_id: created.task.id })
        .where('id', '=', firingId)
        .execute();
      return { outcome: 'SUBMITTED', taskId: created.task.id };
    });
  } catch (e: unknown) {
    // The savepoint has undone the firing row and the submit (and its commit hooks). Only
    // refusals are handled here; a driver error fails the pass and withTx re-runs it.
    if (!isWeaveError(e)) {
      throw e;
    }
    if (e.code === 'quota_exceeded' || e.code === 'queue_full') {
      return { outcome: 'BLOCKED', errorCode: e.code };
    }
    // Anything else (the queue is gone, …) would fail the same way forever: record and move on.
    await recordFiring(tx, schedule, { slotAt, outcome: 'FAILED', errorCode: e.code });
    return { outcome: 'FAILED', errorCode: e.code };
  }
}

async function previousStillActive(tx: Tx, schedule: Schedule): Promise<boolean> {
  if (schedule.lastTaskId === null) {
    return false;
  }
  const task = await tx.db
    .selectFrom('tasks')
    .select('status')
    .where('id', '=', schedule.lastTaskId)
    .executeTakeFirst();
  return task !== undefined && !isTerminal(task.status as StoredTaskStatus);
}

async function recordFiring(
  tx: Tx,
  schedule: Schedule,
  firing: { slotAt: Micros; outcome: string; errorCode?: string },
): Promise<string> {
  const inserted = await tx.db
    .insertInto('schedule_firings')
    .values({
      namespace_id: schedule.namespaceId,
      schedule_id: schedule.id,
      slot_at: firing.slotAt,
      outcome: firing.outcome,
      error_code: firing.errorCode ?? null,
      created_at: tx.now,
    })
    .executeTakeFirstOrThrow();
  return toId(inserted.insertId ?? 0n);
}

async function advance(
  tx: Tx,
  schedule: Schedule,
  to: { next: Micros | null; slotAt?: Micros; taskId?: string; errorCode?: string },
): Promise<void> {
  await tx.db
    .updateTable('schedules')
    .set((eb) => ({
      next_slot_at: to.next,
      retry_at: null,
      ...(to.slotAt === undefined ? {} : { last_slot_at: to.slotAt }),
      ...(to.taskId === undefined ? {} : { last_task_id: to.taskId }),
      last_error_code: to.errorCode ?? null,
      revision: eb('revision', '+', 1),
      updated_at: tx.now,
    }))
    .where('id', '=', schedule.id)
    .execute();
}

/** The slot stays owed: `next_slot_at` holds it and `retry_at` delays the next try. */
async function block(
  tx: Tx,
  schedule: Schedule,
  at: { slotAt: Micros; code: string | undefined },
): Promise<void> {
  await tx.db
    .updateTable('schedules')
    .set((eb) => ({
      next_slot_at: at.slotAt,
      retry_at: tx.now + BLOCKED_RETRY_US,
      last_error_code: at.code ?? null,
      revision: eb('revision', '+', 1),
      updated_at: tx.now,
    }))
    .where('id', '=', schedule.id)
    .execute();
}
