/**
 * Which callers a group (tx-group.ts) should wait a moment for: the ones that just got work and
 * will be back with its results before long. A worker handed tasks by a grouped call reports
 * them in its next call; when its handler is quick, that call comes a millisecond or two after
 * the answer. Without waiting, the workers of a node fall out of step — one worker's call runs
 * while another's waits, then the other way round — and every transaction holds one call, its
 * commit and its statements paid for a handful of jobs (docs/design/hot-path.md §8).
 *
 * A caller is tracked from an answer that says it will come back (`back`) until it arrives
 * again: while its call runs in a transaction it is `running`; once answered, it is expected for
 * `windowMs` after the answer and forgotten after that (a slow handler is never waited for).
 */
export class ReturningCallers {
  readonly #windowMs: number;
  /** Caller → 'queued' (arrived, waiting to run), 'running', or the time it was answered. */
  readonly #state = new Map<string, 'queued' | 'running' | number>();

  constructor(windowMs: number) {
    this.#windowMs = windowMs;
  }

  /** At most this many callers are tracked (a caller key comes from the request). */
  static readonly MAX_TRACKED = 10_000;

  /** The caller's call arrived. */
  arrived(caller: string | undefined): void {
    if (caller !== undefined && this.#state.has(caller)) {
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
      return;
    }
    if (this.#state.size >= ReturningCallers.MAX_TRACKED && !this.#state.has(caller)) {
      this.#forgetAnswered(now);
      if (this.#state.size >= ReturningCallers.MAX_TRACKED) {
        return;
      }
    }
    this.#state.set(caller, now);
  }

  /**
   * Whether a caller not waiting already is expected: one whose call is in a running
   * transaction, or one answered less than the window ago.
   */
  expected(now: number): boolean {
    let found = false;
    for (const [caller, state] of this.#state) {
      if (typeof state === 'number' && now - state >= this.#windowMs) {
        this.#state.delete(caller);
      } else if (state !== 'queued') {
        found = true;
      }
    }
    return found;
  }

  #forgetAnswered(now: number): void {
    for (const [caller, state] of this.#state) {
      if (typeof state === 'number' && now - state >= this.#windowMs) {
        this.#state.delete(caller);
      }
    }
  }
}
