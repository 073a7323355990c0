/**
 * MariaDB statements as the text that goes on the wire: each `?` of a statement replaced by its
 * parameter, escaped exactly as mysql2 escapes it (it binds parameters by writing them into the
 * text, with `sql-escaper`), with far fewer bytes allocated (docs/design/hot-path.md §43).
 *
 * mysql2 formats a statement by scanning its text for placeholders on every call and building
 * the result by concatenation: a sliced chunk of the text, a quoted copy of the value and two
 * concatenations for every parameter, then the whole text flattened when it is written to the
 * socket. A worker-call group's packet holds ~70 parameters a job, and that formatting was the
 * largest single piece of what a server allocated a job (12 KiB of 75). Here the text between
 * placeholders is split once per statement text and kept, and a packet (every statement's
 * chunks and values, and the `;\n` between statements) is written as bytes into one buffer that
 * is reused from call to call, escaping as it copies; the one string allocated is the text
 * itself, read from the buffer at the end.
 *
 * The buffer holds ASCII only, so that its bytes are the text's characters one for one. A packet
 * with any other character in a value (or a statement or value this module does not write, see
 * below) is written by mysql2's own formatting, statement by statement, as before.
 *
 * Exactness is checked, not assumed: the first time a statement text is seen, its text written
 * here is compared with mysql2's formatting of the same statement and values; a text where they
 * differ (a placeholder inside a literal, an identifier placeholder `??`) is formatted by mysql2
 * on every call after. The escaping is mysql2's table (`sql-escaper`'s `escapeString`: `\0 \b \t
 * \n \r \Z \" \' \\`), checked against it in the tests for every character below 128. A
 * statement with a parameter that is not a string, number, bigint, boolean, null or bytes (an
 * object, a date, whose text mysql2 chooses by where it stands) is mysql2's whole.
 */
import { format } from 'mysql2';
import { flatten } from './flatten.js';

/** What mysql2 binds with on Weave's pool (`timezone: 'Z'`). */
const TIME_ZONE = 'Z';

/** A statement text's pieces between placeholders, or null: formatted by mysql2 every time. */
type Chunks = readonly string[] | null;

/** Bounds the kept texts by their total length; a text first seen beyond it is mysql2's. */
const MAX_KEPT_CHARS = 4 * 1024 * 1024;

const chunksOf = new Map<string, Chunks>();
let keptChars = 0;

export interface Statement {
  readonly sql: string;
  readonly parameters: readonly unknown[];
}

const packets = new WeakMap<readonly unknown[], readonly Statement[]>();

/**
 * The parameters of `statements` sent as one packet (their texts joined by `;\n`), in order;
 * `formatQuery` given this array writes each statement by its own kept split.
 */
export function packetParameters(statements: readonly Statement[]): unknown[] {
  const parameters = flatten(statements, (s) => s.parameters);
  packets.set(parameters, statements);
  return parameters;
}

/** mysql2's `queryFormat` on Weave's pool: the text a query's `sql` and `values` make. */
export function formatQuery(sql: string, values: readonly unknown[]): string {
  const statements = packets.get(values);
  if (statements !== undefined) {
    return packetText(statements);
  }
  return values.length === 0 ? sql : packetText([{ sql, parameters: values }]);
}

/** The statements as one text, joined by `;\n`, every parameter written in. */
function packetText(statements: readonly Statement[]): string {
  const out = shared;
  out.length = 0;
  for (let i = 0; i < statements.length; i++) {
    const { sql, parameters } = statements[i] as Statement;
    const chunks = parameters.length === 0 ? [sql] : chunksFor(sql, parameters);
    if (
      chunks === null ||
      (i > 0 && !writeAscii(out, ';\n')) ||
      !writeStatement(out, chunks, parameters)
    ) {
      return statements.map((s) => mysql2Text(s.sql, s.parameters)).join(';\n');
    }
  }
  return out.bytes.toString('latin1', 0, out.length);
}

/** Test seam: how many statement texts are kept, split (true) or left to mysql2 (false). */
export function keptTexts(): { split: number; mysql2: number } {
  let split = 0;
  for (const chunks of chunksOf.values()) {
    split += chunks === null ? 0 : 1;
  }
  return { split, mysql2: chunksOf.size - split };
}

function chunksFor(sql: string, parameters: readonly unknown[]): Chunks {
  let chunks = chunksOf.get(sql);
  if (chunks === undefined) {
    if (keptChars + sql.length > MAX_KEPT_CHARS) {
      return null;
    }
    chunks = splitAtPlaceholders(sql);
    if (chunks !== null) {
      // Checked against mysql2 with this call's values; a call that cannot check the split (a ?
      // unfilled, a value dropped or left to mysql2, a character outside ASCII) decides nothing
      // and keeps nothing.
      const own = newOutput(sql.length * 2);
      if (chunks.length !== parameters.length + 1 || !writeStatement(own, chunks, parameters)) {
        return null;
      }
      if (own.bytes.toString('latin1', 0, own.length) !== mysql2Text(sql, parameters)) {
        chunks = null;
      }
    }
    chunksOf.set(sql, chunks);
    keptChars += sql.length;
  }
  return chunks !== null && chunks.length === parameters.length + 1 ? chunks : null;
}

function mysql2Text(sql: string, parameters: readonly unknown[]): string {
  return format(sql, parameters as Parameters<typeof format>[1], undefined, TIME_ZONE);
}

/** Bytes written so far into a buffer that grows; every byte is an ASCII character. */
interface Output {
  bytes: Buffer;
  length: number;
}

/** Above this many bytes a packet is mysql2's (a few packets of large results, not the norm). */
const MAX_OUTPUT_BYTES = 4 * 1024 * 1024;

function newOutput(size: number): Output {
  return { bytes: Buffer.allocUnsafe(size), length: 0 };
}

/** The buffer every packet is written into (one thread, and the writing never waits). */
const shared = newOutput(64 * 1024);

/** Room for `count` more bytes, or false past `MAX_OUTPUT_BYTES`. */
function ensure(out: Output, count: number): boolean {
  const needed = out.length + count;
  if (needed <= out.bytes.length) {
    return true;
  }
  if (needed > MAX_OUTPUT_BYTES) {
    return false;
  }
  const bigger = Buffer.allocUnsafe(
    Math.min(MAX_OUTPUT_BYTES, Math.max(needed, out.bytes.length * 2)),
  );
  out.bytes.copy(bigger, 0, 0, out.length);
  out.bytes = bigger;
  return true;
}

/** False when a parameter is a value left to mysql2, or a character is not ASCII. */
function writeStatement(out: Output, chunks: readonly string[], parameters: readonly unknown[]) {
  if (!writeAscii(out, chunks[0] as string)) {
    return false;
  }
  for (let i = 0; i < parameters.length; i++) {
    if (!writeValue(out, parameters[i]) || !writeAscii(out, chunks[i + 1] as string)) {
      return false;
    }
  }
  return true;
}

/** A value as mysql2 writes it (`sql-escaper`'s `format` with `timezone: 'Z'`). */
function writeValue(out: Output, value: unknown): boolean {
  switch (typeof value) {
    case 'string':
      return writeQuoted(out, value);
    case 'number':
      return Number.isSafeInteger(value) && value >= 0
        ? writeDigits(out, value)
        : writeAscii(out, String(value));
    case 'bigint':
      return writeAscii(out, String(value));
    case 'boolean':
      return writeAscii(out, value ? 'true' : 'false');
    default:
      if (value === null || value === undefined) {
        return writeAscii(out, 'NULL');
      }
      if (value instanceof Uint8Array) {
        return writeHex(out, value);
      }
      return false;
  }
}

function writeAscii(out: Output, text: string): boolean {
  return ensure(out, text.length) && copyAscii(out, text, VERBATIM);
}

/** `'text'`, each character of `ESCAPED` as a backslash and its letter. */
function writeQuoted(out: Output, text: string): boolean {
  if (!ensure(out, text.length * 2 + 2)) {
    return false;
  }
  out.bytes[out.length++] = QUOTE;
  if (!copyAscii(out, text, ESCAPED)) {
    return false;
  }
  out.bytes[out.length++] = QUOTE;
  return true;
}

/**
 * Copies `text` into room already ensured, each character that `escaped` gives a letter as a
 * backslash and that letter; false at the first character outside ASCII.
 */
function copyAscii(out: Output, text: string, escaped: Uint8Array): boolean {
  const bytes = out.bytes;
  let length = out.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c > 0x7f) {
      return false;
    }
    const letter = escaped[c] as number;
    if (letter !== 0) {
      bytes[length++] = BACKSLASH;
    }
    bytes[length++] = letter !== 0 ? letter : c;
  }
  out.length = length;
  return true;
}

/** A non-negative safe integer's decimal digits, as `String(n)` writes them. */
function writeDigits(out: Output, n: number): boolean {
  let digits = 1;
  for (let rest = n; rest >= 10; rest = Math.floor(rest / 10)) {
    digits++;
  }
  if (!ensure(out, digits)) {
    return false;
  }
  let at = out.length + digits;
  out.length = at;
  let rest = n;
  do {
    out.bytes[--at] = 0x30 + (rest % 10);
    rest = Math.floor(rest / 10);
  } while (rest > 0);
  return true;
}

/** `X'…'` with the bytes in lowercase hex, as mysql2 writes a Buffer. */
function writeHex(out: Output, value: Uint8Array): boolean {
  if (!ensure(out, value.length * 2 + 3)) {
    return false;
  }
  const bytes = out.bytes;
  let length = out.length;
  bytes[length++] = 0x58; // X
  bytes[length++] = QUOTE;
  for (let i = 0; i < value.length; i++) {
    const b = value[i] as number;
    bytes[length++] = HEX[b >> 4] as number;
    bytes[length++] = HEX[b & 0xf] as number;
  }
  bytes[length++] = QUOTE;
  out.length = length;
  return true;
}

/** By character below 128: the letter after the backslash of its escape, or 0 for none. */
const ESCAPED = new Uint8Array(128);
/** No character escaped: statement text is copied as it is. */
const VERBATIM = new Uint8Array(128);
for (const [c, letter] of [
  [0, '0'],
  [8, 'b'],
  [9, 't'],
  [10, 'n'],
  [13, 'r'],
  [26, 'Z'],
  [34, '"'],
  [39, "'"],
  [92, '\\'],
] as const) {
  ESCAPED[c] = letter.charCodeAt(0);
}

const HEX = Buffer.from('0123456789abcdef', 'latin1');

/**
 * The text around each `?` that is a placeholder as mysql2 reads one (not inside a quoted
 * string, a quoted identifier or a comment), or null for a text this module leaves to mysql2
 * (an identifier placeholder `??`, an executable comment `/*!`).
 */
function splitAtPlaceholders(sql: string): string[] | null {
  const chunks: string[] = [];
  let start = 0;
  let i = 0;
  while (i < sql.length) {
    const c = sql.charCodeAt(i);
    if (c === QUESTION) {
      if (sql.charCodeAt(i + 1) === QUESTION) {
        return null;
      }
      chunks.push(sql.slice(start, i));
      start = i + 1;
      i += 1;
    } else if (c === QUOTE || c === DOUBLE_QUOTE) {
      i = endOfQuoted(sql, i, c, true);
    } else if (c === BACKTICK) {
      i = endOfQuoted(sql, i, c, false);
    } else if (c === HASH || (c === DASH && sql.charCodeAt(i + 1) === DASH)) {
      const lineBreak = sql.indexOf('\n', i);
      i = lineBreak === -1 ? sql.length : lineBreak + 1;
    } else if (c === SLASH && sql.charCodeAt(i + 1) === STAR) {
      const marker = sql.charCodeAt(i + 2);
      if (marker === BANG || marker === PLUS) {
        return null;
      }
      const end = sql.indexOf('*/', i + 2);
      i = end === -1 ? sql.length : end + 2;
    } else {
      i += 1;
    }
  }
  chunks.push(sql.slice(start));
  return chunks;
}

function endOfQuoted(sql: string, open: number, quote: number, backslashes: boolean): number {
  for (let i = open + 1; i < sql.length; i++) {
    const c = sql.charCodeAt(i);
    if (backslashes && c === BACKSLASH) {
      i += 1;
    } else if (c === quote) {
      return i + 1;
    }
  }
  return sql.length;
}

const QUESTION = 63;
const QUOTE = 39;
const DOUBLE_QUOTE = 34;
const BACKTICK = 96;
const BACKSLASH = 92;
const HASH = 35;
const DASH = 45;
const SLASH = 47;
const STAR = 42;
const BANG = 33;
const PLUS = 43;
