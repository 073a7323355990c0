/**
 * `Worker`: runs task handlers per queue with a concurrency limit, long-polling claims,
 * automatic heartbeats, the start/complete protocol, and graceful shutdown (stop claiming,
 * finish in-flight work, then resolve).
 *
 * @example
 * const worker = new Worker({
 *   client,
 *   handlers: { emails: async (input, ctx) => sendMail(input, { signal: ctx.signal }) },
 *   concurrency: 24,
 * });
 * worker.start();
 * worker.stopOnSignals(); // SIGTERM / SIGINT finish in-flight work, then stop
 */
import { isWeaveApiError } from './api-error.js';
import type { WeaveClient } from './client.js';
import type { ClaimedTask } from './types.js';
import { toTaskError } from './worker-errors.js';

export interface TaskContext {
  readonly taskId: string;
  readonly attemptId: string;
  readonly attemptNumber: number;
  readonly idempotent: boolean;
  readonly traceKey: string | undefined;
  readonly resourceKey: string | undefined;
  /** Aborted when cancellation is requested or the permit is lost: stop soon. */
  readonly signal: AbortSignal;
}

/** Returns the task's result (any JSON value); throws to fail it (see NonRetryableError). */
export type TaskHandler = (input: unknown, ctx: TaskContext) => Promise<unknown>;

export interface WorkerOptions {
  readonly client: WeaveClient;
  /** Handlers by queue name. */
  readonly handlers: Readonly<Record<string, TaskHandler>>;
  /** Tasks run at once over all queues (default 10). */
  readonly concurrency?: number;
  /** Defaults to a random id. */
  readonly workerId?: string;
  /** Long-poll wait per claim (default 20 000 ms; at most 30 000). */
  readonly waitMs?: number;
  /** Heartbeat cadence (default 10 000 ms; leases last 30 s). */
  readonly heartbeatMs?: number;
  /** Called with errors the worker survives (claim failures, lost permits). */
  readonly onError?: (error: unknown) => void;
}

/** Pause after a failed claim before trying again, so an outage does not spin. */
const CLAIM_RETRY_DELAY_MS = 1_000;
/**
 * Start and complete are re-sent on network errors (a node restarting, a dropped connection):
 * the server answers a repeated start or an identical completion the same as the first. Waits
 * 100, 200, 400, 800 ms between tries: long enough to ride out a node restart, well inside a
 * lease. An answer from the server (e.g. `permit_stale`) is never re-sent.
 */
const RESEND_TRIES = 5;
const RESEND_FIRST_DELAY_MS = 100;

export class Worker {
  readonly #options: WorkerOptions;
  readonly #workerId: string;
  readonly #stopping = new AbortController();
  readonly #inFlight = new Set<Promise<void>>();
  readonly #slotWaiters: (() => void)[] = [];
  #loops: Promise<void>[] = [];

  constructor(options: WorkerOptions) {
    this.#options = options;
    this.#workerId = options.workerId ?? `worker-${Math.random().toString(36).slice(2, 10)}`;
  }

  /** Starts one claim loop per queue. */
  start(): void {
    if (this.#loops.length > 0) {
      return;
    }
    this.#loops = Object.keys(this.#options.handlers).map((queue) => this.#claimLoop(queue));
  }

  /** Stops claiming, waits for in-flight tasks to finish and report, then resolves. */
  async stop(): Promise<void> {
    this.#stopping.abort();
    this.#slotWaiters.splice(0).forEach((wake) => wake());
    await Promise.all(this.#loops);
    await Promise.all([...this.#inFlight]);
  }

  /** Graceful shutdown on SIGTERM and SIGINT (Node only). */
  stopOnSignals(signals: readonly NodeJS.Signals[] = ['SIGTERM', 'SIGINT']): void {
    for (const signal of signals) {
      process.once(signal, () => {
        this.stop().catch((e: unknown) => this.#options.onError?.(e));
      });
    }
  }

  get inFlightCount(): number {
    return this.#inFlight.size;
  }

  async #claimLoop(queue: string): Promise<void> {
    const signal = this.#stopping.signal;
    while (!signal.aborted) {
      const free = await this.#freeSlots();
      if (signal.aborted) {
        return;
      }
      try {
        const { tasks } = await this.#options.client.claimTasks(
          queue,
          { worker_id: this.#workerId, max_tasks: free, wait_ms: this.#options.waitMs ?? 20_000 },
          signal,
        );
        tasks.forEach((task) => this.#track(this.#run(queue, task)));
      } catch (e: unknown) {
        if (!signal.aborted) {
          this.#options.onError?.(e);
          await delay(CLAIM_RETRY_DELAY_MS, signal);
        }
      }
    }
  }

  #freeSlots(): Promise<number> {
    const concurrency = Math.min(this.#options.concurrency ?? 10, 100);
    const free = concurrency - this.#inFlight.size;
    if (free > 0 || this.#stopping.signal.aborted) {
      return Promise.resolve(Math.max(free, 1));
    }
    return new Promise((resolve) => this.#slotWaiters.push(() => resolve(this.#freeSlotsNow())));
  }

  #freeSlotsNow(): number {
    return Math.max(1, (this.#options.concurrency ?? 10) - this.#inFlight.size);
  }

  #track(run: Promise<void>): void {
    this.#inFlight.add(run);
    void run.finally(() => {
      this.#inFlight.delete(run);
      this.#slotWaiters.shift()?.();
    });
  }

  async #run(queue: string, task: ClaimedTask): Promise<void> {
    const { client } = this.#options;
    const handler = this.#options.handlers[queue];
    const cancel = new AbortController();
    const beat = setInterval(
      () => void this.#heartbeat(task, cancel),
      this.#options.heartbeatMs ?? 10_000,
    );
    try {
      if (handler === undefined) {
        return;
      }
      await resend(() => client.startAttempt(task.task_id, task.attempt_id, task.permit));
      const outcome = await runHandler(handler, task, cancel.signal);
      clearInterval(beat);
      await this.#complete(task, outcome);
    } catch (e: unknown) {
      this.#options.onError?.(e);
    } finally {
      clearInterval(beat);
    }
  }

  async #heartbeat(task: ClaimedTask, cancel: AbortController): Promise<void> {
    try {
      const answer = await this.#options.client.heartbeat(
        task.task_id,
        task.attempt_id,
        task.permit,
      );
      if (answer.cancel_requested) {
        cancel.abort(new Error('cancellation requested'));
      }
    } catch (e: unknown) {
      if (isWeaveApiError(e) && e.code === 'permit_stale') {
        cancel.abort(e);
      }
      this.#options.onError?.(e);
    }
  }

  async #complete(task: ClaimedTask, outcome: HandlerOutcome): Promise<void> {
    const completion = outcome.ok
      ? { outcome: 'succeeded' as const, result: outcome.result }
      : { outcome: 'failed' as const, error: toTaskError(outcome.error) };
    await resend(() =>
      this.#options.client.completeAttempt(task.task_id, task.attempt_id, task.permit, completion),
    );
  }
}

/** Runs `call`, again after a growing pause when it fails without an answer from the server. */
async function resend<T>(call: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (e: unknown) {
      if (isWeaveApiError(e) || attempt >= RESEND_TRIES) {
        throw e;
      }
      await new Promise((resolve) =>
        setTimeout(resolve, RESEND_FIRST_DELAY_MS * 2 ** (attempt - 1)),
      );
    }
  }
}

type HandlerOutcome = { ok: true; result: unknown } | { ok: false; error: unknown };

async function runHandler(
  handler: TaskHandler,
  task: ClaimedTask,
  signal: AbortSignal,
): Promise<HandlerOutcome> {
  const ctx: TaskContext = {
    taskId: task.task_id,
    attemptId: task.attempt_id,
    attemptNumber: task.attempt_number,
    idempotent: task.idempotent,
    traceKey: task.trace_key,
    resourceKey: task.resource_key,
    signal,
  };
  try {
    return { ok: true, result: (await handler(task.input, ctx)) ?? null };
  } catch (error: unknown) {
    return { ok: false, error };
  }
}

function delay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}
