/**
 * Completion coalescing for `Worker` (one instance per queue): completions that finish close
 * together go out as one `completeMany` call, which also claims the next tasks in the same
 * transaction — one commit for a batch of results and new work (DESIGN.md §5a).
 *
 * A batch is sent when every task of the queue has finished (nothing else will join soon), when
 * it is full (100), or `windowMs` after its first completion, whichever comes first; one call per
 * queue is in flight at a time, and completions arriving meanwhile form the next batch.
 */
import { WeaveApiError, isWeaveApiError } from './api-error.js';
import type { WeaveClient } from './client.js';
import { statusOf } from './protocol/index.js';
import type { BatchCompletionAnswer, ClaimedTask, Completion } from './types.js';

/** Most completions in one call (the server's limit). */
export const MAX_BATCH = 100;
/**
 * Re-sends on network errors: 100, 200, 400, 800 ms apart, long enough to ride out a node
 * restart, well inside a lease. Identical completions replay (E1.6), so a re-send is safe; an
 * answer from the server is never re-sent.
 */
const RESEND_TRIES = 5;
const RESEND_FIRST_DELAY_MS = 100;

interface Report {
  readonly task: ClaimedTask;
  readonly completion: Completion;
  readonly done: () => void;
}

export interface CompletionBatchOptions {
  readonly client: WeaveClient;
  readonly queue: string;
  readonly windowMs: number;
  /** Tasks of the queue still running their handler (0: send at once). */
  readonly running: () => number;
  /**
   * Called just before a send of `n` completions: the claim to add (`max_tasks` 0 = none). The
   * worker reserves the slots and gets them back through `settled`.
   */
  readonly claimFor: (n: number) => { readonly maxTasks: number; readonly start: boolean };
  /** After a send: the claimed tasks (to run), the completions sent, the claim asked for. */
  readonly settled: (tasks: readonly ClaimedTask[], sent: number, asked: number) => void;
  readonly workerId: string;
  readonly onError: (error: unknown) => void;
}

export class CompletionBatch {
  readonly #options: CompletionBatchOptions;
  #pending: Report[] = [];
  #timer: ReturnType<typeof setTimeout> | undefined;
  #sending = false;

  constructor(options: CompletionBatchOptions) {
    this.#options = options;
  }

  /** Queues a completion; resolves once it was reported (errors go to `onError`). */
  report(task: ClaimedTask, completion: Completion): Promise<void> {
    return new Promise((done) => {
      this.#pending.push({ task, completion, done });
      this.poke();
    });
  }

  /** Sends now if a batch is due (call it when a task of the queue stops running). */
  poke(): void {
    if (this.#sending || this.#pending.length === 0) {
      return;
    }
    const due =
      this.#pending.length >= MAX_BATCH ||
      this.#options.running() === 0 ||
      this.#options.windowMs <= 0;
    if (due) {
      this.#send();
    } else {
      this.#timer ??= setTimeout(() => this.#send(), this.#options.windowMs);
    }
  }

  #send(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const batch = this.#pending.splice(0, MAX_BATCH);
    const claim = this.#options.claimFor(batch.length);
    this.#sending = true;
    void this.#call(batch, claim)
      .then(
        (answer) => {
          this.#options.settled(answer.tasks, batch.length, claim.maxTasks);
          batch.forEach((report, index) => this.#itemDone(report, index, answer));
        },
        (e: unknown) => {
          this.#options.settled([], batch.length, claim.maxTasks);
          batch.forEach((report) => {
            this.#options.onError(e);
            report.done();
          });
        },
      )
      .finally(() => {
        this.#sending = false;
        this.poke();
      });
  }

  /**
   * The claim rides only on the first try: a re-send after a lost answer must not claim again
   * (the first answer's tasks, if any, come back when their lease ends).
   */
  async #call(batch: readonly Report[], claim: { maxTasks: number; start: boolean }) {
    const completions = batch.map(({ task, completion }) => ({
      task_id: task.task_id,
      attempt_id: task.attempt_id,
      permit: task.permit,
      ...completion,
    }));
    const { client, queue, workerId } = this.#options;
    for (let attempt = 1; ; attempt++) {
      const withClaim = attempt === 1 && claim.maxTasks > 0;
      try {
        return await client.completeMany(queue, {
          completions,
          ...(withClaim
            ? { claim: { worker_id: workerId, max_tasks: claim.maxTasks, start: claim.start } }
            : {}),
        });
      } catch (e: unknown) {
        if (isWeaveApiError(e) || attempt >= RESEND_TRIES) {
          throw e;
        }
        await new Promise((r) => setTimeout(r, RESEND_FIRST_DELAY_MS * 2 ** (attempt - 1)));
      }
    }
  }

  #itemDone(report: Report, index: number, answer: BatchCompletionAnswer): void {
    const refused = answer.errors.find((e) => e.index === index);
    if (refused !== undefined) {
      const { code, message, details } = refused.error;
      this.#options.onError(
        new WeaveApiError({
          code,
          status: statusOf(code),
          message,
          ...(typeof details === 'object' && details !== null ? { details: details } : {}),
        }),
      );
    }
    report.done();
  }
}
