/**
 * Text cut and cleaned for the wire: the server counts a text's length in code points, and JSON
 * text must be well-formed UTF-16 (a lone surrogate has no UTF-8 form, so `stringify` refuses
 * it).
 */

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * `String.prototype.toWellFormed` (ES2024, not in the SDK's `lib`): each lone surrogate becomes
 * U+FFFD.
 *
 * @example toWellFormed('a\uD800b') // 'a\uFFFDb'
 */
export function toWellFormed(text: string): string {
  return text.replace(LONE_SURROGATE, '\uFFFD');
}

/**
 * The first `max` code points of `text`, never half of a surrogate pair.
 *
 * @example cutToCodePoints('a😀b', 2) // 'a😀'
 */
export function cutToCodePoints(text: string, max: number): string {
  if (text.length <= max) {
    return text; // never more code points than UTF-16 units
  }
  let end = 0;
  for (let count = 0; count < max && end < text.length; count++) {
    end += (text.codePointAt(end) ?? 0) > 0xffff ? 2 : 1;
  }
  return text.slice(0, end);
}
