/**
 * Errors a task handler throws to steer the Worker. Anything else thrown is a retryable failure
 * (the task's frozen retry policy decides whether and when it runs again).
 *
 * Whatever is thrown, the `{code, message}` reported is one the server accepts (workers.ts
 * `TaskErrorInput`): a refused item would leave the task unfailed until its lease ends, and a
 * message that is not well-formed text cannot be written as JSON at all, which would take the
 * whole completion batch down with it.
 */
import { tasks } from './protocol/index.js';
import { cutToCodePoints, toWellFormed } from './text-limits.js';

/**
 * The failure is final: no retry, whatever the policy says.
 *
 * @example
 * throw new NonRetryableError('the account is closed', { code: 'account_closed' });
 */
export class NonRetryableError extends Error {
  /**
   * Error code reported to the server (`[A-Za-z0-9_.:-]{1,64}`). Another is reported as
   * `non_retryable`, with the given code at the start of the message.
   */
  readonly code: string;

  constructor(message: string, options: { code?: string; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'NonRetryableError';
    this.code = options.code ?? DEFAULT_NON_RETRYABLE_CODE;
  }
}

const DEFAULT_NON_RETRYABLE_CODE = 'non_retryable';
const DEFAULT_RETRYABLE_CODE = 'handler_error';
/** How much of a refused code is kept in the message: enough to recognise it. */
const MAX_SHOWN_CODE = 100;

/**
 * By name as well as by class, so one thrown from a duplicate copy of the SDK (two versions in
 * one `node_modules`) is still final, as `isWeaveApiError` works across copies.
 */
export function isNonRetryableError(value: unknown): boolean {
  return (
    value instanceof NonRetryableError ||
    (typeof value === 'object' &&
      value !== null &&
      (value as { name?: unknown }).name === 'NonRetryableError')
  );
}

/** The `{code, message, retryable}` a thrown value is reported as. */
export function toTaskError(error: unknown): { code: string; message: string; retryable: boolean } {
  const retryable = !isNonRetryableError(error);
  const given = (error as { code?: unknown } | null)?.code;
  const message = messageOf(error);
  if (typeof given === 'string' && tasks.ERROR_CODE_PATTERN.test(given)) {
    return { code: given, message: toErrorMessage(message), retryable };
  }
  const code = retryable ? DEFAULT_RETRYABLE_CODE : DEFAULT_NON_RETRYABLE_CODE;
  if (given === undefined || given === null) {
    return { code, message: toErrorMessage(message), retryable };
  }
  // In front, so that a message cut to its limit keeps it.
  const shown =
    typeof given === 'string' || typeof given === 'number'
      ? cutToCodePoints(String(given), MAX_SHOWN_CODE)
      : `of type ${typeof given}`;
  return { code, message: toErrorMessage(`[invalid code ${shown}] ${message}`), retryable };
}

/**
 * `text` as the server takes an error message: well-formed (a lone surrogate, which has no
 * UTF-8 form, becomes U+FFFD) and at most `MAX_ERROR_MESSAGE` code points, the server's count,
 * cut between code points so that no surrogate pair is split.
 */
export function toErrorMessage(text: string): string {
  return cutToCodePoints(toWellFormed(text), tasks.MAX_ERROR_MESSAGE);
}

function messageOf(error: unknown): string {
  try {
    return error instanceof Error ? String(error.message) : String(error);
  } catch {
    // A value whose conversion to a string throws (an object without a prototype).
    return 'a thrown value that cannot be shown as text';
  }
}
