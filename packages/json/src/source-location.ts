import { utf8PrefixLength } from './utf8.js';

/** A place in the input: `position` is 0-based, `line` and `column` are 1-based. */
export interface SourceLocation {
  readonly position: number;
  readonly line: number;
  readonly column: number;
}

/**
 * Location of a UTF-16 offset in a string. Only LF starts a line (so CRLF counts once); the
 * column is in UTF-16 code units, the same unit as the position.
 */
export function locateInString(text: string, offset: number): SourceLocation {
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { position: offset, line, column: offset - lineStart + 1 };
}

/** Location of a byte offset: lines as in `locateInString`, the column counted in bytes. */
export function locateInBytes(bytes: Uint8Array, offset: number): SourceLocation {
  let line = 1;
  let lineStart = 0;
  for (let i = bytes.indexOf(0x0a); i !== -1 && i < offset; i = bytes.indexOf(0x0a, i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { position: offset, line, column: offset - lineStart + 1 };
}

/**
 * Location of a UTF-16 offset of `text` (decoded from valid UTF-8 `bytes`) as a byte location.
 * Exact because decoding valid UTF-8 is a bijection between code points.
 */
export function locateDecoded(bytes: Uint8Array, text: string, offset: number): SourceLocation {
  return locateInBytes(bytes, utf8PrefixLength(text, offset));
}
