/**
 * Stable error codes of `@weave/json`. Callers branch on `code`, never on the message
 * (STYLE.md §5). The first five come from `parse`; the last two from building or writing values.
 */
export type JsonErrorCode =
  | 'malformed_json'
  | 'duplicate_key'
  | 'forbidden_key'
  | 'too_deep'
  | 'payload_too_large'
  | 'unserializable_value'
  | 'invalid_number';

/**
 * Where and why. Parse errors carry `position` (byte offset for `Uint8Array` input, UTF-16 offset
 * for string input) with 1-based `line`/`column` in the same unit; object-level errors add `path`.
 */
export interface JsonErrorDetails {
  readonly position?: number;
  readonly line?: number;
  readonly column?: number;
  readonly path?: string;
  readonly key?: string;
  readonly limit?: number;
  readonly size?: number;
}

/** The one error class of the package; `details` is a plain object safe to send to a client. */
export class JsonError extends Error {
  readonly code: JsonErrorCode;
  readonly details: JsonErrorDetails;

  constructor(code: JsonErrorCode, message: string, details: JsonErrorDetails = {}) {
    super(message);
    this.name = 'JsonError';
    this.code = code;
    this.details = details;
  }
}
