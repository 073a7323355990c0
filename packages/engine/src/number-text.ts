/**
 * Integer questions about JSON number text, answered exactly and in time bounded by the text's
 * length (never by an exponent's value, so `1e999999999` costs nothing). `@weave/json` compares
 * numbers; these two questions it does not answer.
 */
interface Decimal {
  /** Significant digits without leading or trailing zeros ('' for zero). */
  readonly digits: string;
  /** Value = digits × 10^exponent. */
  readonly exponent: bigint;
  readonly negative: boolean;
}

const NUMBER = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

function toDecimal(text: string): Decimal | undefined {
  const match = NUMBER.exec(text);
  if (match === null) {
    return undefined;
  }
  const [, sign = '', whole = '', fraction = '', exponentText = '0'] = match;
  const all = whole + fraction;
  const trimmedEnd = all.replace(/0+$/, '');
  const digits = trimmedEnd.replace(/^0+/, '');
  const trailingZeros = all.length - trimmedEnd.length;
  const exponent = BigInt(exponentText) - BigInt(fraction.length) + BigInt(trailingZeros);
  return { digits, exponent, negative: sign === '-' };
}

/** Whether the number's exact value is an integer (`1.0`, `1e2`, `-0` are; `1.5`, `1e-1` not). */
export function isIntegerText(text: string): boolean {
  const decimal = toDecimal(text);
  return decimal !== undefined && (decimal.digits === '' || decimal.exponent >= 0n);
}

/**
 * The value as a JS number when it is an integer within [min, max] (both safe integers), else
 * undefined. Used for definition fields such as `max_attempts`.
 */
export function smallInteger(text: string, min: number, max: number): number | undefined {
  const decimal = toDecimal(text);
  if (decimal === undefined) {
    return undefined;
  }
  if (decimal.digits === '') {
    return min <= 0 && max >= 0 ? 0 : undefined;
  }
  // 2^53 has 16 digits: anything with more significant digits is out of every range we use.
  if (decimal.exponent < 0n || BigInt(decimal.digits.length) + decimal.exponent > 16n) {
    return undefined;
  }
  const magnitude = Number(decimal.digits + '0'.repeat(Number(decimal.exponent)));
  const value = decimal.negative ? -magnitude : magnitude;
  return value >= min && value <= max ? value : undefined;
}
