/**
 * Group commit across callers (docs/design/hot-path.md §2): calls that arrive on one node while
 * a transaction of their kind is running wait for it, then share the next transaction and its
 * COMMIT (one fsync), up to `maxItems` calls. There is no timer: an idle group starts at the end
 * of the event loop's turn (`#startSoon`), so the added latency is bounded by one transaction of
 * the kind already running; under load the group grows to whatever arrived meanwhile.
 *
 * `run(tx, items)` does the work of every item in the one transaction and settles each on its
 * own (`Settled`): a refused item must leave nothing behind (a savepoint, or checks made before
 * any write), and the others go on. Nothing is acknowledged before the COMMIT. If the shared
 * transaction fails as a whole (after `withTx`'s own retries of deadlocks and lock-wait
 * timeouts), nothing of it was written, and each item runs again alone, so one item's failure is
 * never another's answer.
 */
import type { Database } from './database.js';
import type { Tx } from './with-tx.js';
import { ReturningCallers } from './returning-callers.js';
import { withTx } from './with-tx.js';

export type Settled<R> =
  { readonly ok: true; readonly value: R } | { readonly ok: false; readonly error: unknown };

export interface TxGroupOptions<I = unknown, R = unknown> {
  /** The group's name in metrics (`weave_group_commit_items{group}`). */
  readonly name: string;
  /** Most items in one transaction. */
  readonly maxItems: number;
  /** Transactions of this group running at once (1: items queue behind the running one). */
  readonly maxInFlight: number;
  /**
   * Let the next transaction start once this one has done its work and only its COMMIT is left
   * (the last step before it, after every `beforeCommit` hook), instead of after the COMMIT: the
   * next group's first round trips overlap this one's fsync. Its row locks are still held until
   * then, so the next group waits on them or (SKIP LOCKED) passes them by, as any other.
   */
  readonly overlapCommit?: boolean;
  /**
   * Waiting for returning callers (returning-callers.ts): `callerOf` names an item's caller,
   * `back` says from its outcome whether the caller will call again soon, and a group about to
   * start waits for such callers, unless it is full: each for `windowMs` after its answer, or
   * for what its own turn-around says against the length of the groups (returning-callers.ts,
   * which each group's length is reported to), at most `ReturningCallers.LONGEST_WINDOW_MS`.
   * Without it a group never waits.
   */
  readonly returning?: {
    readonly windowMs: number;
    callerOf(item: I): string | undefined;
    back(result: R): boolean;
  };
  /** Test seam: called with the items of each transaction before it runs. */
  readonly onGroup?: (size: number) => void;
}

interface Waiting<I, R> {
  readonly item: I;
  readonly resolve: (value: R) => void;
  readonly reject: (error: unknown) => void;
}

export class TxGroup<I, R> {
  readonly #database: Database;
  readonly #run: (tx: Tx, items: readonly I[]) => Promise<readonly Settled<R>[]>;
  readonly #options: TxGroupOptions<I, R>;
  readonly #queue: Waiting<I, R>[] = [];
  #inFlight = 0;
  readonly #returning: ReturningCallers | undefined;
  /** While a group waits for returning callers: the timer that ends the wait. */
  #holdTimer: ReturnType<typeof setTimeout> | undefined;
  /** The timer has fired: the group starts, whoever is expected. */
  #holdExpired = false;

  constructor(
    database: Database,
    run: (tx: Tx, items: readonly I[]) => Promise<readonly Settled<R>[]>,
    options: TxGroupOptions<I, R>,
  ) {
    this.#database = database;
    this.#run = run;
    this.#options = options;
    this.#returning =
      options.returning === undefined
        ? undefined
        : new ReturningCallers(options.returning.windowMs);
  }

  /** The item's own outcome, once the transaction it joined has committed. */
  submit(item: I): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.#queue.push({ item, resolve, reject });
      this.#returning?.arrived(this.#options.returning?.callerOf(item), performance.now());
      this.#startSoon();
    });
  }

  #scheduled = false;

  /**
   * An idle group starts at the end of this turn of the event loop (`setImmediate`), not at
   * once: the requests read from the sockets in the same turn join it. On SQLite this is what
   * makes a group at all: a transaction there runs to its COMMIT without giving the loop back,
   * so no request could arrive while it runs. When a transaction ends, the group goes on at once
   * with whatever waited meanwhile (`#pump`).
   */
  #startSoon(): void {
    if (this.#scheduled) {
      return;
    }
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      this.#pump();
    });
  }

  #pump(): void {
    while (this.#inFlight < this.#options.maxInFlight && this.#queue.length > 0) {
      if (this.#holding()) {
        return;
      }
      const batch = this.#queue.splice(0, this.#options.maxItems);
      for (const w of batch) {
        this.#returning?.running(this.#options.returning?.callerOf(w.item));
      }
      this.#inFlight++;
      let released = false;
      const release = () => {
        if (!released) {
          released = true;
          this.#inFlight--;
          this.#pump();
        }
      };
      void this.#runGroup(
        batch,
        this.#options.overlapCommit === true ? release : undefined,
      ).finally(release);
    }
  }

  /**
   * Whether the next group waits for returning callers: it could start, it is not full, and a
   * caller is expected (returning-callers.ts); from the first time it could have started, until
   * the last caller expected then is due. An arrival, a settled group or the timer asks again.
   * The timer ends the wait by itself (`#holdExpired`), not by comparing clocks: a timer may
   * fire a fraction of a millisecond before `performance.now()` says the window is over, and a
   * hold that outlived its timer would wait for an arrival that may never come (every caller
   * already waiting).
   */
  #holding(): boolean {
    if (this.#returning === undefined) {
      return false;
    }
    const full = this.#queue.length >= this.#options.maxItems;
    const until = full || this.#holdExpired ? 0 : this.#returning.expected(performance.now());
    if (until > 0) {
      // Until the last caller expected now is due (set once: a hold is never extended).
      this.#holdTimer ??= setTimeout(() => {
        this.#holdExpired = true;
        this.#pump();
      }, until);
      return true;
    }
    clearTimeout(this.#holdTimer);
    this.#holdTimer = undefined;
    this.#holdExpired = false;
    return false;
  }

  async #runGroup(batch: readonly Waiting<I, R>[], atCommit?: () => void): Promise<void> {
    this.#options.onGroup?.(batch.length);
    const startedAt = performance.now();
    let settled: readonly Settled<R>[];
    try {
      settled = await withTx(this.#database, async (tx) => {
        const out = await this.#run(
          tx,
          batch.map((w) => w.item),
        );
        if (atCommit !== undefined) {
          // Registered last, it re-registers once so that it also runs after the hooks that the
          // other hooks add while they run (Orbit's append): just before the COMMIT itself.
          tx.beforeCommit(() => {
            tx.beforeCommit(() => Promise.resolve(atCommit()));
            return Promise.resolve();
          });
        }
        return out;
      });
    } catch (e: unknown) {
      if (batch.length === 1) {
        this.#answered(batch, []);
        batch[0]?.reject(e);
        return;
      }
      // Nothing of the shared transaction was written: each item again, on its own.
      await Promise.all(batch.map((w) => this.#runGroup([w])));
      return;
    }
    this.#returning?.groupRan(performance.now() - startedAt);
    this.#database.observations.groupCommitted({
      group: this.#options.name,
      items: batch.length,
    });
    this.#answered(batch, settled);
    batch.forEach((w, i) => {
      const outcome = settled[i];
      if (outcome === undefined) {
        w.reject(new Error('a grouped transaction returned no outcome for an item'));
      } else if (outcome.ok) {
        w.resolve(outcome.value);
      } else {
        w.reject(outcome.error);
      }
    });
  }

  /** Records who will be back (returning-callers.ts); a group waiting for them may now start. */
  #answered(batch: readonly Waiting<I, R>[], settled: readonly Settled<R>[]): void {
    const returning = this.#options.returning;
    if (returning === undefined || this.#returning === undefined) {
      return;
    }
    const now = performance.now();
    batch.forEach((w, i) => {
      const outcome = settled[i];
      this.#returning?.answered(
        returning.callerOf(w.item),
        outcome?.ok === true && returning.back(outcome.value),
        now,
      );
    });
    if (this.#holdTimer !== undefined) {
      this.#pump();
    }
  }
}

/**
 * The plain way to settle items one by one: each under its own savepoint, so a refused item's
 * writes (and the commit hooks it registered) are undone and the others go on. A deadlock or
 * lock-wait timeout is not an item's outcome: it took the whole transaction, so it is rethrown
 * for `withTx` to run the group again.
 */
export async function eachInSavepoint<I, R>(
  tx: Tx,
  items: readonly I[],
  run: (tx: Tx, item: I) => Promise<R>,
): Promise<Settled<R>[]> {
  const settled: Settled<R>[] = [];
  for (const item of items) {
    try {
      settled.push({ ok: true, value: await tx.savepoint(() => run(tx, item)) });
    } catch (error: unknown) {
      if (tx.dialect.retryableReason(error) !== undefined) {
        throw error;
      }
      settled.push({ ok: false, error });
    }
  }
  return settled;
}
