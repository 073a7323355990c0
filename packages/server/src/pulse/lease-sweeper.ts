/**
 * The background loop around `expireLeases`: sweep every `intervalMs`, and again at once while a
 * sweep fills its batch. `stop()` waits for the sweep in flight, so the pool can close after.
 */
import type { Database } from '../store/database.js';
import { withTx } from '../store/with-tx.js';
import { expireLeases } from './expire-leases.js';
import type { TaskNotifier } from './task-notifier.js';

/** 1 s: leases are tens of seconds, so this adds at most a few percent to a recovery. */
export const SWEEP_INTERVAL_MS = 1_000;
export const SWEEP_BATCH = 100;

export interface LeaseSweeper {
  stop(): Promise<void>;
}

export function startLeaseSweeper(options: {
  readonly database: Database;
  readonly notifier: TaskNotifier;
  readonly intervalMs?: number;
  readonly onError?: (error: unknown) => void;
}): LeaseSweeper {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const sweep = async (): Promise<void> => {
    try {
      const result = await withTx(options.database, (tx) => expireLeases(tx, SWEEP_BATCH));
      result.requeuedQueueIds.forEach((id) => options.notifier.notify(id));
      if (result.settledCount >= SWEEP_BATCH && !stopped) {
        return sweep();
      }
    } catch (e: unknown) {
      options.onError?.(e);
    }
  };
  const schedule = () => {
    if (stopped) {
      return;
    }
    timer = setTimeout(() => {
      running = sweep().then(schedule);
    }, options.intervalMs ?? SWEEP_INTERVAL_MS);
  };
  schedule();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
