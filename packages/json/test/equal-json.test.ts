import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { equalJson, parse, stringify } from '../src/index.js';
import { jsonValueArbitrary } from './support/arbitraries.js';
import { reorderKeys } from './support/reorder.js';

describe('equalJson', () => {
  it('compares numbers as exact rationals and objects without key order', () => {
    assert.ok(equalJson(parse('{"a":1.0,"b":[0.1,-0.0]}'), parse('{"b":[1e-1,0],"a":1}')));
    assert.ok(equalJson(parse('1e400'), parse('10e399')));
  });

  it('tells different values apart', () => {
    const pairs = [
      ['1', '"1"'],
      ['9007199254740993', '9007199254740992'],
      ['[1,2]', '[2,1]'],
      ['[1]', '[1,1]'],
      ['{"a":1}', '{"a":1,"b":1}'],
      ['{"a":1}', '{"b":1}'],
      ['{"a":null}', '{}'],
      ['null', 'false'],
      ['[]', '{}'],
      ['"a"', '"a "'],
    ] as const;
    for (const [a, b] of pairs) {
      assert.equal(equalJson(parse(a), parse(b)), false, `${a} vs ${b}`);
      assert.equal(equalJson(parse(b), parse(a)), false, `${b} vs ${a}`);
    }
  });

  it('holds between a value, its round trip and any reordering of its keys', () => {
    fc.assert(
      fc.property(jsonValueArbitrary, fc.nat(), (value, seed) => {
        assert.ok(equalJson(value, parse(stringify(value))));
        assert.ok(equalJson(value, reorderKeys(value, seed)));
      }),
      { numRuns: 300 },
    );
  });
});
