/**
 * Which callers a group (tx-group.ts) should wait a moment for: the ones that just got work and
 * will be back with its results before long. A worker handed tasks by a grouped call reports
 * them in its next call; when its handler is quick, that call comes a few milliseconds after the
 * answer. Without waiting, the workers of a node fall out of step — one worker's call runs while
 * another's waits, then the other way round — and every transaction holds one call, its commit
 * and its statements paid for a handful of jobs (docs/design/hot-path.md §8).
 *
 * A caller is tracked from an answer that says it will come back (`back`) until it arrives
 * again: while its call runs in a transaction it is `running`; once answered, it is expected for
 * its window after the answer and forgotten after that. The window follows the caller's own
 * turn-around (answer to next arrival, a moving average; docs/design/hot-path.md §20): a caller
 * not yet measured, or one whose handler takes longer, gets the default (`windowMs`); one that
 * comes back quickly (on average within `QUICK_MS`) three times its average, from the default up
 * to `MAX_WINDOW_MS`, so that the stragglers among quick workers on a busy machine are waited
 * for too (a fixed window that long would hold the others for slower workers that cannot make
 * it, and cost them more than the shared commit saves).
 *
 * "Quick" and the cap also follow the group's own length (`groupRan`, a moving average;
 * docs/design/hot-path.md §25): a caller that misses a group waits for the whole next one, so
 * waiting up to a group's length for a caller that comes back within it costs the others no more
 * than missing it would cost the caller, and the group carries its jobs for the same fixed cost.
 * On a slow machine a no-op worker's turn-around grows past `QUICK_MS` with the groups, and
 * without this the groups shrank as the machine slowed. Never beyond `LONGEST_WINDOW_MS`.
 */
export class ReturningCallers {
  readonly #windowMs: number;
  /** Caller → 'queued' (arrived, waiting to run), 'running', or the time it was answered. */
  readonly #state = new Map<string, 'queued' | 'running' | number>();
  /** Caller → when it was last answered with work, until it arrives (for its turn-around). */
  readonly #answeredAt = new Map<string, number>();
  /** Caller → its turn-around in ms, a moving average. */
  readonly #turnaround = new Map<string, number>();
  /** How long a group takes, start to answers, in ms: a moving average. */
  #groupMs: number | undefined;

  constructor(windowMs: number) {
    this.#windowMs = windowMs;
  }

  /** At most this many callers are tracked (a caller key comes from the request). */
  static readonly MAX_TRACKED = 10_000;
  /** A caller that comes back within this (on average) is waited for beyond the default. */
  static readonly QUICK_MS = 8;
  /** The longest a quick caller is waited for after its answer, unless groups take longer. */
  static readonly MAX_WINDOW_MS = 12;
  /** The longest any caller is waited for after its answer, however long the groups take. */
  static readonly LONGEST_WINDOW_MS = 30;

  /** A group ran for `ms`, from its start to its answers. */
  groupRan(ms: number): void {
    this.#groupMs = movingAverage(this.#groupMs, ms);
  }

  /** The caller's call arrived at `now`. */
  arrived(caller: string | undefined, now: number): void {
    if (caller === undefined) {
      return;
    }
    const at = this.#answeredAt.get(caller);
    if (at !== undefined) {
      this.#answeredAt.delete(caller);
      const average = movingAverage(this.#turnaround.get(caller), now - at);
      bounded(this.#turnaround, caller).set(caller, average);
    }
    if (this.#state.has(caller)) {
      this.#state.set(caller, 'queued');
    }
  }

  /** The caller's call went into a transaction. */
  running(caller: string | undefined): void {
    if (caller !== undefined && this.#state.has(caller)) {
      this.#state.set(caller, 'running');
    }
  }

  /** The caller was answered at `now`; `back`: it is expected to call again soon. */
  answered(caller: string | undefined, back: boolean, now: number): void {
    if (caller === undefined) {
      return;
    }
    if (!back) {
      this.#state.delete(caller);
      this.#answeredAt.delete(caller);
      return;
    }
    bounded(this.#answeredAt, caller).set(caller, now);
    if (this.#state.size >= ReturningCallers.MAX_TRACKED && !this.#state.has(caller)) {
      this.#forgetAnswered(now);
      if (this.#state.size >= ReturningCallers.MAX_TRACKED) {
        return;
      }
    }
    this.#state.set(caller, now);
  }

  /** How long after its answer `caller` is waited for, in ms. */
  windowOf(caller: string): number {
    const average = this.#turnaround.get(caller);
    const group = Math.min(this.#groupMs ?? 0, ReturningCallers.LONGEST_WINDOW_MS);
    if (average === undefined || average >= Math.max(ReturningCallers.QUICK_MS, group)) {
      return this.#windowMs;
    }
    const cap = Math.max(ReturningCallers.MAX_WINDOW_MS, group);
    return Math.min(cap, Math.max(this.#windowMs, 3 * average));
  }

  /**
   * How much longer, in ms, a caller not waiting already is expected (0: none is): one whose
   * call is in a running transaction (the default window), or one answered less than its window
   * ago (what is left of it; the latest of them).
   */
  expected(now: number): number {
    let until = 0;
    for (const [caller, state] of this.#state) {
      if (state === 'running') {
        until = Math.max(until, this.#windowMs);
      } else if (typeof state === 'number') {
        const left = this.windowOf(caller) - (now - state);
        if (left <= 0) {
          this.#state.delete(caller);
        } else {
          until = Math.max(until, left);
        }
      }
    }
    return until;
  }

  #forgetAnswered(now: number): void {
    for (const [caller, state] of this.#state) {
      if (typeof state === 'number' && now - state >= this.windowOf(caller)) {
        this.#state.delete(caller);
      }
    }
  }
}

/** `average` moved an eighth of the way to `sample`; the sample itself when there is none yet. */
function movingAverage(average: number | undefined, sample: number): number {
  return average === undefined ? sample : average + (sample - average) / 8;
}

/**
 * `map`, ready to take `key`: when that would make it hold more than `MAX_TRACKED`, its oldest
 * entry is dropped first (a Map keeps its order).
 */
function bounded<V>(map: Map<string, V>, key: string): Map<string, V> {
  if (map.size >= ReturningCallers.MAX_TRACKED && !map.has(key)) {
    const oldest = map.keys().next();
    if (oldest.done !== true) {
      map.delete(oldest.value);
    }
  }
  return map;
}
