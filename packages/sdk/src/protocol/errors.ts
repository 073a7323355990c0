/**
 * The stable error codes of the HTTP API and their statuses (API.md "Conventions").
 * Shared by the server (which answers with them) and the SDK (which turns answers back into
 * errors). Callers branch on `code`, never on message text.
 */
export const ERROR_STATUS = {
  malformed_json: 400,
  invalid_argument: 400,
  unauthenticated: 401,
  permission_denied: 403,
  not_found: 404,
  method_not_allowed: 405,
  already_exists: 409,
  idempotency_conflict: 409,
  revision_mismatch: 409,
  permit_stale: 409,
  invalid_state: 409,
  cursor_expired: 410,
  payload_too_large: 413,
  unsupported_media_type: 415,
  quota_exceeded: 429,
  queue_full: 429,
  active_instance_limit: 429,
  internal: 500,
  unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export function isErrorCode(value: string): value is ErrorCode {
  return Object.hasOwn(ERROR_STATUS, value);
}

/** The status for a code; unknown codes are server faults. */
export function statusOf(code: string): number {
  return isErrorCode(code) ? ERROR_STATUS[code] : 500;
}

/** The one error body shape: `{"error": {"code", "message", "details"}}`. */
export interface ErrorBody {
  readonly error: {
    readonly code: string;
    readonly message: string;
    readonly details?: Readonly<Record<string, unknown>>;
  };
}
