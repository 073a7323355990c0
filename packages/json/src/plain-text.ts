/**
 * Whether a long string can be carried in a JSON string literal as it is, found with the engine's
 * own searches (`indexOf`, `isWellFormed`) instead of a loop over its code units. On the machine
 * of docs/benchmarks.md ("JSON", long strings) a loop reads ~5 ns a unit and the searches ~0.4:
 * a 64 KiB string parses in ~25–40 µs instead of ~370. Each search has a fixed cost, so short
 * strings keep the loop (`LONG_STRING`).
 */

/** Length from which the searches beat the loop (docs/benchmarks.md "JSON", long strings). */
export const LONG_STRING = 512;

/** The 32 control characters, U+0000 to U+001F: a JSON string must escape them. */
const CONTROLS: readonly string[] = Array.from({ length: 0x20 }, (_, i) => String.fromCharCode(i));

/**
 * `String.prototype.isWellFormed` (ES2024; Node 20, current browsers), else the loop: the answer
 * is the same, only slower.
 */
const isWellFormed: (s: string) => boolean =
  typeof (String.prototype as { isWellFormed?: unknown }).isWellFormed === 'function'
    ? (s) => (s as string & { isWellFormed(): boolean }).isWellFormed()
    : (s) => findLoneSurrogate(s) < 0;

/**
 * True when `s` holds no backslash, no control character and no lone surrogate (paired
 * surrogates are fine). A quote is not looked for: callers know where the literal ends, or look
 * for it themselves.
 */
export function hasNoEscapeOrLoneSurrogate(s: string): boolean {
  if (s.indexOf('\\') >= 0) {
    return false;
  }
  for (const control of CONTROLS) {
    if (s.indexOf(control) >= 0) {
      return false;
    }
  }
  return isWellFormed(s);
}

/** Offset of the first unpaired surrogate code unit in `s`, or -1 when `s` is well formed. */
export function findLoneSurrogate(s: string): number {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0xd800 || c > 0xdfff) {
      continue;
    }
    const next = i + 1 < s.length ? s.charCodeAt(i + 1) : 0;
    if (c > 0xdbff || next < 0xdc00 || next > 0xdfff) {
      return i;
    }
    i++;
  }
  return -1;
}
