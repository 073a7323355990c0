import { hasNoEscapeOrLoneSurrogate, LONG_STRING } from './plain-text.js';

/** Short escapes allowed by RFC 8259 §7, indexed by code unit; other controls are \u00xx. */
const SHORT_ESCAPES: Readonly<Record<number, string>> = {
  0x22: '\\"',
  0x5c: '\\\\',
  0x08: '\\b',
  0x0c: '\\f',
  0x0a: '\\n',
  0x0d: '\\r',
  0x09: '\\t',
};

/**
 * Whether `s` holds a character a JSON string cannot carry literally (`"`, `\`, < U+0020) or a
 * surrogate, which must be checked for a partner. Most strings hold none and are written as is.
 * A long string is asked with the engine's searches (plain-text.ts), which pass paired
 * surrogates: written as is, they are what `quoteJsonString` would write.
 */
export function needsEscapeCheck(s: string): boolean {
  if (s.length >= LONG_STRING) {
    return s.indexOf('"') >= 0 || !hasNoEscapeOrLoneSurrogate(s);
  }
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c === 0x22 || c === 0x5c || (c >= 0xd800 && c <= 0xdfff)) {
      return true;
    }
  }
  return false;
}

/**
 * `s` as a JSON string literal with the minimal escapes: `\"`, `\\`, `\b \f \n \r \t`, lowercase
 * `\u00xx` for the other controls, everything else literal. That is what `JSON.stringify` and
 * RFC 8785 write for a well-formed string. Callers reject lone surrogates first
 * (`findLoneSurrogate`): they have no UTF-8 form.
 */
export function quoteJsonString(s: string): string {
  let out = '"';
  let copied = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x20 && c !== 0x22 && c !== 0x5c) {
      continue;
    }
    out +=
      s.slice(copied, i) + (SHORT_ESCAPES[c] ?? '\\u00' + (c < 0x10 ? '0' : '') + c.toString(16));
    copied = i + 1;
  }
  return out + s.slice(copied) + '"';
}
