/**
 * Wakes long-polling claims on this node as soon as a task of their queue becomes claimable
 * (DESIGN.md §5a "Wake, don't poll"). Writers call `notify(queueId)` from `tx.afterCommit`, so a
 * waiter never wakes before the row is visible. Across nodes there is no signal: waiters re-poll
 * at a bounded interval (claim-with-wait.ts). One instance per server; no module state.
 */
export class TaskNotifier {
  readonly #waiters = new Map<string, Set<() => void>>();
  #closed = false;

  notify(queueId: string): void {
    const waiters = this.#waiters.get(queueId);
    if (waiters === undefined) {
      return;
    }
    this.#waiters.delete(queueId);
    for (const wake of waiters) {
      wake();
    }
  }

  /** Resolves on a notify for the queue, after `ms`, on `signal`, or at once when closed. */
  wait(queueId: string, ms: number, signal?: AbortSignal): Promise<void> {
    if (this.#closed || ms <= 0 || signal?.aborted === true) {
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const set = this.#waiters.get(queueId) ?? new Set<() => void>();
      this.#waiters.set(queueId, set);
      const wake = () => {
        clearTimeout(timer);
        set.delete(wake);
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

  /** Shutdown: release every waiter now so in-flight long-polls answer and the server can stop. */
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
