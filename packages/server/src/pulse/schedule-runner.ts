/**
 * The background loop that fires due schedules: every `intervalMs`, fire due schedules one
 * transaction each (a slow or blocked schedule never holds back the others' commits), up to
 * `RUN_BATCH` per pass, and run again at once while a pass fills its batch (catch-up `all`
 * drains its missed slots in bounded batches). `stop()` waits for the pass in flight, so the
 * pool can close after it.
 */
import type { Database } from '../store/database.js';
import { startPeriodicLoop } from '../periodic-loop.js';
import type { PeriodicLoop } from '../periodic-loop.js';
import { withTx } from '../store/with-tx.js';
import { fireNextDueSchedule } from './fire-schedule.js';
import { PRUNE_BATCH, pruneFirings } from './prune-firings.js';
import type { FiringResult } from './fire-schedule.js';
import type { TaskNotifier } from './task-notifier.js';

/** 1 s: cron has minute resolution, so a slot fires within a few percent of its minute. */
export const SCHEDULE_INTERVAL_MS = 1_000;
/** Firings per pass before yielding to the timer (and to `stop()`). */
export const RUN_BATCH = 50;
/** How often a runner prunes old firing records. */
export const PRUNE_INTERVAL_MS = 60_000;

export type ScheduleRunner = PeriodicLoop;

/**
 * One pass: fire up to `limit` due schedules. Exported for tests, which drive time by writing
 * `next_slot_at` and then call this directly.
 */
export async function runDueSchedules(
  database: Database,
  options: { limit?: number; notifier?: TaskNotifier; isStopped?: () => boolean } = {},
): Promise<FiringResult[]> {
  const results: FiringResult[] = [];
  const limit = options.limit ?? RUN_BATCH;
  while (results.length < limit && options.isStopped?.() !== true) {
    const result = await withTx(database, (tx) => fireNextDueSchedule(tx));
    if (result.kind === 'idle') {
      break;
    }
    results.push(result);
    if (result.queueId !== undefined) {
      options.notifier?.notify(result.queueId, 1);
    }
  }
  return results;
}

export function startScheduleRunner(options: {
  readonly database: Database;
  readonly notifier: TaskNotifier;
  readonly intervalMs?: number;
  readonly onError?: (error: unknown) => void;
}): ScheduleRunner {
  let prunedAt = 0;
  return startPeriodicLoop({
    intervalMs: options.intervalMs ?? SCHEDULE_INTERVAL_MS,
    onError: options.onError,
    async pass(isStopped) {
      const results = await runDueSchedules(options.database, {
        notifier: options.notifier,
        isStopped,
      });
      let pruned = 0;
      if (Date.now() - prunedAt >= PRUNE_INTERVAL_MS) {
        pruned = await withTx(options.database, (tx) => pruneFirings(tx));
        prunedAt = pruned >= PRUNE_BATCH ? 0 : Date.now();
      }
      return results.length >= RUN_BATCH || pruned >= PRUNE_BATCH;
    },
  });
}
