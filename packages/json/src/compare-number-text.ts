import { JsonError } from './json-error.js';
import { previewText } from './preview-text.js';
import { isNumberText } from './number-text.js';

/**
 * A JSON number reduced to sign × 0.d₁d₂…dₙ × 10^(scale + 1): `digits` are the significant
 * digits (no leading or trailing zeros) and `scale` is the decimal power of the first one.
 * `scale` is a plain number while the exponent has at most 15 digits (exact, and the common
 * case) and a BigInt beyond, so no exponent is ever expanded into digits.
 */
interface NormalizedNumber {
  readonly sign: -1 | 0 | 1;
  readonly digits: string;
  readonly scale: number | bigint;
}

/** Exponents with more digits than this are read as BigInt: 15 digits stay below 2^53. */
const MAX_NUMBER_EXPONENT_DIGITS = 15;

/**
 * Exact comparison of two JSON number texts as rationals: -1 if `a < b`, 0 if equal, 1 if
 * `a > b`. Never goes through float64 (`9007199254740993 > 9007199254740992`) and never expands
 * an exponent (`1e999999999` compares as fast as `1`): the cost depends only on the texts'
 * lengths. Throws `JsonError` `invalid_number` for a text that is not a JSON number.
 *
 * @example compareNumberText('0.1', '1e-1') // 0; compareNumberText('1e-400', '0') // 1
 */
export function compareNumberText(a: string, b: string): -1 | 0 | 1 {
  const x = normalize(a);
  const y = normalize(b);
  if (x.sign !== y.sign) {
    return x.sign < y.sign ? -1 : 1;
  }
  if (x.sign === 0) {
    return 0;
  }
  const magnitude = compareMagnitude(x, y);
  return x.sign === 1 ? magnitude : magnitude === 0 ? 0 : magnitude === 1 ? -1 : 1;
}

/** |x| against |y| for two non-zero numbers: first by scale, then digit by digit. */
function compareMagnitude(x: NormalizedNumber, y: NormalizedNumber): -1 | 0 | 1 {
  const scale = compareScale(x.scale, y.scale);
  if (scale !== 0) {
    return scale;
  }
  // Same leading power of ten: the digit strings compare as decimals 0.ddd. A proper prefix is
  // smaller because the longer string ends in a non-zero digit.
  return x.digits === y.digits ? 0 : x.digits < y.digits ? -1 : 1;
}

function compareScale(a: number | bigint, b: number | bigint): -1 | 0 | 1 {
  if (typeof a === 'number' && typeof b === 'number') {
    return a === b ? 0 : a < b ? -1 : 1;
  }
  const x = BigInt(a);
  const y = BigInt(b);
  return x === y ? 0 : x < y ? -1 : 1;
}

function normalize(text: string): NormalizedNumber {
  if (!isNumberText(text)) {
    throw new JsonError('invalid_number', `not a JSON number: ${previewText(text)}`);
  }
  const intStart = text.charCodeAt(0) === 0x2d ? 1 : 0;
  const point = text.indexOf('.');
  const marker = text.search(/[eE]/);
  const mantissaEnd = marker === -1 ? text.length : marker;
  const intEnd = point === -1 ? mantissaEnd : point;
  const all =
    text.slice(intStart, intEnd) + (point === -1 ? '' : text.slice(point + 1, mantissaEnd));
  let first = 0;
  while (first < all.length && all.charCodeAt(first) === 0x30) {
    first++;
  }
  if (first === all.length) {
    return { sign: 0, digits: '', scale: 0 };
  }
  let last = all.length;
  while (all.charCodeAt(last - 1) === 0x30) {
    last--;
  }
  // The power of ten of the first significant digit, before the exponent is added.
  const offset = intEnd - intStart - 1 - first;
  const sign = intStart === 1 ? -1 : 1;
  return { sign, digits: all.slice(first, last), scale: addExponent(text, marker, offset) };
}

/** `offset` plus the exponent written after index `marker` (-1: none), exactly. */
function addExponent(text: string, marker: number, offset: number): number | bigint {
  if (marker === -1) {
    return offset;
  }
  const exponent = text.slice(marker + 1);
  const significant = exponent.replace(/^[+-]?0*/, '');
  if (significant.length <= MAX_NUMBER_EXPONENT_DIGITS) {
    return Number(exponent) + offset;
  }
  return BigInt(exponent) + BigInt(offset);
}
