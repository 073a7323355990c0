import { findLoneSurrogate } from './plain-text.js';
import { needsEscapeCheck, quoteJsonString } from './quote-json-string.js';

/**
 * Where `stringify` writes. A small document is built by string concatenation, which is the
 * fastest for it. Past `TEXT_LIMIT` the buffer moves to UTF-16 code units in a typed array,
 * turned into a string one chunk at a time and joined at the end.
 *
 * Why: a 1 MiB document built by `+=` is a tree of ~10⁵ cons strings that lives through every
 * young-generation GC until the end. Right after a `parse` (whose fresh tree is young too) those
 * GCs copied both trees over and over: parse + stringify measured 45 ms against 17–20 ms with
 * the typed array, whose memory is off the JS heap. But allocating a typed array costs ~0.8 µs,
 * more than writing a whole 100-byte document by concatenation.
 *
 * A large piece (`LARGE_PIECE` units or more: a stored result or input written as `RawJson`, a
 * long string member) is neither concatenated nor copied: it goes into `chunks` as it is, after
 * what was written before it. Copying it unit by unit and decoding it again cost ~2.4 ms per
 * 385 KiB answer (six 64 KiB inputs), and the two-byte string that the UTF-16 decoding made cost
 * as much again when the answer's UTF-8 length was taken; the join copies it once.
 */
export interface OutputBuffer {
  /** The output since the last chunk while it is small; '' once `units` is in use. */
  text: string;
  /** Code units of the current chunk, or null while writing to `text`. */
  units: Uint16Array | null;
  length: number;
  readonly chunks: string[];
}

/** Output length (UTF-16 units) above which writing moves from `text` to `units`. */
const TEXT_LIMIT = 8 * 1024;

/** Pieces at least this long are kept as they are, a chunk of their own. */
const LARGE_PIECE = 2 * 1024;

/**
 * Code units per chunk (64 KiB as a string of two-byte characters): few parts for the final
 * join, and each part below V8's large-object size (128 KiB), so `outputToChunks` hands out no
 * large object that the document did not already hold.
 */
const CHUNK_CAPACITY = 32 * 1024;

/** Code units are written in the platform's byte order, so decode in that order. */
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/**
 * Shared: decoding a whole buffer keeps no state between calls. `ignoreBOM` so a leading U+FEFF
 * stays in the text; not fatal, because all text written here is already well formed.
 */
const utf16Decoder = new TextDecoder(LITTLE_ENDIAN ? 'utf-16le' : 'utf-16be', {
  ignoreBOM: true,
});

/** An `OutputBuffer` after the move to code units. */
type UnitsBuffer = OutputBuffer & { units: Uint16Array };

export function createOutputBuffer(): OutputBuffer {
  return { text: '', units: null, length: 0, chunks: [] };
}

export function outputToString(out: OutputBuffer): string {
  if (out.chunks.length === 0) {
    return out.units === null ? out.text : decodeUnits(out.units, out.length);
  }
  endChunk(out);
  // One flat string: `join` copies every chunk once (a `+` would leave a cons string for the
  // socket write to flatten).
  return out.chunks.join('');
}

/** The output as pieces whose concatenation is `outputToString(out)`; no piece is empty. */
export function outputToChunks(out: OutputBuffer): string[] {
  endChunk(out);
  return out.chunks;
}

function decodeUnits(units: Uint16Array, length: number): string {
  return utf16Decoder.decode(units.subarray(0, length));
}

/** Moves what was written since the last chunk into `chunks`. */
function endChunk(out: OutputBuffer): void {
  if (out.units === null) {
    if (out.text !== '') {
      out.chunks.push(out.text);
      out.text = '';
    }
  } else if (out.length > 0) {
    out.chunks.push(decodeUnits(out.units, out.length));
    out.length = 0;
  }
}

/** Appends a large piece as a chunk of its own, without copying it. */
function appendLarge(out: OutputBuffer, text: string): void {
  endChunk(out);
  out.chunks.push(text);
}

function isUnitsBuffer(out: OutputBuffer): out is UnitsBuffer {
  return out.units !== null;
}

export function appendText(out: OutputBuffer, text: string): void {
  if (text.length >= LARGE_PIECE) {
    appendLarge(out, text);
    return;
  }
  if (!isUnitsBuffer(out)) {
    out.text += text;
    if (out.text.length > TEXT_LIMIT) {
      moveToUnits(out);
    }
    return;
  }
  const units =
    out.length + text.length <= out.units.length ? out.units : makeRoom(out, text.length);
  let length = out.length;
  for (let i = 0; i < text.length; i++) {
    units[length++] = text.charCodeAt(i);
  }
  out.length = length;
}

/**
 * Appends `s` as a JSON string literal (see `quoteJsonString`) and returns -1. A lone surrogate
 * has no UTF-8 form: then it returns its index, and the caller throws and drops the buffer.
 */
export function appendJsonString(out: OutputBuffer, s: string): number {
  if (isUnitsBuffer(out) && s.length < LARGE_PIECE) {
    return appendJsonStringToUnits(out, s);
  }
  if (needsEscapeCheck(s)) {
    const lone = findLoneSurrogate(s);
    if (lone >= 0) {
      return lone;
    }
    appendText(out, quoteJsonString(s));
  } else {
    appendText(out, '"' + s + '"');
  }
  return -1;
}

/**
 * `appendJsonString` for the big-document path, in one pass that checks while it copies and
 * escapes in place (the same escapes as `quoteJsonString`).
 */
function appendJsonStringToUnits(out: UnitsBuffer, s: string): number {
  // Room for the whole string if nothing needs escaping; re-checked at each escape.
  let units =
    out.length + s.length + 2 <= out.units.length ? out.units : makeRoom(out, s.length + 2);
  let length = out.length;
  units[length++] = 0x22;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x20 && c !== 0x22 && c !== 0x5c && (c < 0xd800 || c > 0xdfff)) {
      units[length++] = c;
      continue;
    }
    if (length + 7 + s.length - i > units.length) {
      out.length = length;
      units = makeRoom(out, 7 + s.length - i);
      length = out.length;
    }
    if (c < 0xd800) {
      length = writeEscape(units, length, c);
      continue;
    }
    const next = i + 1 < s.length ? s.charCodeAt(i + 1) : 0;
    if (c > 0xdbff || next < 0xdc00 || next > 0xdfff) {
      return i;
    }
    units[length++] = c;
    units[length++] = next;
    i++;
  }
  units[length++] = 0x22;
  out.length = length;
  return -1;
}

/** Writes the escape of control, quote or backslash `c` at `length`; returns the new length. */
function writeEscape(units: Uint16Array, length: number, c: number): number {
  units[length++] = 0x5c;
  const short = SHORT_ESCAPE_LETTERS[c];
  if (short !== undefined) {
    units[length++] = short;
    return length;
  }
  units[length++] = 0x75; // u
  units[length++] = 0x30;
  units[length++] = 0x30;
  units[length++] = hexDigit(c >> 4);
  units[length++] = hexDigit(c & 0xf);
  return length;
}

/** The letter after the backslash of RFC 8259's short escapes, by code unit. */
const SHORT_ESCAPE_LETTERS: Readonly<Record<number, number>> = {
  0x22: 0x22, // \"
  0x5c: 0x5c, // \\
  0x08: 0x62, // \b
  0x0c: 0x66, // \f
  0x0a: 0x6e, // \n
  0x0d: 0x72, // \r
  0x09: 0x74, // \t
};

/** Lowercase, as `JSON.stringify` and RFC 8785 write them. */
function hexDigit(n: number): number {
  return n < 10 ? 0x30 + n : 0x61 + n - 10;
}

function moveToUnits(out: OutputBuffer): void {
  const text = out.text;
  out.text = '';
  out.units = new Uint16Array(Math.max(CHUNK_CAPACITY, text.length));
  out.length = 0;
  appendText(out, text);
}

/**
 * Empties the chunk into `chunks` to make room for `count` more code units; a chunk too small
 * for them is replaced by one of their size. Returns the array to write into.
 */
function makeRoom(out: UnitsBuffer, count: number): Uint16Array {
  endChunk(out);
  if (count > out.units.length) {
    out.units = new Uint16Array(count);
  }
  return out.units;
}
