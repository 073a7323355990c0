/**
 * Re-sending a worker call that got no answer (a node restarting, a dropped connection, a call
 * that ran out of time): starts and identical completions are answered the same when repeated
 * (E1.6), so a re-send is safe. An answer from the server (`WeaveApiError`, e.g. `permit_stale`)
 * is never re-sent.
 */
import { isWeaveApiError } from './api-error.js';

/**
 * Tries in all, waiting 100, 200, 400 and 800 ms between them: long enough to ride out a node
 * restart, well inside a 30 s lease.
 */
const RESEND_TRIES = 5;
const RESEND_FIRST_DELAY_MS = 100;

/**
 * Runs `call` (given the try's number, from 1), again after a growing pause while it fails
 * without an answer from the server.
 *
 * @example
 * await resend(() => client.startAttempt(t.task_id, t.attempt_id, t.permit));
 */
export async function resend<T>(call: (attempt: number) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await call(attempt);
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
