/**
 * `toErrorResponse(err)`: the one mapping from anything thrown to the error shape of API.md
 * (`{"error": {"code", "message", "details"}}`). Unknown errors are `internal` and say nothing
 * about their cause to the caller.
 */
import { statusOf } from '@weave/sdk/protocol';
import type { ErrorCode, ErrorDetail } from '@weave/sdk/protocol';
import { isWeaveError } from '../errors.js';

export interface ErrorResponse {
  readonly status: number;
  readonly body: { readonly error: ErrorDetail };
}

/** Fastify's own errors, by code, mapped to ours. */
const FASTIFY_CODES: Readonly<Record<string, { code: ErrorCode; message: string }>> = {
  FST_ERR_CTP_BODY_TOO_LARGE: {
    code: 'payload_too_large',
    message: 'the request body is too large',
  },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: {
    code: 'unsupported_media_type',
    message: 'the body must be application/json',
  },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: {
    code: 'invalid_argument',
    message: 'Content-Length does not match the body',
  },
  FST_ERR_CTP_EMPTY_JSON_BODY: { code: 'malformed_json', message: 'the JSON body is empty' },
};

export function toErrorResponse(error: unknown, limits: { bodyLimitBytes: number }): ErrorResponse {
  if (isWeaveError(error)) {
    const details = error.code === 'unauthenticated' ? undefined : { ...error.details };
    return {
      status: statusOf(error.code),
      body: {
        error: {
          code: error.code,
          message: error.message,
          ...(details && Object.keys(details).length > 0 ? { details } : {}),
        },
      },
    };
  }
  const fastifyCode =
    typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  const known = typeof fastifyCode === 'string' ? FASTIFY_CODES[fastifyCode] : undefined;
  if (known !== undefined) {
    const details =
      known.code === 'payload_too_large' ? { limit: limits.bodyLimitBytes } : undefined;
    return {
      status: statusOf(known.code),
      body: {
        error: { code: known.code, message: known.message, ...(details ? { details } : {}) },
      },
    };
  }
  return { status: 500, body: { error: { code: 'internal', message: 'internal error' } } };
}
