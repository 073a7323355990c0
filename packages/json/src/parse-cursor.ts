import { JsonError } from './json-error.js';
import type { PathSegment } from './json-path.js';
import type { SourceLocation } from './source-location.js';

/**
 * The parser's state, one per `parse` call. A plain object with a fixed shape rather than
 * closures so that every helper is a small top-level function V8 can inline.
 *
 * `unwoundPath` collects, innermost first, the key or index of every member an error passes
 * through on its way out, so the JSON path costs nothing unless there is an error. (Storing
 * the current key of every level as the parser went measured 20% slower.)
 */
export interface Cursor {
  readonly text: string;
  pos: number;
  depth: number;
  readonly maxDepth: number;
  readonly allowProtoKey: boolean;
  readonly unwoundPath: PathSegment[];
  /** Keys seen so far, to share one string per distinct key; only for big texts (`internKey`). */
  readonly keys: Map<string, string> | undefined;
  /** Maps a UTF-16 offset of `text` to the location reported to the caller (bytes or UTF-16). */
  readonly locate: (offset: number) => SourceLocation;
}

/** Throws `malformed_json` at `offset` of the text. */
export function fail(c: Cursor, offset: number, message: string): never {
  const location = c.locate(offset);
  throw new JsonError('malformed_json', `${message} ${where(location)}`, location);
}

/** Throws `malformed_json` for the character at `offset`, saying what the grammar wanted. */
export function unexpected(c: Cursor, offset: number, expected: string): never {
  const found = offset >= c.text.length ? 'end of input' : describeCharAt(c.text, offset);
  return fail(c, offset, `expected ${expected} but found ${found}`);
}

/** `at position 12 (line 2, column 3)`, for messages. */
export function where(location: SourceLocation): string {
  return `at position ${location.position} (line ${location.line}, column ${location.column})`;
}

/** `'x'` for printable ASCII, else `U+XXXX` (the whole code point for a surrogate pair). */
export function describeCharAt(text: string, offset: number): string {
  const code = text.codePointAt(offset) ?? 0;
  if (code >= 0x20 && code < 0x7f) {
    return `'${String.fromCharCode(code)}'`;
  }
  return 'U+' + code.toString(16).toUpperCase().padStart(4, '0');
}

/** First offset at or after `pos` that is not JSON whitespace (space, tab, LF, CR only). */
export function skipWhitespace(text: string, pos: number): number {
  while (pos < text.length) {
    const c = text.charCodeAt(pos);
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) {
      return pos;
    }
    pos++;
  }
  return pos;
}
