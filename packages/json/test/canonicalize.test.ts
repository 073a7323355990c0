import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { canonicalize, jsonNumber, parse } from '../src/index.js';
import { jsonValueArbitrary } from './support/arbitraries.js';
import { reorderKeys } from './support/reorder.js';

describe('canonicalize', () => {
  it('sorts keys, drops whitespace and keeps number text as written', () => {
    const value = parse('{ "b": 1.0, "a": [ 2, {"d": -0.0, "c": 1e400} ] }');
    assert.equal(canonicalize(value), '{"a":[2,{"c":1e400,"d":-0.0}],"b":1.0}');
  });

  it('orders keys by UTF-16 code units, not code points', () => {
    // U+FF5A sorts after U+1F600 by code point, but its code unit is above the high surrogate.
    const value = parse('{"\uff5a":1,"😀":2,"é":3,"Z":4,"10":5,"2":6,"":7}');
    assert.equal(canonicalize(value), '{"":7,"10":5,"2":6,"Z":4,"é":3,"😀":2,"\uff5a":1}');
  });

  it('sorts plain objects too and re-canonicalizes RawJson', () => {
    const value = { b: [{ y: 1, x: 2 }], a: { kind: 'raw', text: '{ "q": 1.50, "p": [] }' } };
    assert.equal(canonicalize(value), '{"a":{"p":[],"q":1.50},"b":[{"x":2,"y":1}]}');
    assert.equal(canonicalize({ n: jsonNumber('1.0') }), '{"n":1.0}');
  });

  it('does not change when the keys of any object are reordered', () => {
    fc.assert(
      fc.property(jsonValueArbitrary, fc.nat(), (value, seed) => {
        assert.equal(canonicalize(reorderKeys(value, seed)), canonicalize(value));
      }),
      { numRuns: 500 },
    );
  });

  it('is a fixed point: canonicalizing its own output changes nothing', () => {
    fc.assert(
      fc.property(jsonValueArbitrary, (value) => {
        const once = canonicalize(value);
        assert.equal(canonicalize(parse(once)), once);
      }),
      { numRuns: 300 },
    );
  });
});
