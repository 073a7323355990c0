/**
 * Errors a task handler throws to steer the Worker. Anything else thrown is a retryable failure
 * (the task's frozen retry policy decides whether and when it runs again).
 */

/**
 * The failure is final: no retry, whatever the policy says.
 *
 * @example
 * throw new NonRetryableError('the account is closed', { code: 'account_closed' });
 */
export class NonRetryableError extends Error {
  /** Error code reported to the server (`[A-Za-z0-9_.:-]{1,64}`). */
  readonly code: string;

  constructor(message: string, options: { code?: string; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'NonRetryableError';
    this.code = options.code ?? 'non_retryable';
  }
}

const CODE_PATTERN = /^[A-Za-z0-9_.:-]{1,64}$/;

/** The `{code, message, retryable}` a thrown value is reported as. */
export function toTaskError(error: unknown): { code: string; message: string; retryable: boolean } {
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof NonRetryableError) {
    return { code: error.code, message, retryable: false };
  }
  const code = (error as { code?: unknown } | null)?.code;
  return {
    code: typeof code === 'string' && CODE_PATTERN.test(code) ? code : 'handler_error',
    message: message.slice(0, 4000),
    retryable: true,
  };
}
