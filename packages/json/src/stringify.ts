import type { JsonInput } from './json-input.js';
import { writeJson, writeJsonChunks } from './write-json.js';

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

/**
 * `stringify`'s text in pieces whose concatenation is that text, for a caller that writes them
 * out one by one (a response body) and never needs the whole text as one string. A string over
 * ~128 KiB is a large object for V8: it gets memory of its own from the system, which a
 * virtual machine may have to fault in page by page (~1 ms per 128 KiB measured here). Pieces
 * come from the writer's buffer (at most 64 KiB each) or are the document's own large members
 * (`RawJson`, long strings) as they are, never copied.
 */
export function stringifyChunks(value: JsonInput, options: StringifyOptions = {}): string[] {
  return writeJsonChunks(value, { indent: indentText(options.indent), canonical: false });
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
