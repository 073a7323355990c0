/**
 * Completion coalescing for `Worker` (one instance per queue): completions that finish close
 * together go out as one `completeMany` call, which also claims the next tasks in the same
 * transaction — one commit for a batch of results and new work (DESIGN.md §5a).
 *
 * A batch is sent when every task of the queue has finished (nothing else will join soon), when
 * it is full (100), or `windowMs` after its first completion, whichever comes first; one call per
 * queue is in flight at a time, and completions arriving meanwhile form the next batch. A call
 * takes as many completions as fit in the client's body limit (each result may be 256 KiB, a
 * hundred of them far more than the 2 MiB default); the rest go in the next call.
 */
import { stringify, utf8ByteLength } from '@weave/json';
import { WeaveApiError } from './api-error.js';
import { withTimeout } from './call-timeout.js';
import type { WeaveClient } from './client.js';
import { statusOf } from './protocol/index.js';
import type { ErrorReporter } from './report-error.js';
import { resend } from './resend.js';
import type {
  BatchCompletionAnswer,
  BatchCompletionRequest,
  ClaimedTask,
  Completion,
} from './types.js';

/** Most completions in one call (the server's limit). */
export const MAX_BATCH = 100;
/**
 * Room in a body for all but its completions: the brackets and the claim, whose worker id is at
 * most 200 visible ASCII characters (400 bytes escaped), with room to spare.
 */
const ENVELOPE_BYTES = 1024;

type Item = NonNullable<BatchCompletionRequest['completions']>[number];

interface Report {
  /** The completion as sent (its result already JSON text, task-result.ts). */
  readonly item: Item;
  /** Its size in the body: its JSON text and a comma. */
  readonly bytes: number;
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
  /** Limit on each call (call-timeout.ts). */
  readonly timeoutMs: number;
  readonly reportError: ErrorReporter;
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
    const item: Item = {
      task_id: task.task_id,
      attempt_id: task.attempt_id,
      permit: task.permit,
      ...completion,
    };
    // Measured once here; a result is RawJson by now, so this copies its text, no more.
    const bytes = utf8ByteLength(stringify(item)) + 1;
    return new Promise((done) => {
      this.#pending.push({ item, bytes, done });
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
    const batch = this.#pending.splice(0, this.#fitting());
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
            this.#options.reportError(e);
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
   * How many of the pending completions the next call takes: at most MAX_BATCH, within the
   * client's body limit, and always the first (alone over the limit, it is refused by the
   * client with `payload_too_large` and reported, without holding up the others).
   */
  #fitting(): number {
    let room = this.#options.client.maxBodyBytes - ENVELOPE_BYTES;
    let n = 0;
    for (const report of this.#pending) {
      room -= report.bytes;
      if (n === MAX_BATCH || (n > 0 && room < 0)) {
        break;
      }
      n++;
    }
    return n;
  }

  /**
   * The claim rides only on the first try: a re-send after a lost answer must not claim again
   * (the first answer's tasks, if any, come back when their lease ends).
   */
  async #call(batch: readonly Report[], claim: { maxTasks: number; start: boolean }) {
    const completions = batch.map((report) => report.item);
    const { client, queue, workerId, timeoutMs } = this.#options;
    const what = `completeMany on ${queue}`;
    return resend((attempt) => {
      const withClaim = attempt === 1 && claim.maxTasks > 0;
      const body: BatchCompletionRequest = {
        completions,
        ...(withClaim
          ? { claim: { worker_id: workerId, max_tasks: claim.maxTasks, start: claim.start } }
          : {}),
      };
      return withTimeout((signal) => client.completeMany(queue, body, signal), {
        what,
        timeoutMs,
      });
    });
  }

  #itemDone(report: Report, index: number, answer: BatchCompletionAnswer): void {
    const refused = answer.errors.find((e) => e.index === index);
    if (refused !== undefined) {
      const { code, message, details } = refused.error;
      this.#options.reportError(
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
