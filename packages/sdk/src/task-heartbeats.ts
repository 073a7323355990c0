/**
 * The heartbeats of one running task: every `everyMs` a heartbeat extends the lease and says
 * whether cancellation was requested, which aborts the handler's `ctx.signal`.
 *
 * A `permit_stale` answer means the lease is lost for good (expired, or the task settled by
 * someone else): the handler's signal is aborted (docs/sdk.md: "when the task is cancelled or
 * the permit is lost, `ctx.signal` is aborted") and no heartbeat is sent again, since each would
 * only be refused the same way. An answer that arrives after the heartbeats were stopped (the
 * handler returned) is ignored: a heartbeat in flight while the completion commits is refused
 * `permit_stale`, which says nothing about the task.
 */
import { isWeaveApiError } from './api-error.js';
import { withTimeout } from './call-timeout.js';
import type { WeaveClient } from './client.js';
import type { ErrorReporter } from './report-error.js';
import type { LazyAbort } from './task-cancel.js';
import type { ClaimedTask } from './types.js';

export interface HeartbeatOptions {
  readonly client: WeaveClient;
  readonly task: ClaimedTask;
  readonly everyMs: number;
  readonly timeoutMs: number;
  /** The handler's cancellation. */
  readonly cancel: LazyAbort;
  readonly report: ErrorReporter;
}

/**
 * Starts the heartbeats; the function returned stops them.
 *
 * @example
 * const stop = startHeartbeats({ client, task, everyMs: 10_000, timeoutMs: 30_000, cancel, report });
 * try { await handler(task.input, ctx); } finally { stop(); }
 */
export function startHeartbeats(options: HeartbeatOptions): () => void {
  const { client, task, cancel, report } = options;
  let stopped = false;
  const stop = () => {
    stopped = true;
    clearInterval(timer);
  };
  const beat = async () => {
    try {
      const answer = await withTimeout(
        (signal) => client.heartbeat(task.task_id, task.attempt_id, task.permit, signal),
        { what: `heartbeat of task ${task.task_id}`, timeoutMs: options.timeoutMs },
      );
      if (!stopped && answer.cancel_requested) {
        cancel.abort(new Error('cancellation requested'));
      }
    } catch (e: unknown) {
      if (stopped) {
        return;
      }
      if (isWeaveApiError(e) && e.code === 'permit_stale') {
        stop();
        cancel.abort(e);
      }
      report(e);
    }
  };
  const timer = setInterval(() => void beat(), options.everyMs);
  return stop;
}
