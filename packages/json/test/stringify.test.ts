import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { JsonInput } from '../src/index.js';
import { jsonNumber, parse, stringify, stringifyChunks } from '../src/index.js';
import { jsonValueArbitrary } from './support/arbitraries.js';

describe('stringify', () => {
  it('writes a JsonValue compactly, numbers as their text, keys in map order', () => {
    const value = new Map<string, JsonInput>([
      ['z', jsonNumber('1e400')],
      ['10', [jsonNumber('-0.0'), null, true, 'é\n"😀"']],
      ['a', new Map()],
    ]);
    assert.equal(stringify(value), '{"z":1e400,"10":[-0.0,null,true,"é\\n\\"😀\\""],"a":{}}');
  });

  it('writes plain JS values: objects, arrays, finite numbers, bigints, skipping undefined', () => {
    const value = {
      id: 'x',
      count: 3,
      ratio: 0.5,
      big: 12345678901234567890n,
      missing: undefined,
      nested: { list: [1, 'two', false, null], empty: {} },
      exact: jsonNumber('1.10'),
      bare: Object.assign(Object.create(null) as object, { ok: true }),
    };
    const expected =
      '{"id":"x","count":3,"ratio":0.5,"big":12345678901234567890,' +
      '"nested":{"list":[1,"two",false,null],"empty":{}},"exact":1.10,"bare":{"ok":true}}';
    assert.equal(stringify(value), expected);
  });

  it('copies RawJson text verbatim, even when indenting', () => {
    const raw = { kind: 'raw', text: '{"b": 1.0,"a":[]}' } as const;
    assert.equal(stringify({ payload: raw }), '{"payload":{"b": 1.0,"a":[]}}');
    assert.equal(stringify([raw], { indent: 1 }), '[\n {"b": 1.0,"a":[]}\n]');
  });

  it('escapes strings minimally, with lowercase hex for other controls', () => {
    const all = Array.from({ length: 0x20 }, (_, c) => String.fromCharCode(c)).join('');
    const expected =
      '"\\u0000\\u0001\\u0002\\u0003\\u0004\\u0005\\u0006\\u0007\\b\\t\\n\\u000b\\f\\r' +
      '\\u000e\\u000f\\u0010\\u0011\\u0012\\u0013\\u0014\\u0015\\u0016\\u0017\\u0018\\u0019' +
      '\\u001a\\u001b\\u001c\\u001d\\u001e\\u001f"';
    assert.equal(stringify(all), expected);
    assert.equal(stringify('/\u007f\u2028\ufeff"\\'), '"/\u007f\u2028\ufeff\\"\\\\"');
  });

  it('writes what JSON.stringify writes for plain JSON-compatible values', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const input = value as JsonInput;
        assert.equal(stringify(input), JSON.stringify(value));
        assert.equal(stringify(input, { indent: 2 }), JSON.stringify(value, null, 2));
        assert.equal(stringify(input, { indent: '\t' }), JSON.stringify(value, null, '\t'));
      }),
      { numRuns: 500 },
    );
  });

  it('round-trips every generated JsonValue through parse', () => {
    fc.assert(
      fc.property(jsonValueArbitrary, (value) => {
        const text = stringify(value);
        assert.deepEqual(parse(text), value);
        // deepEqual ignores Map order; the text does not.
        assert.equal(stringify(parse(text)), text);
        assert.equal(stringify(parse(stringify(value, { indent: 2 }))), text);
      }),
      { numRuns: 500 },
    );
  });

  it('writes a large document through several buffer chunks', () => {
    const strings = Array.from({ length: 20000 }, (_, i) => `item ${i} é😀 "quoted"\n`);
    const value = { strings, long: 'x'.repeat(300000) + '\u0001' };
    assert.equal(stringify(value), JSON.stringify(value));
  });

  it('keeps large members as pieces of their own, in order with what is around them', () => {
    const raw = JSON.stringify({ pad: 'r'.repeat(70000) });
    const long = 'é'.repeat(5000);
    const small = Array.from({ length: 3000 }, (_, i) => ({ i, s: `item ${i} "q"\n` }));
    const value = {
      before: small,
      input: { kind: 'raw' as const, text: raw },
      long,
      escaped: 'a\u0001'.repeat(2000),
      after: small,
      inputs: [1, 2, 3].map(() => ({ kind: 'raw' as const, text: raw })),
    };
    const expected = JSON.stringify({
      ...value,
      input: JSON.parse(raw) as unknown,
      inputs: [1, 2, 3].map(() => JSON.parse(raw) as unknown),
    });
    assert.equal(stringify(value), expected);
    const pieces = stringifyChunks(value);
    assert.equal(pieces.join(''), expected);
    assert.equal(pieces.filter((p) => p === raw).length, 4, 'each RawJson is a piece, not copied');
    assert.ok(pieces.includes(`"${long}"`));
    for (const piece of pieces) {
      assert.ok(piece.length > 0);
      assert.ok(piece === raw || piece === `"${long}"` || piece.length <= 32 * 1024, 'bounded');
    }
  });

  it('gives pieces that join to the text of stringify', () => {
    fc.assert(
      fc.property(jsonValueArbitrary, (value) => {
        assert.equal(stringifyChunks(value).join(''), stringify(value));
        assert.equal(
          stringifyChunks(value, { indent: 2 }).join(''),
          stringify(value, { indent: 2 }),
        );
      }),
      { numRuns: 300 },
    );
    const strings = Array.from({ length: 20000 }, (_, i) => `item ${i} é😀 "quoted"\n`);
    const big = { strings, long: 'x'.repeat(300000) + '\u0001' };
    assert.equal(stringifyChunks(big).join(''), JSON.stringify(big));
    assert.deepEqual(stringifyChunks([1]), ['[1]']);
  });

  it('names the path of a value that has no JSON form', () => {
    const cycle: Record<string, unknown> = { a: 1 };
    cycle['self'] = { back: cycle };
    class Point {
      x = 1;
    }
    const cases: readonly (readonly [unknown, string])[] = [
      [{ a: NaN }, '$.a'],
      [[1, Infinity], '$[1]'],
      [{ f: () => 1 }, '$.f'],
      [{ s: Symbol('s') }, '$.s'],
      [[undefined], '$[0]'],
      [undefined, '$'],
      [cycle, '$.self.back'],
      [{ when: new Date(0) }, '$.when'],
      [{ 'odd key': [new Point()] }, '$["odd key"][0]'],
      [new Map<unknown, unknown>([[1, 'one']]), '$'],
      [{ text: 'a\ud800' }, '$.text'],
      [{ ['k\udc00']: 1 }, '$["k\\udc00"]'],
      [{ n: { kind: 'number', text: '01' } }, '$.n'],
      [new Set([1]), '$'],
    ];
    for (const [value, path] of cases) {
      assert.throws(
        () => stringify(value as JsonInput),
        { code: 'unserializable_value', details: { path } },
        path,
      );
    }
  });

  it('refuses an indent out of range', () => {
    assert.throws(() => stringify(1, { indent: 11 }), RangeError);
    assert.throws(() => stringify(1, { indent: -1 }), RangeError);
    assert.throws(() => stringify(1, { indent: '\n' }), RangeError);
    assert.equal(stringify([1], { indent: 0 }), '[1]');
  });

  it('writes a __proto__ key that parse let through', () => {
    const text = '{"__proto__":1}';
    assert.equal(stringify(parse(text, { allowProtoKey: true })), text);
  });
});
