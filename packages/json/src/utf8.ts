/**
 * Bytes of `s` in UTF-8, without encoding it (for size limits). A lone surrogate counts 3 bytes,
 * as `TextEncoder` would write U+FFFD in its place.
 */
export function utf8ByteLength(s: string): number {
  return utf8PrefixLength(s, s.length);
}

/** Bytes of the first `end` code units of `s` in UTF-8 (a pair cut in two counts as lone). */
export function utf8PrefixLength(s: string, end: number): number {
  let bytes = end;
  for (let i = 0; i < end; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) {
      continue;
    }
    if (c < 0x800) {
      bytes += 1;
      continue;
    }
    bytes += 2;
    // A high surrogate followed by a low one is one code point: 4 bytes for 2 code units.
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < end) {
      const next = s.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        i++;
      }
    }
  }
  return bytes;
}

/**
 * Offset of the first byte of the first ill-formed UTF-8 sequence, or -1 if `bytes` is valid.
 * Follows the Unicode table of well-formed sequences (Unicode §3.9 D92), the same rules as a
 * fatal `TextDecoder`: no overlongs, no encoded surrogates, nothing above U+10FFFF, no truncation.
 */
export function findInvalidUtf8(bytes: Uint8Array): number {
  const length = bytes.length;
  let i = 0;
  while (i < length) {
    const lead = bytes[i] ?? 0;
    if (lead < 0x80) {
      i++;
      continue;
    }
    const size = sequenceLength(bytes, i);
    if (size === 0) {
      return i;
    }
    i += size;
  }
  return -1;
}

/** Length of the well-formed multi-byte sequence starting at `i`, or 0 if it is ill formed. */
function sequenceLength(bytes: Uint8Array, i: number): number {
  const range = secondByteRange(bytes[i] ?? 0);
  const second = bytes[i + 1] ?? 0;
  if (range === undefined || second < range.low || second > range.high) {
    return 0;
  }
  for (let k = 2; k < range.size; k++) {
    const byte = bytes[i + k] ?? 0;
    if (byte < 0x80 || byte > 0xbf) {
      return 0;
    }
  }
  return range.size;
}

interface SequenceShape {
  readonly low: number;
  readonly high: number;
  readonly size: number;
}

/**
 * The allowed second byte after a lead byte. The narrowed ranges after E0, ED, F0 and F4 are
 * what excludes overlongs, encoded surrogates (U+D800..DFFF) and code points above U+10FFFF;
 * C0, C1 and F5..FF can never start a sequence.
 */
function secondByteRange(lead: number): SequenceShape | undefined {
  if (lead >= 0xc2 && lead <= 0xdf) {
    return { low: 0x80, high: 0xbf, size: 2 };
  }
  if (lead >= 0xe0 && lead <= 0xef) {
    const low = lead === 0xe0 ? 0xa0 : 0x80;
    const high = lead === 0xed ? 0x9f : 0xbf;
    return { low, high, size: 3 };
  }
  if (lead >= 0xf0 && lead <= 0xf4) {
    const low = lead === 0xf0 ? 0x90 : 0x80;
    const high = lead === 0xf4 ? 0x8f : 0xbf;
    return { low, high, size: 4 };
  }
  return undefined;
}
