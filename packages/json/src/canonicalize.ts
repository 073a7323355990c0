import type { JsonInput } from './json-input.js';
import { writeJson } from './write-json.js';

/**
 * The digest form of `value`: no whitespace, object keys sorted by UTF-16 code units (as RFC 8785
 * §3.2.3), strings with the minimal escapes, and number text kept exactly as written. Unlike RFC
 * 8785 numbers are not re-formatted: `1.0` and `1` are different requests, because we store and
 * return the text the client sent. `RawJson` inside is parsed and canonicalized too.
 *
 * @example canonicalize(parse('{"b": 1.0, "a": [2]}')) // '{"a":[2],"b":1.0}'
 */
export function canonicalize(value: JsonInput): string {
  return writeJson(value, { indent: '', canonical: true });
}
