import { JsonError } from './json-error.js';
import { previewText } from './preview-text.js';
import type { PathSegment } from './json-path.js';
import { scanNumber } from './number-text.js';
import type { Cursor } from './parse-cursor.js';
import { fail, skipWhitespace, unexpected, where } from './parse-cursor.js';
import { readStringLiteral } from './parse-string-literal.js';
import type { JsonArray, JsonNumber, JsonObject, JsonValue } from './types.js';

/** Parses the value starting exactly at `c.pos` (whitespace already skipped). */
export function parseValue(c: Cursor): JsonValue {
  const ch = c.text.charCodeAt(c.pos);
  if (ch === 0x22 /* " */) {
    return readStringLiteral(c);
  }
  if ((ch >= 0x30 && ch <= 0x39) || ch === 0x2d /* - */) {
    return parseNumber(c);
  }
  if (ch === 0x7b /* { */) {
    return parseObject(c);
  }
  if (ch === 0x5b /* [ */) {
    return parseArray(c);
  }
  if (ch === 0x74 /* t */) {
    return parseLiteral(c, 'true', true);
  }
  if (ch === 0x66 /* f */) {
    return parseLiteral(c, 'false', false);
  }
  if (ch === 0x6e /* n */) {
    return parseLiteral(c, 'null', null);
  }
  return unexpected(c, c.pos, 'a value');
}

function parseNumber(c: Cursor): JsonNumber {
  const start = c.pos;
  const end = scanNumber(c.text, start);
  if (end < 0) {
    return fail(c, ~end, numberProblem(c.text, start, ~end));
  }
  c.pos = end;
  return { kind: 'number', text: c.text.slice(start, end) };
}

/** Why the number grammar stopped at `offset`, for the message. */
function numberProblem(text: string, start: number, offset: number): string {
  const before = text.charCodeAt(offset - 1);
  if (offset - 1 === start && before === 0x2d /* - */) {
    return "expected a digit after '-'";
  }
  if (before === 0x30 /* 0 */) {
    return 'leading zeros are not allowed in a number';
  }
  if (before === 0x2e /* . */) {
    return 'expected a digit after the decimal point';
  }
  return 'expected a digit in the exponent';
}

function parseLiteral<T extends JsonValue>(c: Cursor, word: string, value: T): T {
  if (c.text.startsWith(word, c.pos)) {
    c.pos += word.length;
    return value;
  }
  let i = c.pos + 1;
  while (c.text.charCodeAt(i) === word.charCodeAt(i - c.pos)) {
    i++;
  }
  return unexpected(c, i, `'${word}'`);
}

/**
 * Parses the value of the member `segment` of the container being parsed. When an error passes
 * through, records the segment so that `parse` can report the JSON path (see `Cursor`).
 */
function parseMember(c: Cursor, segment: PathSegment): JsonValue {
  try {
    return parseValue(c);
  } catch (error: unknown) {
    c.unwoundPath.push(segment);
    throw error;
  }
}

/** Refuses to open one more container than `maxDepth` allows (`parse` adds the path). */
function enter(c: Cursor): void {
  if (c.depth >= c.maxDepth) {
    const location = c.locate(c.pos);
    const message = `nesting deeper than ${c.maxDepth} ${where(location)}`;
    throw new JsonError('too_deep', message, { ...location, limit: c.maxDepth });
  }
  c.depth++;
}

function parseArray(c: Cursor): JsonArray {
  enter(c);
  const items: JsonValue[] = [];
  const text = c.text;
  c.pos = skipWhitespace(text, c.pos + 1);
  if (text.charCodeAt(c.pos) === 0x5d /* ] */) {
    c.pos++;
    c.depth--;
    return items;
  }
  for (;;) {
    items.push(parseMember(c, items.length));
    c.pos = skipWhitespace(text, c.pos);
    const ch = text.charCodeAt(c.pos);
    if (ch === 0x2c /* , */) {
      c.pos = skipWhitespace(text, c.pos + 1);
      continue;
    }
    if (ch === 0x5d /* ] */) {
      c.pos++;
      c.depth--;
      return items;
    }
    return unexpected(c, c.pos, "',' or ']'");
  }
}

function parseObject(c: Cursor): JsonObject {
  enter(c);
  const members = new Map<string, JsonValue>();
  const text = c.text;
  c.pos = skipWhitespace(text, c.pos + 1);
  if (text.charCodeAt(c.pos) === 0x7d /* } */) {
    c.pos++;
    c.depth--;
    return members;
  }
  for (;;) {
    const start = c.pos;
    const key = parseKey(c);
    const size = members.size;
    members.set(key, parseMember(c, key));
    // Checked after the fact: one hash lookup per member instead of two (has + set).
    if (members.size === size) {
      throw keyError(c, 'duplicate_key', key, start);
    }
    c.pos = skipWhitespace(text, c.pos);
    const ch = text.charCodeAt(c.pos);
    if (ch === 0x2c /* , */) {
      c.pos = skipWhitespace(text, c.pos + 1);
      continue;
    }
    if (ch === 0x7d /* } */) {
      c.pos++;
      c.depth--;
      return members;
    }
    return unexpected(c, c.pos, "',' or '}'");
  }
}

/** Reads `"key" :` and leaves `c.pos` on the value. */
function parseKey(c: Cursor): string {
  const start = c.pos;
  if (c.text.charCodeAt(start) !== 0x22 /* " */) {
    return unexpected(c, start, 'a string key');
  }
  const key = internKey(c, readStringLiteral(c));
  if (key === '__proto__' && !c.allowProtoKey) {
    throw keyError(c, 'forbidden_key', key, start);
  }
  c.pos = skipWhitespace(c.text, c.pos);
  if (c.text.charCodeAt(c.pos) !== 0x3a /* : */) {
    return unexpected(c, c.pos, "':'");
  }
  c.pos = skipWhitespace(c.text, c.pos + 1);
  return key;
}

/**
 * Most documents repeat a few keys (the same fields in every record). Handing back the first
 * string read for a key lets each later copy die young instead of living in the result, and
 * its hash is already computed for the object's `Map`: parsing bench/json.ts's document alone
 * went from 14 to 9 ms. Past `MAX_INTERNED_KEYS` distinct keys (say, a map keyed by ids) new keys
 * are no longer remembered, which bounds the cost when keys do not repeat.
 */
function internKey(c: Cursor, key: string): string {
  if (c.keys === undefined) {
    return key;
  }
  const known = c.keys.get(key);
  if (known !== undefined) {
    return known;
  }
  if (c.keys.size < MAX_INTERNED_KEYS) {
    c.keys.set(key, key);
  }
  return key;
}

const MAX_INTERNED_KEYS = 1024;

/** A key error at the key's opening quote (`parse` adds the path of the object). */
function keyError(
  c: Cursor,
  code: 'forbidden_key' | 'duplicate_key',
  key: string,
  start: number,
): JsonError {
  const location = c.locate(start);
  const problem = code === 'forbidden_key' ? 'forbidden key' : 'duplicate key';
  return new JsonError(code, `${problem} ${previewText(key)} ${where(location)}`, {
    ...location,
    key,
  });
}
