/**
 * In-process wake-ups keyed by a string (a stream id, a queue id): writers call `notify(key)`
 * from `tx.afterCommit`, so a waiter never wakes before the row is visible. Nothing crosses
 * nodes: waiters re-check at a bounded interval. One instance per opened database.
 */
export class Signals {
  readonly #waiters = new Map<string, Set<() => void>>();
  #closed = false;

  notify(key: string): void {
    const waiters = this.#waiters.get(key);
    if (waiters === undefined) {
      return;
    }
    this.#waiters.delete(key);
    for (const wake of waiters) {
      wake();
    }
  }

  /** Resolves on a notify for the key, after `ms`, on `signal`, or at once when closed. */
  wait(key: string, ms: number, signal?: AbortSignal): Promise<void> {
    if (this.#closed || ms <= 0 || signal?.aborted === true) {
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

  get closed(): boolean {
    return this.#closed;
  }

  /** Wake every waiter now and let later waits return at once (shutdown). */
  close(): void {
    this.#closed = true;
    for (const key of [...this.#waiters.keys()]) {
      this.notify(key);
    }
  }
}
