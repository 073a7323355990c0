import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { isNumberText, jsonNumber } from '../src/index.js';
import { scanNumber } from '../src/number-text.js';
import { numberTextArbitrary } from './support/arbitraries.js';

describe('isNumberText', () => {
  it('accepts the JSON number grammar', () => {
    for (const text of [
      '0',
      '-0',
      '-0.0',
      '1e400',
      '1E+2',
      '1e-2',
      '0.5',
      '12345678901234567890.5',
    ]) {
      assert.equal(isNumberText(text), true, text);
    }
  });

  it('rejects everything else', () => {
    const bad = [
      '',
      '01',
      '-01',
      '+1',
      '.5',
      '1.',
      '1e',
      '1e+',
      'NaN',
      'Infinity',
      ' 1',
      '1 ',
      '0x1',
    ];
    for (const text of [...bad, '1_0', '--1', '1.5.5', '1e5e5', '١', '1\n']) {
      assert.equal(isNumberText(text), false, text);
    }
  });

  it('accepts exactly what JSON.parse reads as a number', () => {
    const chars = fc.constantFrom(...'0123456789-+.eE');
    fc.assert(
      fc.property(fc.string({ unit: chars, maxLength: 8 }), (text) => {
        let native = false;
        try {
          native = typeof JSON.parse(text) === 'number';
        } catch {
          native = false;
        }
        assert.equal(isNumberText(text), native);
        // The parser's scanner and the regex must agree on the grammar.
        assert.equal(scanNumber(text, 0) === text.length, native);
      }),
      { numRuns: 5000 },
    );
  });

  it('accepts every generated number text', () => {
    fc.assert(fc.property(numberTextArbitrary, (text) => isNumberText(text)));
  });
});

describe('jsonNumber', () => {
  it('keeps a valid text as it is', () => {
    assert.deepEqual(jsonNumber('12.50'), { kind: 'number', text: '12.50' });
    assert.deepEqual(jsonNumber('-0.0'), { kind: 'number', text: '-0.0' });
  });

  it('writes safe integers and bigints in decimal', () => {
    assert.equal(jsonNumber(42).text, '42');
    assert.equal(jsonNumber(-7).text, '-7');
    assert.equal(jsonNumber(-0).text, '0');
    assert.equal(jsonNumber(10n ** 30n).text, '1' + '0'.repeat(30));
    assert.equal(jsonNumber(-5n).text, '-5');
  });

  it('refuses numbers that are not safe integers and invalid texts', () => {
    for (const value of [1.5, NaN, Infinity, 2 ** 53]) {
      assert.throws(() => jsonNumber(value), { code: 'invalid_number' }, String(value));
    }
    for (const text of ['01', '1.', ' 1', 'abc']) {
      assert.throws(() => jsonNumber(text), { code: 'invalid_number' }, text);
    }
  });
});
