/**
 * In-process wake-ups keyed by a string (a queue id, a stream key): writers call `notify(key)`
 * from `tx.afterCommit`, so a waiter never wakes before the row is visible (DESIGN.md §5a
 * "Wake, don't poll"). Nothing crosses nodes: waiters re-check at a bounded interval. One
 * instance per opened database (`database.wakeUps`) and per server for claims; no module state.
 *
 * A waiter reads `epoch(key)` before the read that found nothing and passes it as `since`: a
 * notify that lands between that read and the wait is not lost (it would otherwise cost a whole
 * re-check interval).
 */

/** An `epoch` reading: of one key, or of all keys when the key is not known yet. */
export interface Epoch {
  readonly key?: string;
  readonly value: number;
}

export interface WaitOptions {
  readonly signal?: AbortSignal | undefined;
  readonly since?: Epoch | undefined;
}

export class WakeUps {
  readonly #waiters = new Map<string, Set<() => void>>();
  /** Notifies so far, per key and in all (one small number per key ever notified). */
  readonly #epochs = new Map<string, number>();
  #allEpoch = 0;
  #closed = false;

  /** Changes with every notify of the key (of any key when `key` is undefined). */
  epoch(key?: string): number {
    return key === undefined ? this.#allEpoch : (this.#epochs.get(key) ?? 0);
  }

  /**
   * Wakes the key's waiters: all of them, or the `count` that have waited longest. A task queue
   * passes the number of tasks that became claimable: one submit wakes one long-poll, not every
   * worker of the queue (24 waiting claims each running a claim transaction for one task kept
   * two vCPUs busy and put the p99 pickup at 127 ms, docs/benchmarks.md run 4). Waiters that
   * read the epoch before the notify still see it move and try again at once.
   */
  notify(key: string, count?: number): void {
    this.#allEpoch++;
    this.#epochs.set(key, this.epoch(key) + 1);
    const waiters = this.#waiters.get(key);
    if (waiters === undefined) {
      return;
    }
    const woken = [...waiters].slice(0, count ?? waiters.size);
    for (const wake of woken) {
      wake();
    }
  }

  /**
   * Resolves on a notify for the key, after `ms`, on `signal`, or at once when closed — or when
   * the key was notified since `since` (an `epoch` read earlier).
   */
  wait(key: string, ms: number, options: WaitOptions = {}): Promise<void> {
    const { signal, since } = options;
    const missed = since !== undefined && this.epoch(since.key) !== since.value;
    if (this.#closed || ms <= 0 || signal?.aborted === true || missed) {
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const set = this.#waiters.get(key) ?? new Set<() => void>();
      this.#waiters.set(key, set);
      const wake = () => {
        clearTimeout(timer);
        set.delete(wake);
        if (set.size === 0 && this.#waiters.get(key) === set) {
          this.#waiters.delete(key);
        }
        signal?.removeEventListener('abort', wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      set.add(wake);
      signal?.addEventListener('abort', wake, { once: true });
    });
  }

  /**
   * How many wait on the key now (on any key when `key` is undefined): an observable state, so
   * that a test can wait until a long-poll is waiting instead of sleeping.
   */
  waiterCount(key?: string): number {
    if (key !== undefined) {
      return this.#waiters.get(key)?.size ?? 0;
    }
    let count = 0;
    for (const set of this.#waiters.values()) {
      count += set.size;
    }
    return count;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Shutdown: release every waiter now and let later waits return at once. */
  close(): void {
    this.#closed = true;
    const all = [...this.#waiters.values()];
    this.#waiters.clear();
    for (const set of all) {
      for (const wake of set) {
        wake();
      }
    }
  }
}
