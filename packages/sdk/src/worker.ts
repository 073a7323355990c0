/**
 * `Worker`: runs task handlers per queue with a concurrency limit, long-polling claims,
 * automatic heartbeats, the start/complete protocol, and graceful shutdown (stop claiming,
 * finish in-flight work, then resolve).
 *
 * While busy, a worker pays about one call per batch of tasks, not three per task: the claim
 * starts the attempts in its own transaction (`startOnClaim`), and completions that finish close
 * together are reported in one `completeMany` call that also claims the next tasks
 * (completion-batch.ts). The long-poll claim only runs while slots are free.
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
import { CLAIM_TIMEOUT_MARGIN_MS, DEFAULT_CALL_TIMEOUT_MS, withTimeout } from './call-timeout.js';
import type { WeaveClient } from './client.js';
import { CompletionBatch, MAX_BATCH } from './completion-batch.js';
import { safeReporter } from './report-error.js';
import type { ErrorReporter } from './report-error.js';
import { resend } from './resend.js';
import type { ClaimedTask, Completion } from './types.js';
import { LazyAbort } from './task-cancel.js';
import { startHeartbeats } from './task-heartbeats.js';
import { toResultCompletion } from './task-result.js';
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

/** The signals `Worker.stopOnSignals` can listen to (those a process manager sends to stop). */
export type StopSignal = 'SIGTERM' | 'SIGINT' | 'SIGHUP' | 'SIGQUIT' | 'SIGBREAK' | 'SIGUSR2';

/** The part of Node's `process` that `stopOnSignals` uses. */
interface SignalHost {
  readonly once?: (signal: string, listener: () => void) => unknown;
}

/**
 * Returns the task's result (any JSON value, at most 256 KiB as JSON); throws to fail it (see
 * NonRetryableError). A result that is not JSON (a `Date`, a class instance, `NaN`, a string with
 * a lone surrogate) or is too large fails the task for good, with the code `result_not_json` or
 * `result_too_large`.
 */
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
  /**
   * How long a finished task's completion may wait for others to join its call (default 5 ms).
   * It is sent at once when no other task of its queue is still running. 0 means no waiting:
   * each completion is sent as soon as its task finishes, except that completions finishing
   * while a call of the queue is in flight go together in the next call.
   */
  readonly completionWindowMs?: number;
  /**
   * Start attempts in the claim's transaction (default true) instead of one start call per task
   * before its handler. The handler runs as soon as the answer arrives either way; the cost is
   * the rare lost claim answer (a node restart mid-response): its attempts are started, so when
   * their lease ends an idempotent task is retried and a non-idempotent one goes to review,
   * where with separate starts they would simply be handed out again.
   */
  readonly startOnClaim?: boolean;
  /**
   * Longest wait for the answer of a start, heartbeat or completion call (default 30 000 ms); a
   * claim may take `waitMs` plus 10 000 ms (or plus this, if shorter). A call without an answer
   * by then (a half-open connection) is aborted and handled as one lost on the network.
   */
  readonly callTimeoutMs?: number;
  /**
   * Called with errors the worker survives (claim failures, lost permits). A throw (or a
   * rejection) from it is not passed on: the first is written to `console.error`.
   */
  readonly onError?: (error: unknown) => void;
}

/** Pause after a failed claim before trying again, so an outage does not spin. */
const CLAIM_RETRY_DELAY_MS = 1_000;
/** Default completion window: well under a claim's round trip, enough for a burst to join. */
const DEFAULT_COMPLETION_WINDOW_MS = 5;

export class Worker {
  readonly #options: WorkerOptions;
  readonly #workerId: string;
  readonly #concurrency: number;
  readonly #report: ErrorReporter;
  readonly #stopping = new AbortController();
  readonly #inFlight = new Set<Promise<void>>();
  readonly #batches = new Map<string, CompletionBatch>();
  /** Tasks running or waiting to be reported, per queue and in all. */
  readonly #running = new Map<string, number>();
  #held = 0;
  /** Slots promised to claims in flight (long-polls and claims riding on completions). */
  #reserved = 0;
  #slotWaiters: (() => void)[] = [];
  #loops: Promise<void>[] = [];
  /**
   * One per claim loop, aborted by `stop` with `#stopping`: each loop's long-poll and retry delay
   * listen on a signal of their own, so a worker of many queues never has more than a couple of
   * listeners on one signal (Node warns of a leak above ten).
   */
  readonly #loopStops: AbortController[] = [];

  constructor(options: WorkerOptions) {
    this.#options = options;
    this.#workerId = options.workerId ?? `worker-${Math.random().toString(36).slice(2, 10)}`;
    this.#concurrency = Math.max(1, options.concurrency ?? 10);
    this.#report = safeReporter(options.onError);
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
    for (const loopStop of this.#loopStops) {
      loopStop.abort();
    }
    this.#wakeSlotWaiters();
    await Promise.all(this.#loops);
    // Completions sent before the stop may still bring tasks: run those too.
    while (this.#inFlight.size > 0) {
      await Promise.all([...this.#inFlight]);
    }
  }

  /**
   * Graceful shutdown on SIGTERM and SIGINT where the runtime has a Node-style `process` (Node,
   * Bun, Deno's Node compatibility); elsewhere (a browser) it does nothing. The first of each
   * signal calls `stop()`; the process is never exited here, it ends by itself once idle.
   *
   * @example
   * worker.start();
   * worker.stopOnSignals(['SIGTERM']);
   */
  stopOnSignals(signals: readonly StopSignal[] = ['SIGTERM', 'SIGINT']): void {
    // Read through globalThis and typed here: the SDK is compiled without Node's types and
    // must load where there is no `process` at all.
    const host = (globalThis as { process?: SignalHost }).process;
    for (const signal of signals) {
      host?.once?.(signal, () => {
        this.stop().catch(this.#report);
      });
    }
  }

  get inFlightCount(): number {
    return this.#inFlight.size;
  }

  async #claimLoop(queue: string): Promise<void> {
    const loopStop = new AbortController();
    this.#loopStops.push(loopStop);
    if (this.#stopping.signal.aborted) {
      loopStop.abort();
    }
    const signal = loopStop.signal;
    while (!signal.aborted) {
      const free = await this.#reserveFreeSlots();
      if (signal.aborted) {
        this.#reserved -= free;
        return;
      }
      try {
        const { tasks } = await this.#claim(queue, free, signal);
        this.#accept(queue, tasks);
      } catch (e: unknown) {
        if (!signal.aborted) {
          this.#report(e);
          await delay(CLAIM_RETRY_DELAY_MS, signal);
        }
      } finally {
        this.#reserved -= free;
        this.#wakeSlotWaiters();
      }
    }
  }

  /** One long-poll claim, given up (as lost) when no answer comes well after its wait. */
  #claim(queue: string, free: number, stop: AbortSignal) {
    const waitMs = this.#options.waitMs ?? 20_000;
    const body = {
      worker_id: this.#workerId,
      max_tasks: free,
      wait_ms: waitMs,
      start: this.#startOnClaim,
    };
    return withTimeout((signal) => this.#options.client.claimTasks(queue, body, signal), {
      what: `claim on ${queue}`,
      timeoutMs: waitMs + Math.min(CLAIM_TIMEOUT_MARGIN_MS, this.#callTimeoutMs),
      stop,
    });
  }

  get #callTimeoutMs(): number {
    return this.#options.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
  }

  get #startOnClaim(): boolean {
    return this.#options.startOnClaim ?? true;
  }

  #free(): number {
    return Math.min(MAX_BATCH, this.#concurrency - this.#held - this.#reserved);
  }

  /**
   * Waits until a slot is free (or the worker stops) and reserves free slots for one claim, at
   * most the queue's fair share: the number reserved. The check and the reservation happen in
   * one synchronous step. When they were apart and unbounded, the claim loops of several
   * queues, started in the same tick, each reserved every slot, and an idle queue's long-poll
   * then held the slots another queue's task (a retry come due) needed until the long-poll
   * ended, up to `waitMs` later. A claim riding on completions still takes every free slot: it
   * answers at once.
   */
  async #reserveFreeSlots(): Promise<number> {
    while (this.#free() <= 0 && !this.#stopping.signal.aborted) {
      await new Promise<void>((resolve) => this.#slotWaiters.push(resolve));
    }
    const queues = Math.max(1, Object.keys(this.#options.handlers).length);
    const share = Math.max(1, Math.ceil(this.#concurrency / queues));
    const free = Math.min(Math.max(this.#free(), 0), share);
    this.#reserved += free;
    return free;
  }

  #wakeSlotWaiters(): void {
    this.#slotWaiters.splice(0).forEach((wake) => wake());
  }

  #batch(queue: string): CompletionBatch {
    let batch = this.#batches.get(queue);
    if (batch === undefined) {
      batch = new CompletionBatch({
        client: this.#options.client,
        queue,
        workerId: this.#workerId,
        windowMs: this.#options.completionWindowMs ?? DEFAULT_COMPLETION_WINDOW_MS,
        timeoutMs: this.#callTimeoutMs,
        running: () => this.#running.get(queue) ?? 0,
        claimFor: (n) => this.#claimRidingOn(n),
        settled: (tasks, sent, asked) => {
          this.#accept(queue, tasks); // before the slots of `sent` are given back
          this.#reserved -= Math.max(asked - sent, 0);
          this.#held -= sent;
          this.#wakeSlotWaiters();
        },
        reportError: this.#report,
      });
      this.#batches.set(queue, batch);
    }
    return batch;
  }

  /** A claim for the `n` slots a batch frees plus the free ones, none once stopping. */
  #claimRidingOn(n: number): { maxTasks: number; start: boolean } {
    if (this.#stopping.signal.aborted) {
      return { maxTasks: 0, start: this.#startOnClaim };
    }
    const extra = Math.min(Math.max(this.#free(), 0), MAX_BATCH - n);
    this.#reserved += extra;
    return { maxTasks: n + extra, start: this.#startOnClaim };
  }

  #accept(queue: string, tasks: readonly ClaimedTask[]): void {
    for (const task of tasks) {
      this.#held += 1;
      this.#running.set(queue, (this.#running.get(queue) ?? 0) + 1);
      const run = this.#run(queue, task);
      this.#inFlight.add(run);
      void run.finally(() => this.#inFlight.delete(run));
    }
  }

  async #run(queue: string, task: ClaimedTask): Promise<void> {
    const completion = await this.#execute(queue, task);
    this.#running.set(queue, (this.#running.get(queue) ?? 1) - 1);
    if (completion === undefined) {
      this.#held -= 1;
      this.#wakeSlotWaiters();
      this.#batch(queue).poke();
      return;
    }
    await this.#batch(queue).report(task, completion);
  }

  /** Start (unless the claim did), run the handler with heartbeats: the completion to report. */
  async #execute(queue: string, task: ClaimedTask): Promise<Completion | undefined> {
    const handler = this.#options.handlers[queue];
    if (handler === undefined) {
      return undefined;
    }
    const cancel = new LazyAbort();
    const stopHeartbeats = startHeartbeats({
      client: this.#options.client,
      task,
      everyMs: this.#options.heartbeatMs ?? 10_000,
      timeoutMs: this.#callTimeoutMs,
      cancel,
      report: this.#report,
    });
    try {
      if (!this.#startOnClaim) {
        await resend(() => this.#start(task));
      }
      const outcome = await runHandler(handler, task, cancel);
      return outcome.ok
        ? toResultCompletion(outcome.result)
        : { outcome: 'failed', error: toTaskError(outcome.error) };
    } catch (e: unknown) {
      this.#report(e);
      return undefined;
    } finally {
      stopHeartbeats();
    }
  }

  #start(task: ClaimedTask) {
    const { client } = this.#options;
    return withTimeout(
      (signal) => client.startAttempt(task.task_id, task.attempt_id, task.permit, signal),
      { what: `start of task ${task.task_id}`, timeoutMs: this.#callTimeoutMs },
    );
  }
}

type HandlerOutcome = { ok: true; result: unknown } | { ok: false; error: unknown };

async function runHandler(
  handler: TaskHandler,
  task: ClaimedTask,
  cancel: LazyAbort,
): Promise<HandlerOutcome> {
  const ctx: TaskContext = {
    taskId: task.task_id,
    attemptId: task.attempt_id,
    attemptNumber: task.attempt_number,
    idempotent: task.idempotent,
    traceKey: task.trace_key,
    resourceKey: task.resource_key,
    get signal() {
      return cancel.signal;
    },
  };
  try {
    return { ok: true, result: (await handler(task.input, ctx)) ?? null };
  } catch (error: unknown) {
    return { ok: false, error };
  }
}

function delay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    // The listener goes when the delay ends either way: a claim loop that retries against a
    // server that is down waits here again and again on the same signal.
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
