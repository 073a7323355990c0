import type { JsonValue, RawJson } from './types.js';

/**
 * What `stringify` and `canonicalize` accept: the exact model (`JsonValue`, with `RawJson`
 * anywhere inside) and, for server code, plain JS values: arrays, plain objects (own enumerable
 * string keys; `undefined` members are skipped), finite numbers and bigints. A plain object
 * `{ kind: 'number' | 'raw', text: string }` *is* a `JsonNumber` / `RawJson`.
 *
 * Members are typed `unknown` on purpose: server code carries `Record<string, unknown>` details,
 * and a deep type would force casts that check nothing. Members are checked at run time instead,
 * and a bad one is reported with its JSON path. Declared `interface`s are not assignable to an
 * index signature (a TypeScript rule): spread them (`stringify({ ...row })`) or use `type`.
 */
export type JsonInput =
  | JsonValue
  | RawJson
  | number
  | bigint
  | readonly unknown[]
  | ReadonlyMap<string, unknown>
  | { readonly [key: string]: unknown };
