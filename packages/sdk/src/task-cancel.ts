/**
 * A task's cancellation: the `AbortController` is made only when the handler reads
 * `ctx.signal` (most never do, and one costs a few microseconds per task); an abort before
 * that is kept and shows on the signal when it is made.
 */
export class LazyAbort {
  #controller: AbortController | undefined;
  #aborted = false;
  #reason: unknown;

  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      if (this.#aborted) {
        this.#controller.abort(this.#reason);
      }
    }
    return this.#controller.signal;
  }

  abort(reason: unknown): void {
    if (!this.#aborted) {
      this.#aborted = true;
      this.#reason = reason;
      this.#controller?.abort(reason);
    }
  }
}
