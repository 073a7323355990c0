/** fast-check arbitraries shared by the property tests. */
import fc from 'fast-check';
import type { JsonNumber, JsonObject, JsonValue } from '../../src/index.js';

const DIGITS = [...'0123456789'];

function digits(minLength: number, maxLength: number): fc.Arbitrary<string> {
  return fc.string({ unit: fc.constantFrom(...DIGITS), minLength, maxLength });
}

/** Exponent values: mostly small, sometimes far beyond float64 (and beyond 2^53). */
const exponentValue = fc.oneof(
  { arbitrary: fc.nat({ max: 30 }).map(String), weight: 4 },
  { arbitrary: fc.bigInt({ min: 0n, max: 10n ** 25n }).map(String), weight: 1 },
);

const exponentPart = fc
  .tuple(
    fc.constantFrom('e', 'E'),
    fc.constantFrom('', '+', '-'),
    fc.nat({ max: 2 }),
    exponentValue,
  )
  .map(([marker, sign, zeros, value]) => marker + sign + '0'.repeat(zeros) + value);

const integerPart = fc.oneof(
  { arbitrary: fc.constant('0'), weight: 2 },
  {
    arbitrary: fc.tuple(fc.constantFrom(...'123456789'), digits(0, 25)).map(([a, b]) => a + b),
    weight: 5,
  },
);

/** Any text of the JSON number grammar: signs, zeros, long digit strings, exponents. */
export const numberTextArbitrary: fc.Arbitrary<string> = fc
  .tuple(
    fc.boolean(),
    integerPart,
    fc.option(digits(1, 25), { nil: undefined }),
    fc.option(exponentPart, { nil: undefined }),
  )
  .map(([negative, integer, fraction, exponent]) => {
    const sign = negative ? '-' : '';
    return sign + integer + (fraction === undefined ? '' : '.' + fraction) + (exponent ?? '');
  });

/** How to write a value `digits × 10^exponent` as text; two styles give two equal texts. */
const numberStyle = fc.record({
  trailingZeros: fc.nat({ max: 4 }),
  fractionDigits: fc.nat({ max: 30 }),
  marker: fc.constantFrom('e', 'E'),
  plusSign: fc.boolean(),
  exponentZeros: fc.nat({ max: 2 }),
  omitZeroExponent: fc.boolean(),
  negativeZero: fc.boolean(),
});

type NumberStyle = typeof numberStyle extends fc.Arbitrary<infer T> ? T : never;

/** A rational value as `negative`, decimal `digits` and a (possibly huge) exponent. */
const rationalArbitrary = fc.record({
  negative: fc.boolean(),
  digits: digits(1, 20),
  exponent: fc.oneof(
    fc.integer({ min: -40, max: 40 }).map(BigInt),
    fc.bigInt({ min: -(10n ** 22n), max: 10n ** 22n }),
  ),
});

/** Pairs of different texts for the same rational (`1.50e1`, `15`, `0.015E+3`…). */
export const equalNumberTextsArbitrary: fc.Arbitrary<readonly [string, string]> = fc
  .tuple(rationalArbitrary, numberStyle, numberStyle)
  .map(([value, first, second]) => [writeNumber(value, first), writeNumber(value, second)]);

function writeNumber(
  value: { readonly negative: boolean; readonly digits: string; readonly exponent: bigint },
  style: NumberStyle,
): string {
  const all = value.digits + '0'.repeat(style.trailingZeros);
  const padded = all.padStart(style.fractionDigits + 1, '0');
  const cut = padded.length - style.fractionDigits;
  const integer = padded.slice(0, cut).replace(/^0+(?=[0-9])/, '');
  const fraction = padded.slice(cut);
  const exponent = value.exponent - BigInt(style.trailingZeros) + BigInt(style.fractionDigits);
  const isZero = /^0*$/.test(value.digits);
  const negative = isZero ? style.negativeZero : value.negative;
  let text = (negative ? '-' : '') + integer + (fraction === '' ? '' : '.' + fraction);
  if (exponent !== 0n || !style.omitZeroExponent) {
    const sign = exponent < 0n ? '-' : style.plusSign ? '+' : '';
    const magnitude = (exponent < 0n ? -exponent : exponent).toString();
    text += style.marker + sign + '0'.repeat(style.exponentZeros) + magnitude;
  }
  return text;
}

export function jsonNumberOf(text: string): JsonNumber {
  return { kind: 'number', text };
}

/** Strings that exercise escapes: controls, quotes, backslashes, astral characters. */
const stringArbitrary = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.string({
    unit: fc.constantFrom('"', '\\', '/', '\n', '\t', '\u0000', '\u001f', '\u007f', 'é', '😀', 'a'),
    maxLength: 8,
  }),
);

/** Keys, with the ones whose order a plain JS object would change and near-duplicates. */
const keyArbitrary = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 6 }).filter((key) => key !== '__proto__'),
  fc.constantFrom('10', '2', '1', '-1', 'a', 'a ', 'A', 'constructor', 'toString'),
);

// A type alias, not an interface: fc.letrec needs an implicit index signature.
type JsonValueArbitraries = {
  readonly value: JsonValue;
  readonly array: JsonValue[];
  readonly object: JsonObject;
};

/** Any `JsonValue` (no `__proto__` key), nested a few levels. */
export const jsonValueArbitrary: fc.Arbitrary<JsonValue> = fc.letrec<JsonValueArbitraries>(
  (tie) => ({
    value: fc.oneof(
      { depthSize: 'small' },
      fc.constant(null),
      fc.boolean(),
      stringArbitrary,
      numberTextArbitrary.map(jsonNumberOf),
      tie('array'),
      tie('object'),
    ),
    array: fc.array(tie('value'), { maxLength: 5 }),
    object: fc
      .uniqueArray(fc.tuple(keyArbitrary, tie('value')), {
        selector: ([key]) => key,
        maxLength: 5,
      })
      .map((entries) => new Map(entries)),
  }),
).value;
