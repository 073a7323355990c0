/**
 * `@weave/json`: exact JSON for Weave. Numbers keep their source text (no float64 rounding),
 * objects keep their key order (as `Map`s), and parsing is strict RFC 8259 with limits, so a
 * document is stored, compared and returned exactly as the client wrote it.
 * See docs/design/json.md for the contract.
 *
 * @example
 * const value = parse('{"amount":12.50}');
 * stringify(value); // '{"amount":12.50}'
 *
 * @packageDocumentation
 */
export type { JsonArray, JsonNumber, JsonObject, JsonValue, RawJson } from './types.js';
export type { JsonInput } from './json-input.js';
export type { JsonErrorCode, JsonErrorDetails } from './json-error.js';
export { JsonError } from './json-error.js';
export type { ParseOptions } from './parse.js';
export { MAX_DEPTH_LIMIT, parse } from './parse.js';
export type { StringifyOptions } from './stringify.js';
export { stringify, stringifyChunks } from './stringify.js';
export { canonicalize } from './canonicalize.js';
export { compareNumberText } from './compare-number-text.js';
export { isNumberText } from './number-text.js';
export { jsonNumber } from './json-number.js';
export { utf8ByteLength } from './utf8.js';
export { equalJson } from './equal-json.js';
export { isJsonArray, isJsonNumber, isJsonObject, isRawJson } from './guards.js';
