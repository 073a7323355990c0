/**
 * The cross-node re-check of waiting claims, once per queue instead of once per waiter. A task
 * committed on another node (or becoming due by time) sends no local wake-up, so long-polls
 * must look again at a bounded interval. Each waiter used to run its own claim transaction every
 * 250 ms, which made idle workers cost in proportion to their number (24 waiting loops ≈ 96 empty
 * claim transactions a second). Now, while a queue has waiters on this node, one probe per
 * interval reads whether it has claimable tasks (a plain indexed read, no transaction, no lock)
 * and wakes that many local waiters (`WakeUps.notify(queue, n)`), who then claim as usual.
 *
 * Waiters still re-check on their own at a longer interval (`claim-with-wait.ts`), so a probe
 * that fails (a lost connection) delays pickup, never loses it.
 */
import type { Database } from '../store/database.js';
import { readNow } from '../store/with-tx.js';
import { readyTasks } from './claim-tasks.js';
import type { QueueRef } from './claim-tasks.js';
import type { TaskNotifier } from './task-notifier.js';

interface Watched {
  readonly queue: QueueRef;
  holders: number;
  intervalMs: number;
  timer: ReturnType<typeof setTimeout> | undefined;
}

export class QueueWatch {
  readonly #database: Database;
  readonly #notifier: TaskNotifier;
  readonly #queues = new Map<string, Watched>();

  constructor(database: Database, notifier: TaskNotifier) {
    this.#database = database;
    this.#notifier = notifier;
  }

  /** Watch the queue while the caller waits; call the returned function when it stops. */
  hold(queue: QueueRef, intervalMs: number): () => void {
    const queueId = queue.id;
    let watched = this.#queues.get(queueId);
    if (watched === undefined) {
      watched = { queue, holders: 0, intervalMs, timer: undefined };
      this.#queues.set(queueId, watched);
    }
    watched.holders++;
    watched.intervalMs = Math.min(watched.intervalMs, intervalMs);
    this.#schedule(queueId, watched);
    let released = false;
    return () => {
      if (released) {
        return;
      }
      released = true;
      const current = this.#queues.get(queueId);
      if (current !== undefined && --current.holders <= 0) {
        clearTimeout(current.timer);
        this.#queues.delete(queueId);
      }
    };
  }

  /** Number of queues watched now (tests). */
  get size(): number {
    return this.#queues.size;
  }

  #schedule(queueId: string, watched: Watched): void {
    if (watched.timer !== undefined) {
      return;
    }
    watched.timer = setTimeout(() => {
      void this.#probe(watched).finally(() => {
        watched.timer = undefined;
        if (this.#queues.get(queueId) === watched && !this.#notifier.closed) {
          this.#schedule(queueId, watched);
        }
      });
    }, watched.intervalMs);
    // Waiting claims keep the process alive, not the watch.
    watched.timer.unref();
  }

  async #probe(watched: Watched): Promise<void> {
    const { queue } = watched;
    try {
      const db = this.#database.kysely;
      const now = await readNow(db, this.#database.dialect);
      const rows = await readyTasks(db, queue, now)
        .select('id')
        // A paused queue hands out nothing: waking its waiters would only cost claims.
        .where((eb) =>
          eb.exists(
            eb
              .selectFrom('queues')
              .select('queues.id')
              .where('queues.namespace_id', '=', queue.namespaceId)
              .where('queues.id', '=', queue.id)
              .where('queues.paused', '=', 0),
          ),
        )
        .limit(Math.max(watched.holders, 1))
        .execute();
      if (rows.length > 0 && !this.#notifier.closed) {
        this.#notifier.notify(queue.id, rows.length);
      }
    } catch {
      // A failed probe (the pool closing, a lost connection) only delays the pickup: waiters
      // re-check on their own as well.
    }
  }
}

/** One watch per notifier (one notifier per server), made on first use. */
const watches = new WeakMap<TaskNotifier, QueueWatch>();

export function queueWatchOf(database: Database, notifier: TaskNotifier): QueueWatch {
  let watch = watches.get(notifier);
  if (watch === undefined) {
    watch = new QueueWatch(database, notifier);
    watches.set(notifier, watch);
  }
  return watch;
}
