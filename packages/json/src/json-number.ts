import { previewText } from './preview-text.js';
import { JsonError } from './json-error.js';
import { isNumberText } from './number-text.js';
import type { JsonNumber } from './types.js';

/**
 * A `JsonNumber` from its text (validated against the JSON grammar), a safe integer, or a bigint.
 * Other JS numbers are refused: their shortest decimal form is a float64 guess, not an exact
 * value, so callers must choose the text themselves. Throws `JsonError` `invalid_number`.
 *
 * @example jsonNumber('12.50').text // '12.50'; jsonNumber(10n ** 30n).text // '1000…000'
 */
export function jsonNumber(value: string | number | bigint): JsonNumber {
  if (typeof value === 'bigint') {
    return { kind: 'number', text: value.toString() };
  }
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) {
      throw new JsonError('invalid_number', `${value} is not a safe integer; pass its text`);
    }
    // `String(-0)` is '0': a safe integer has no sign of zero worth keeping.
    return { kind: 'number', text: String(value) };
  }
  if (!isNumberText(value)) {
    throw new JsonError('invalid_number', `not a JSON number: ${previewText(value)}`);
  }
  return { kind: 'number', text: value };
}
