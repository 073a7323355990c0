import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { compareNumberText } from '../src/index.js';
import { equalNumberTextsArbitrary, numberTextArbitrary } from './support/arbitraries.js';
import { compareByReference } from './support/rational-reference.js';

describe('compareNumberText', () => {
  const cases: readonly (readonly [string, string, -1 | 0 | 1])[] = [
    ['1e-400', '0', 1],
    ['0.1', '1e-1', 0],
    ['9007199254740993', '9007199254740992', 1],
    ['1e400', '9.99e399', 1],
    ['-0.0', '0', 0],
    ['-0', '0e-5', 0],
    ['1.0', '1', 0],
    ['100', '1e2', 0],
    ['12345678901234567890.000000000000000001', '12345678901234567890', 1],
    ['-1e400', '-9.99e399', -1],
    ['-2', '-1', -1],
    ['-1', '1e-999', -1],
    ['0.000123', '1.23E-4', 0],
    ['123e-2', '1.23', 0],
    ['1E+2', '1e2', 0],
    ['1e0000000000000000000002', '100', 0],
    ['1e999999999', '1e999999998', 1],
    ['1e1000000000000000000000', '10e999999999999999999999', 0],
    ['1e1000000000000000000000', '9e999999999999999999999', 1],
    ['-1e-1000000000000000000000', '-1e-1000000000000000000001', -1],
  ];
  for (const [a, b, expected] of cases) {
    it(`orders ${a} and ${b} exactly as rationals`, () => {
      assert.equal(compareNumberText(a, b), expected);
      assert.equal(compareNumberText(b, a), -expected || 0);
    });
  }

  it('rejects a text that is not a JSON number with invalid_number', () => {
    for (const bad of ['01', '+1', '.5', '1.', 'NaN', '', ' 1', '1 ', '0x1', '1e']) {
      assert.throws(() => compareNumberText(bad, '1'), { code: 'invalid_number' }, bad);
      assert.throws(() => compareNumberText('1', bad), { code: 'invalid_number' }, bad);
    }
  });

  it('compares huge exponents without expanding them', () => {
    const huge = '1e' + '9'.repeat(2000);
    const started = performance.now();
    for (let i = 0; i < 1000; i++) {
      assert.equal(compareNumberText('1e999999999', '2e999999999'), -1);
      assert.equal(compareNumberText(huge, '1e999999999'), 1);
    }
    // Expanding 1e999999999 even once would take seconds and a gigabyte.
    assert.ok(performance.now() - started < 2000);
  });

  it('agrees with a BigInt rational reference on generated number texts', () => {
    fc.assert(
      fc.property(numberTextArbitrary, numberTextArbitrary, (a, b) => {
        assert.equal(compareNumberText(a, b), compareByReference(a, b));
      }),
      { numRuns: 2000 },
    );
  });

  it('is antisymmetric', () => {
    fc.assert(
      fc.property(numberTextArbitrary, numberTextArbitrary, (a, b) => {
        assert.equal(compareNumberText(a, b), -compareNumberText(b, a) || 0);
      }),
      { numRuns: 1000 },
    );
  });

  it('is transitive, as the reference order is', () => {
    fc.assert(
      fc.property(numberTextArbitrary, numberTextArbitrary, numberTextArbitrary, (a, b, c) => {
        const sorted = [a, b, c].sort(compareByReference);
        const [low = '', middle = '', high = ''] = sorted;
        assert.ok(compareNumberText(low, middle) <= 0);
        assert.ok(compareNumberText(middle, high) <= 0);
        assert.ok(compareNumberText(low, high) <= 0);
      }),
      { numRuns: 1000 },
    );
  });

  it('finds two texts of the same rational equal', () => {
    fc.assert(
      fc.property(equalNumberTextsArbitrary, ([a, b]) => {
        assert.equal(compareByReference(a, b), 0, 'the generator wrote two different values');
        assert.equal(compareNumberText(a, b), 0);
      }),
      { numRuns: 2000 },
    );
  });
});
