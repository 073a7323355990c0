/**
 * A time limit on one call of the Worker. On a half-open connection (a NAT or load balancer that
 * dropped it without a reset) an answer never comes and nothing else ends the wait: a claim loop
 * or a completion batch would hang for good. A call that runs out of time is aborted and fails
 * like a call lost on the network, so the caller's handling of those (re-send, retry) applies.
 */

/** The worker calls' default limit: generous for a loaded server, short of a 30 s lease. */
export const DEFAULT_CALL_TIMEOUT_MS = 30_000;
/**
 * What a long-poll claim may take beyond its wait: the server answers an empty claim as soon as
 * the wait ends, and a full one at once.
 */
export const CLAIM_TIMEOUT_MARGIN_MS = 10_000;

/** A call that got no answer within its limit (`name` as the platform's own timeouts). */
export class CallTimeoutError extends Error {
  constructor(what: string, timeoutMs: number, options: { cause?: unknown } = {}) {
    super(`${what}: no answer within ${timeoutMs} ms`, options);
    this.name = 'TimeoutError';
  }
}

export interface CallLimit {
  /** The call, as the error names it (`claim on emails`). */
  readonly what: string;
  readonly timeoutMs: number;
  /** Aborts the call too (the worker's stop). */
  readonly stop?: AbortSignal | undefined;
}

/**
 * Runs `call` with a signal aborted after `limit.timeoutMs`, or when `limit.stop` aborts. Not
 * `AbortSignal.any([stop, AbortSignal.timeout(ms)])`: on Node 20 each combined signal stays
 * referenced by the long-lived `stop` until it aborts (nodejs/node#55351), one per call. Here
 * the listener on `stop` goes when the call ends.
 *
 * @example
 * await withTimeout((signal) => client.heartbeat(t.task_id, t.attempt_id, t.permit, signal), {
 *   what: 'heartbeat',
 *   timeoutMs: 30_000,
 * });
 */
export async function withTimeout<T>(
  call: (signal: AbortSignal) => Promise<T>,
  limit: CallLimit,
): Promise<T> {
  const { what, timeoutMs, stop } = limit;
  const controller = new AbortController();
  const onStop = () => controller.abort(stop?.reason);
  if (stop?.aborted === true) {
    onStop();
  }
  stop?.addEventListener('abort', onStop, { once: true });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new CallTimeoutError(what, timeoutMs));
  }, timeoutMs);
  try {
    return await call(controller.signal);
  } catch (e: unknown) {
    // The exchange's own abort error (node:http's AbortError) says nothing of why.
    throw timedOut ? new CallTimeoutError(what, timeoutMs, { cause: e }) : e;
  } finally {
    clearTimeout(timer);
    stop?.removeEventListener('abort', onStop);
  }
}
