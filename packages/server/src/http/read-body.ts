/**
 * Reads a request body up to its limit. Past the limit the rest is read and thrown away, up to
 * `drainBytes` in all, so that the client, still sending, receives the 413 instead of a reset
 * socket (a server that stops reading and closes makes the client's write fail with EPIPE or
 * ECONNRESET before it sees the answer). A body larger than that is not read further: the
 * answer is sent at once and the connection closed. Fastify's own reader stops at the limit,
 * which is why this one replaces it.
 */
import type { Readable } from 'node:stream';

export type BodyOutcome =
  | { readonly kind: 'body'; readonly body: Buffer }
  /** Over the limit; `drained` says whether the whole body was read (the socket is clean). */
  | { readonly kind: 'too_large'; readonly receivedBytes: number; readonly drained: boolean }
  | { readonly kind: 'length_mismatch'; readonly receivedBytes: number }
  | { readonly kind: 'failed'; readonly error: Error };

export interface BodyLimits {
  readonly limitBytes: number;
  /** How much of a body is read in all (kept, then discarded) before giving up on it. */
  readonly drainBytes: number;
}

/**
 * Past the limit, up to this many times the limit more is read and discarded (a 2 MiB limit
 * drains bodies up to 10 MiB) before the connection is closed instead.
 */
export const DRAIN_FACTOR = 4;

export function bodyLimits(limitBytes: number): BodyLimits {
  return { limitBytes, drainBytes: limitBytes * (1 + DRAIN_FACTOR) };
}

export function readBody(
  payload: Readable,
  contentLength: number | undefined,
  limits: BodyLimits,
  finish: (outcome: BodyOutcome) => void,
): void {
  if (contentLength !== undefined && contentLength > limits.drainBytes) {
    // Announced too large even to drain: answer now, read nothing.
    finish({ kind: 'too_large', receivedBytes: 0, drained: false });
    return;
  }
  const chunks: Buffer[] = [];
  let received = 0;
  let settled = false;
  const settle = (outcome: BodyOutcome) => {
    if (settled) {
      return;
    }
    settled = true;
    payload.off('data', onData);
    payload.off('end', onEnd);
    payload.off('error', onError);
    finish(outcome);
  };
  const onData = (chunk: Buffer | string) => {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    received += bytes.length;
    if (received > limits.drainBytes) {
      payload.pause();
      settle({ kind: 'too_large', receivedBytes: received, drained: false });
      return;
    }
    if (received <= limits.limitBytes) {
      chunks.push(bytes);
    } else if (chunks.length > 0) {
      // Over the limit: keep reading, but keep nothing.
      chunks.length = 0;
    }
  };
  const onEnd = () => {
    if (received > limits.limitBytes) {
      settle({ kind: 'too_large', receivedBytes: received, drained: true });
    } else if (contentLength !== undefined && received !== contentLength) {
      settle({ kind: 'length_mismatch', receivedBytes: received });
    } else {
      settle({ kind: 'body', body: Buffer.concat(chunks, received) });
    }
  };
  const onError = (e: Error) => settle({ kind: 'failed', error: e });
  payload.on('data', onData);
  payload.on('end', onEnd);
  payload.on('error', onError);
  payload.resume();
}
