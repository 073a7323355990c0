import type { Cursor } from './parse-cursor.js';
import { describeCharAt, fail } from './parse-cursor.js';
import { hasNoEscapeOrLoneSurrogate, LONG_STRING } from './plain-text.js';

/**
 * Reads the string literal whose opening quote is at `c.pos` and leaves `c.pos` after the closing
 * quote. Most strings hold no escape, control character or surrogate: those are one `slice` of
 * the input (past `LONG_STRING` units the rest is looked over by `readLongPlainString`).
 * Anything else goes through `readSpecialString`, which also validates.
 */
export function readStringLiteral(c: Cursor): string {
  const text = c.text;
  const start = c.pos + 1;
  const length = text.length;
  const searchFrom = start + LONG_STRING;
  for (let i = start; i < length; i++) {
    const ch = text.charCodeAt(i);
    if (ch === 0x22) {
      c.pos = i + 1;
      return text.slice(start, i);
    }
    if (ch === 0x5c || ch < 0x20 || (ch >= 0xd800 && ch <= 0xdfff)) {
      return readSpecialString(c, start, i);
    }
    if (i === searchFrom) {
      const plain = readLongPlainString(c, start, i);
      if (plain !== undefined) {
        return plain;
      }
    }
  }
  return fail(c, length, 'unterminated string');
}

/**
 * The whole string, when its rest from `from` (a code unit that is neither a quote nor special)
 * is plain up to the next quote and at least `LONG_STRING` units long: found with the engine's
 * searches (plain-text.ts). Otherwise undefined, and the loop goes on from `from` as if nothing
 * had been looked at, so the value it returns or the error it raises, at the same place, does
 * not depend on this path.
 */
function readLongPlainString(c: Cursor, start: number, from: number): string | undefined {
  const text = c.text;
  const end = text.indexOf('"', from);
  // A short rest is cheaper to loop over than to search (each search has a fixed cost).
  if (end - from < LONG_STRING || !hasNoEscapeOrLoneSurrogate(text.slice(from, end))) {
    return undefined;
  }
  c.pos = end + 1;
  return text.slice(start, end);
}

/** The slow path from offset `from` on: escapes decoded, surrogate pairs checked. */
function readSpecialString(c: Cursor, start: number, from: number): string {
  const text = c.text;
  let out = '';
  let copied = start;
  let i = from;
  while (i < text.length) {
    const ch = text.charCodeAt(i);
    if (ch === 0x22) {
      c.pos = i + 1;
      return out + text.slice(copied, i);
    }
    if (ch === 0x5c) {
      const decoded = readEscape(c, i);
      out += text.slice(copied, i) + decoded;
      // A \u escape is 6 characters per decoded code unit; the others are 2.
      i += text.charCodeAt(i + 1) === 0x75 ? 6 * decoded.length : 2;
      copied = i;
    } else if (ch < 0x20) {
      fail(c, i, `control character ${describeCharAt(text, i)} must be escaped in a string`);
    } else if (ch >= 0xd800 && ch <= 0xdfff) {
      i += surrogatePairLength(c, i);
    } else {
      i++;
    }
  }
  return fail(c, text.length, 'unterminated string');
}

/** 2 for a high surrogate followed by a low one; a lone surrogate is malformed. */
function surrogatePairLength(c: Cursor, i: number): number {
  const ch = c.text.charCodeAt(i);
  const next = c.text.charCodeAt(i + 1);
  if (ch <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
    return 2;
  }
  return fail(c, i, `lone surrogate ${describeCharAt(c.text, i)} in a string`);
}

/** The text an escape starting with the backslash at `i` stands for. */
function readEscape(c: Cursor, i: number): string {
  const e = c.text.charCodeAt(i + 1);
  switch (e) {
    case 0x22:
      return '"';
    case 0x5c:
      return '\\';
    case 0x2f:
      return '/';
    case 0x62:
      return '\b';
    case 0x66:
      return '\f';
    case 0x6e:
      return '\n';
    case 0x72:
      return '\r';
    case 0x74:
      return '\t';
    case 0x75:
      return readUnicodeEscape(c, i);
    default:
      return i + 1 >= c.text.length
        ? fail(c, c.text.length, 'unterminated string')
        : fail(c, i, `invalid escape '\\${c.text.charAt(i + 1)}'`);
  }
}

/**
 * A `\uXXXX` escape, or a `\uHHHH\uLLLL` surrogate pair. An escaped surrogate that is not half of
 * such a pair would decode to a string that has no UTF-8 form, so it is malformed.
 */
function readUnicodeEscape(c: Cursor, i: number): string {
  const unit = readHex4(c.text, i + 2);
  if (unit < 0) {
    return fail(c, i, 'invalid \\u escape: expected 4 hexadecimal digits');
  }
  if (unit < 0xd800 || unit > 0xdfff) {
    return String.fromCharCode(unit);
  }
  if (unit <= 0xdbff && c.text.startsWith('\\u', i + 6)) {
    const low = readHex4(c.text, i + 8);
    if (low >= 0xdc00 && low <= 0xdfff) {
      return String.fromCharCode(unit, low);
    }
  }
  return fail(c, i, `lone surrogate escape '${c.text.slice(i, i + 6)}' in a string`);
}

/** The value of 4 hexadecimal digits at `i`, or -1 if any is missing or not hexadecimal. */
function readHex4(text: string, i: number): number {
  let value = 0;
  for (let k = i; k < i + 4; k++) {
    const digit = hexDigit(text.charCodeAt(k));
    if (digit < 0) {
      return -1;
    }
    value = value * 16 + digit;
  }
  return value;
}

function hexDigit(c: number): number {
  if (c >= 0x30 && c <= 0x39) {
    return c - 0x30;
  }
  const lower = c | 0x20;
  return lower >= 0x61 && lower <= 0x66 ? lower - 0x61 + 10 : -1;
}
