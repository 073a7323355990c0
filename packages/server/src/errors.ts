import type { ErrorCode } from '@weave/sdk/protocol';

/**
 * The one error class of the server (STYLE.md §5). `code` is a stable snake_case string whose
 * HTTP status lives in `@weave/sdk/protocol`; `details` names the field (`path`) or the limit.
 */
export class WeaveError extends Error {
  readonly code: ErrorCode;
  readonly details: Readonly<Record<string, unknown>>;

  constructor(
    code: ErrorCode,
    message: string,
    options: { details?: Record<string, unknown>; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'WeaveError';
    this.code = code;
    this.details = withJsonPath(options.details ?? {});
  }
}

/**
 * `details.path` is always a JSON path into the request seen as one object (body members,
 * query parameters and path parameters side by side): `status` becomes `$.status`. Done here,
 * once, so no call site can forget it.
 */
function withJsonPath(details: Record<string, unknown>): Record<string, unknown> {
  const path = details.path;
  return typeof path === 'string' && !path.startsWith('$')
    ? { ...details, path: toJsonPath(path) }
    : details;
}

/** `status` → `$.status`, `Idempotency-Key` → `$['Idempotency-Key']`; a JSON path stays. */
export function toJsonPath(name: string): string {
  if (name.startsWith('$')) {
    return name;
  }
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) ? `$.${name}` : `$['${name}']`;
}

export function isWeaveError(value: unknown): value is WeaveError {
  return value instanceof WeaveError;
}

/** Normalise anything thrown into an Error, once (graphile's coerceError). */
export function toError(value: unknown): Error {
  return value instanceof Error ? value : new Error(String(value));
}

export function invalidArgument(path: string, message: string): WeaveError {
  const jsonPath = toJsonPath(path);
  return new WeaveError('invalid_argument', `${jsonPath} ${message}`, {
    details: { path: jsonPath },
  });
}

export function notFound(what: string, details: Record<string, unknown> = {}): WeaveError {
  return new WeaveError('not_found', `${what} not found`, { details });
}

/** A create whose name is taken, found by the existence check or by the unique index (`cause`). */
export function alreadyExists(message: string, cause?: unknown): WeaveError {
  return new WeaveError('already_exists', message, {
    details: { path: '$.name' },
    ...(cause === undefined ? {} : { cause }),
  });
}
