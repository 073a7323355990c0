/**
 * End of the JSON number (RFC 8259 §6) starting at `start`, or `~offset` (a negative number) of
 * the first character that breaks the grammar. The number ends at the first character that
 * cannot continue it; the caller decides whether what follows is allowed. A digit right after a
 * leading `0` is reported here, so `01` fails at the `1` rather than as trailing garbage.
 */
export function scanNumber(text: string, start: number): number {
  let i = start;
  if (codeAt(text, i) === 0x2d /* - */) {
    i++;
  }
  const first = codeAt(text, i);
  if (first === 0x30 /* 0 */) {
    i++;
    if (isDigit(codeAt(text, i))) {
      return ~i;
    }
  } else if (first >= 0x31 && first <= 0x39) {
    i = skipDigits(text, i + 1);
  } else {
    return ~i;
  }
  if (codeAt(text, i) === 0x2e /* . */) {
    const end = skipDigits(text, i + 1);
    if (end === i + 1) {
      return ~end;
    }
    i = end;
  }
  const e = codeAt(text, i);
  if (e === 0x65 || e === 0x45 /* e E */) {
    i++;
    const sign = codeAt(text, i);
    if (sign === 0x2b || sign === 0x2d /* + - */) {
      i++;
    }
    const end = skipDigits(text, i);
    if (end === i) {
      return ~end;
    }
    i = end;
  }
  return i;
}

/**
 * The code unit at `i`, or -1 past the end. Reading past the end with `charCodeAt` returns NaN,
 * which V8 handles on a slow path: it made `isNumberText` three times slower.
 */
function codeAt(text: string, i: number): number {
  return i < text.length ? text.charCodeAt(i) : -1;
}

function skipDigits(text: string, i: number): number {
  while (isDigit(codeAt(text, i))) {
    i++;
  }
  return i;
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

const NUMBER_TEXT = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?$/;

/**
 * Whether `s` is exactly one JSON number: `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`.
 * No whitespace, no `+` sign, no `NaN`/`Infinity`.
 *
 * @example isNumberText('1e400') // true; isNumberText('01') // false
 */
export function isNumberText(s: string): boolean {
  // The same grammar as `scanNumber`, which the tests check; V8's compiled regex is about twice
  // as fast on short texts, and `stringify` validates every JsonNumber it writes.
  return NUMBER_TEXT.test(s);
}
