import type { JsonInput } from './json-input.js';
import { writeJson } from './write-json.js';

export interface StringifyOptions {
  /** Spaces per level (0–10) or a string of spaces and tabs (≤10). Default: compact. */
  readonly indent?: number | string;
}

/** Longest indent, as `JSON.stringify` clamps it: deeper documents would be mostly blanks. */
const MAX_INDENT = 10;

/**
 * JSON text of `value`, keys in Map/insertion order, every `JsonNumber` written as its text and
 * every `RawJson` copied verbatim. Strings get the minimal escapes, so `stringify(parse(t)) === t`
 * for compact documents written that way. Throws `JsonError` `unserializable_value` (with
 * `details.path`) for NaN/Infinity, functions, symbols, `undefined` in arrays, cycles, class
 * instances, lone surrogates and invalid `JsonNumber` text.
 *
 * @example stringify({ a: jsonNumber('1.50'), b: [true, null] }) // '{"a":1.50,"b":[true,null]}'
 */
export function stringify(value: JsonInput, options: StringifyOptions = {}): string {
  return writeJson(value, { indent: indentText(options.indent), canonical: false });
}

function indentText(indent: number | string | undefined): string {
  if (indent === undefined) {
    return '';
  }
  if (typeof indent === 'number') {
    if (!Number.isInteger(indent) || indent < 0 || indent > MAX_INDENT) {
      throw new RangeError(`indent must be an integer from 0 to ${MAX_INDENT}`);
    }
    return ' '.repeat(indent);
  }
  // Only JSON whitespace keeps the output valid JSON; newlines would make it unreadable.
  if (!/^[ \t]*$/.test(indent) || indent.length > MAX_INDENT) {
    throw new RangeError(`indent must be at most ${MAX_INDENT} spaces or tabs`);
  }
  return indent;
}
