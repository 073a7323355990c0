/**
 * An error answer from the Weave API. Branch on `code` (stable, snake_case), never on the
 * message or on `instanceof` across package copies.
 *
 * @example
 * try { await client.createQueue({ name: 'q', application: 'app' }); }
 * catch (e) { if (isWeaveApiError(e) && e.code === 'already_exists') { … } }
 */
import { isJsonNumber } from '@weave/json';
import type { Plain } from './plain.js';

export class WeaveApiError extends Error {
  readonly code: string;
  readonly status: number;
  readonly details: Readonly<Record<string, unknown>>;
  readonly requestId: string | undefined;

  constructor(init: {
    code: string;
    status: number;
    message: string;
    details?: Record<string, unknown>;
    requestId?: string | undefined;
  }) {
    super(init.message);
    this.name = 'WeaveApiError';
    this.code = init.code;
    this.status = init.status;
    this.details = init.details ?? {};
    this.requestId = init.requestId;
  }
}

/** Duck-typed, so it works across duplicate copies of the SDK. */
export function isWeaveApiError(value: unknown): value is WeaveApiError {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { name?: unknown }).name === 'WeaveApiError' &&
    typeof (value as { code?: unknown }).code === 'string'
  );
}

/** An error answer (status + body) → `WeaveApiError`. */
export function toApiError(
  response: { readonly status: number; readonly headers: Headers },
  body: Plain,
): WeaveApiError {
  const error = asRecord(body)?.error;
  const e = asRecord(error ?? null) ?? {};
  const code = typeof e.code === 'string' ? e.code : 'internal';
  return new WeaveApiError({
    code,
    status: response.status,
    message: typeof e.message === 'string' ? e.message : `HTTP ${response.status}`,
    details:
      typeof e.details === 'object' && e.details !== null
        ? (e.details as Record<string, unknown>)
        : {},
    requestId: response.headers.get('x-request-id') ?? undefined,
  });
}

/**
 * A body over the server's limit, refused before sending: the error the server would answer
 * with (`payload_too_large`, 413, `details.limit`), without a request id since none was made.
 */
export function bodyTooLarge(bytes: number, limit: number): WeaveApiError {
  return new WeaveApiError({
    code: 'payload_too_large',
    status: 413,
    message: `the request body is ${bytes} bytes, over the limit of ${limit} (not sent)`,
    details: { limit },
  });
}

function asRecord(value: Plain): Record<string, Plain> | undefined {
  return typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    !isJsonNumber(value)
    ? value
    : undefined;
}
