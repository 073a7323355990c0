/**
 * Wakes long-polling claims on this node as soon as a task of their queue becomes claimable
 * (DESIGN.md §5a "Wake, don't poll"). Writers call `notify(queueId)` from `tx.afterCommit`, so a
 * waiter never wakes before the row is visible. Across nodes there is no signal: waiters re-poll
 * at a bounded interval (claim-with-wait.ts). One instance per server; no module state.
 */
/** An `epoch` reading: of one queue, or of all queues when the queue is not known yet. */
export interface Epoch {
  readonly queueId?: string;
  readonly value: number;
}

export class TaskNotifier {
  readonly #waiters = new Map<string, Set<() => void>>();
  /** Notifies so far, per queue and in all (one small number per queue ever notified). */
  readonly #epochs = new Map<string, number>();
  #allEpoch = 0;
  #closed = false;

  /**
   * Changes with every notify of the queue (of any queue when `queueId` is undefined). A claimer
   * reads it before its claim transaction and passes it to `wait`: a notify that lands between
   * the empty claim and the wait is not lost (it would otherwise cost a whole re-poll interval).
   */
  epoch(queueId?: string): number {
    return queueId === undefined ? this.#allEpoch : (this.#epochs.get(queueId) ?? 0);
  }

  notify(queueId: string): void {
    this.#allEpoch++;
    this.#epochs.set(queueId, this.epoch(queueId) + 1);
    const waiters = this.#waiters.get(queueId);
    if (waiters === undefined) {
      return;
    }
    this.#waiters.delete(queueId);
    for (const wake of waiters) {
      wake();
    }
  }

  /**
   * Resolves on a notify for the queue, after `ms`, on `signal`, or at once when closed — or when
   * the queue was notified since `since` (an `epoch` read earlier).
   */
  wait(
    queueId: string,
    ms: number,
    options: { readonly signal?: AbortSignal; readonly since?: Epoch } = {},
  ): Promise<void> {
    const { signal, since } = options;
    const missed = since !== undefined && this.epoch(since.queueId) !== since.value;
    if (this.#closed || ms <= 0 || signal?.aborted === true || missed) {
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
