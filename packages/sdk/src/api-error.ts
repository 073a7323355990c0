/**
 * An error answer from the Weave API. Branch on `code` (stable, snake_case), never on the
 * message or on `instanceof` across package copies.
 *
 * @example
 * try { await client.createQueue({ name: 'q', application: 'app' }); }
 * catch (e) { if (isWeaveApiError(e) && e.code === 'already_exists') { … } }
 */
import { isJsonNumber, parse } from '@weave/json';
import { toPlain } from './plain.js';
import type { Plain } from './plain.js';
import type { ErrorCode } from './protocol/index.js';
import { cutToCodePoints } from './text-limits.js';

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

/**
 * An error answer (status + body text) → `WeaveApiError`. The body is the server's
 * `{"error": {code, message, details}}`, or, when something in front of it answered (a proxy's
 * HTML 502 page, a load balancer's empty 503), whatever that sent: then the code follows the
 * status (`fallbackCode`) and the message shows the status and the start of the body.
 */
export function toApiError(
  response: { readonly status: number; readonly headers: Headers },
  text: string,
): WeaveApiError {
  const requestId = response.headers.get('x-request-id') ?? undefined;
  let body: Plain;
  try {
    body = text === '' ? null : toPlain(parse(text));
  } catch {
    return new WeaveApiError({
      code: fallbackCode(response.status),
      status: response.status,
      message: `HTTP ${response.status} with a body that is not JSON: ${previewOf(text)}`,
      requestId,
    });
  }
  const e = asRecord(asRecord(body)?.error ?? null) ?? {};
  return new WeaveApiError({
    code: typeof e.code === 'string' ? e.code : fallbackCode(response.status),
    status: response.status,
    message: typeof e.message === 'string' ? e.message : `HTTP ${response.status}`,
    details:
      typeof e.details === 'object' && e.details !== null
        ? (e.details as Record<string, unknown>)
        : {},
    requestId,
  });
}

/** Longest part of a non-JSON error body shown in the message: enough to tell which page it is. */
const MAX_BODY_PREVIEW = 200;

/**
 * The code of an error answer without one. 502, 503 and 504 are what a proxy or load balancer
 * answers while the server is down or restarting: `unavailable`, which callers retry. A proxy's
 * 413 means what the server's does. Anything else is `internal`.
 */
function fallbackCode(status: number): ErrorCode {
  if (status === 502 || status === 503 || status === 504) {
    return 'unavailable';
  }
  return status === 413 ? 'payload_too_large' : 'internal';
}

function previewOf(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  const shown = cutToCodePoints(flat, MAX_BODY_PREVIEW);
  return flat === '' ? '(empty)' : shown === flat ? flat : `${shown}…`;
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
