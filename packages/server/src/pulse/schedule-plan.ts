/**
 * Which slot a due schedule fires now, and where it goes next: the catch-up policy, pure (DB time
 * comes in as `now`).
 *
 * - `none`: fire the latest due slot only if it is on time (at most `ON_TIME_US` late);
 *   slots missed during downtime are skipped and the schedule moves to the first future slot.
 * - `latest`: fire the most recent due slot once, however late; skip the older ones.
 * - `all`: fire the oldest due slot; the next pass fires the following one (bounded batches).
 * - An owed slot (a firing refused with 429 earlier) is fired as is under every policy: a full
 *   queue must not lose it.
 */
import type { Micros } from '../store/values.js';
import type { CronSpec } from './cron.js';
import { nextSlotAfter } from './cron-zone.js';
import type { CatchUpPolicy } from './schedules.js';

/**
 * 60 s: a slot later than this is "missed" (the server was down), not merely picked up by the
 * next runner pass (1 s) or delayed by a slow transaction.
 */
export const ON_TIME_US = 60_000_000n;
const DAY_US = 86_400_000_000n;
/** Look-back windows for the latest due slot: a day, a month, a year, then the whole horizon. */
const WINDOWS_US = [DAY_US, 32n * DAY_US, 400n * DAY_US, 3000n * DAY_US];
/** Slots scanned per window; a day of every-minute slots (1,500 with DST) fits. */
const MAX_SCAN = 5_000;

export interface DueSchedule {
  readonly spec: CronSpec;
  readonly timezone: string;
  readonly catchUp: CatchUpPolicy;
  /** `next_slot_at`, at or before `now`. */
  readonly slotAt: Micros;
  /** The slot was refused with 429 before and is still owed. */
  readonly owed: boolean;
}

export interface SlotPlan {
  /** The slot to fire now, if any. */
  readonly fire: Micros | undefined;
  /** `next_slot_at` after this pass (null: no slot within the horizon). */
  readonly next: Micros | null;
}

export function planSlot(due: DueSchedule, now: Micros): SlotPlan {
  const after = (at: Micros) => nextSlotAfter(due.spec, due.timezone, at) ?? null;
  if (due.owed || due.catchUp === 'all') {
    return { fire: due.slotAt, next: after(due.slotAt) };
  }
  const latest = latestDueSlot(due, now);
  if (due.catchUp === 'latest' || now - latest <= ON_TIME_US) {
    return { fire: latest, next: after(latest) };
  }
  return { fire: undefined, next: after(now) };
}

/** The last slot at or before `now`, scanning forward from `slotAt` in widening windows. */
export function latestDueSlot(due: DueSchedule, now: Micros): Micros {
  for (const window of WINDOWS_US) {
    const from = now - window > due.slotAt - 1n ? now - window : due.slotAt - 1n;
    let last: Micros | undefined;
    let at = from;
    for (let i = 0; i < MAX_SCAN; i++) {
      const next = nextSlotAfter(due.spec, due.timezone, at);
      if (next === undefined || next > now) {
        break;
      }
      last = next;
      at = next;
    }
    if (last !== undefined) {
      return last;
    }
  }
  return due.slotAt;
}
