/**
 * The exact JSON value model.
 *
 * - Numbers keep their original text (`1e400`, `-0.0`, `0.10`): a `JsonNumber`, never a float64.
 * - Objects are `ReadonlyMap`s so key order is kept exactly (a plain JS object would move
 *   integer-like keys such as `"10"` first) and `__proto__` can never reach a prototype.
 * - Explicit `null` and a missing member are different things (`map.has(k)`).
 */
export type JsonValue = null | boolean | string | JsonNumber | JsonArray | JsonObject;
export type JsonArray = readonly JsonValue[];
export type JsonObject = ReadonlyMap<string, JsonValue>;

/** A JSON number as its exact source text, which always matches the JSON number grammar. */
export interface JsonNumber {
  readonly kind: 'number';
  readonly text: string;
}

/**
 * Already-validated JSON text to embed verbatim when stringifying (payloads stored as text are
 * never re-parsed on the way out: DESIGN.md §5a "Parse once").
 */
export interface RawJson {
  readonly kind: 'raw';
  readonly text: string;
}
