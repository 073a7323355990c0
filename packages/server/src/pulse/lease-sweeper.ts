/**
 * The background loop around `expireLeases`: sweep every `intervalMs`, and again at once while a
 * sweep fills its batch. `stop()` waits for the sweep in flight, so the pool can close after.
 */
import type { Database } from '../store/database.js';
import { startPeriodicLoop } from '../periodic-loop.js';
import type { PeriodicLoop } from '../periodic-loop.js';
import { withTx } from '../store/with-tx.js';
import { expireLeases } from './expire-leases.js';
import type { TaskNotifier } from './task-notifier.js';

/** 1 s: leases are tens of seconds, so this adds at most a few percent to a recovery. */
export const SWEEP_INTERVAL_MS = 1_000;
export const SWEEP_BATCH = 100;

export type LeaseSweeper = PeriodicLoop;

export function startLeaseSweeper(options: {
  readonly database: Database;
  readonly notifier: TaskNotifier;
  readonly intervalMs?: number;
  readonly onError?: (error: unknown) => void;
}): LeaseSweeper {
  return startPeriodicLoop({
    intervalMs: options.intervalMs ?? SWEEP_INTERVAL_MS,
    onError: options.onError,
    async pass() {
      const result = await withTx(options.database, (tx) => expireLeases(tx, SWEEP_BATCH));
      result.requeuedQueueIds.forEach((id) => options.notifier.notify(id));
      return result.settledCount >= SWEEP_BATCH;
    },
  });
}
