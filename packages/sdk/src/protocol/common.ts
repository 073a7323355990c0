/** Shapes that many routes share: ids, instants, durations, names, pages and the error body. */
import { ERROR_STATUS } from './errors.js';
import { NAME_PATTERN } from './scopes.js';
import type { Infer, Schema } from './schema.js';
import {
  array,
  integer,
  json,
  literal,
  named,
  object,
  optional,
  record,
  string,
} from './schema.js';

/** A 64-bit id or revision as a decimal string (`"1842"`). */
export const ID_PATTERN = /^[0-9]{1,19}$/;

export const Id = string({ pattern: ID_PATTERN, description: 'decimal string', examples: ['42'] });
export const Revision = string({
  pattern: ID_PATTERN,
  description: 'decimal string; bumped by every change',
  examples: ['2'],
});

/** RFC 3339 UTC with microseconds, the database's clock. */
export const Instant = string({
  format: 'date-time',
  description: 'RFC 3339, UTC, microseconds; always the database clock',
  examples: ['2026-11-29T20:30:11.123456Z'],
});

export const DURATION_PATTERN =
  /^P(?:[0-9]{1,6}D)?(?:T(?:[0-9]{1,7}H)?(?:[0-9]{1,9}M)?(?:[0-9]{1,11}(?:\.[0-9]{1,6})?S)?)?$/;

/** ISO 8601 duration in days, hours, minutes and seconds (`PT30S`, `P1DT2H`). */
export const Duration = string({
  pattern: DURATION_PATTERN,
  description: 'ISO 8601 duration (days, hours, minutes, seconds with up to 6 decimals)',
  examples: ['PT30S'],
});

/** Names of namespaces, applications, queues, streams and workflows. */
export const Name = string({ pattern: NAME_PATTERN, examples: ['orders'] });

/** A payload: any JSON value, numbers kept exact. */
export const Payload = json({ description: 'any JSON value; numbers keep their exact text' });

export const PageQuery = {
  page_size: integer({ minimum: 1, maximum: 500, description: 'default 50' }),
  page_token: string({ description: 'next_page_token of the previous page' }),
} as const;

/** `{items, next_page_token?}`; the token is absent on the last page. */
export function page<T>(name: string, item: Schema<T>) {
  return named(
    name,
    object({
      items: array(item),
      next_page_token: optional(string({ description: 'absent on the last page' })),
    }),
  );
}

export const ErrorDetail = named(
  'ErrorDetail',
  object({
    code: literal(Object.keys(ERROR_STATUS) as (keyof typeof ERROR_STATUS)[]),
    message: string({ description: 'human text naming the field by JSON path' }),
    details: optional(
      record(json(), {
        description: 'e.g. `path` (`$.input.amount`), `limit`, `earliest_seq`, `position`',
      }),
    ),
  }),
);
export type ErrorDetail = Infer<typeof ErrorDetail>;

/** The one error body: `{"error": {"code", "message", "details"}}`. */
export const ErrorAnswer = named('Error', object({ error: ErrorDetail }));
