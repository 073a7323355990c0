/**
 * A reference for `compareNumberText` that shares none of its code: each text becomes an exact
 * rational `coefficient × 10^exponent` in BigInts, and two rationals are compared by scaling
 * one to the other's exponent.
 */
interface DecimalRational {
  readonly coefficient: bigint;
  readonly exponent: bigint;
}

const NUMBER = /^(-?)([0-9]+)(?:\.([0-9]+))?(?:[eE]([+-]?[0-9]+))?$/;

export function toRational(text: string): DecimalRational {
  const match = NUMBER.exec(text);
  if (match === null) {
    throw new Error(`not a number text: ${text}`);
  }
  const [, sign = '', integer = '', fraction = '', exponent = '0'] = match;
  return {
    coefficient: BigInt(sign + integer + fraction),
    exponent: BigInt(exponent) - BigInt(fraction.length),
  };
}

export function compareByReference(a: string, b: string): -1 | 0 | 1 {
  const x = toRational(a);
  const y = toRational(b);
  if (x.exponent >= y.exponent) {
    return compareScaled(x.coefficient, x.exponent - y.exponent, y.coefficient);
  }
  return negate(compareScaled(y.coefficient, y.exponent - x.exponent, x.coefficient));
}

/**
 * `c × 10^shift` against `other`. When `c ≠ 0` and the shift exceeds the digit count of `other`,
 * |c × 10^shift| ≥ 10^shift > |other|, so the sign of `c` decides without building 10^shift
 * (the texts may carry exponents like 10^20).
 */
function compareScaled(c: bigint, shift: bigint, other: bigint): -1 | 0 | 1 {
  if (c === 0n) {
    return other === 0n ? 0 : other < 0n ? 1 : -1;
  }
  const otherDigits = BigInt((other < 0n ? -other : other).toString().length);
  if (shift > otherDigits) {
    return c > 0n ? 1 : -1;
  }
  const scaled = c * 10n ** shift;
  return scaled === other ? 0 : scaled < other ? -1 : 1;
}

function negate(order: -1 | 0 | 1): -1 | 0 | 1 {
  return order === 0 ? 0 : order === 1 ? -1 : 1;
}
