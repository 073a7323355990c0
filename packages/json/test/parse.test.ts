import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { JsonValue } from '../src/index.js';
import { MAX_DEPTH_LIMIT, parse, stringify } from '../src/index.js';
import { jsonNumberOf, jsonValueArbitrary } from './support/arbitraries.js';

describe('parse', () => {
  it('keeps every number as its exact text', () => {
    const texts = ['1e400', '-0.0', '12345678901234567890.000000000000000001', '0.10', '1E+2'];
    const parsed = parse(`[${texts.join(',')}]`);
    assert.deepEqual(parsed, texts.map(jsonNumberOf));
  });

  it('keeps key order, integer-like keys included', () => {
    const parsed = parse('{"b":1,"10":2,"a":3,"2":4,"1":5}');
    assert.ok(parsed instanceof Map);
    assert.deepEqual([...parsed.keys()], ['b', '10', 'a', '2', '1']);
  });

  it('keeps keys that differ only by case or a trailing space apart', () => {
    const parsed = parse('{"a":1,"A":2,"a ":3}');
    assert.ok(parsed instanceof Map);
    assert.deepEqual([...parsed.keys()], ['a', 'A', 'a ']);
  });

  it('reads scalars, empty containers and escapes', () => {
    assert.equal(parse('null'), null);
    assert.equal(parse('true'), true);
    assert.equal(parse('false'), false);
    assert.deepEqual(parse('[]'), []);
    assert.deepEqual(parse('{}'), new Map());
    const escaped = '"\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\ud83d\\ude00\\u0000"';
    assert.equal(parse(escaped), '"\\/\b\f\n\r\té😀\u0000');
  });

  it('allows only space, tab, CR and LF as whitespace, around every token', () => {
    assert.deepEqual(parse(' \t\r\n{ "a" :\t[ 1 , 2 ]\r\n}\n '), parse('{"a":[1,2]}'));
  });

  it('reads a UTF-8 Uint8Array or Buffer like the decoded string', () => {
    const text = '{"é":["😀",1.50,"\\u2028"],"k":null}';
    assert.deepEqual(parse(Buffer.from(text)), parse(text));
    assert.deepEqual(parse(new TextEncoder().encode(text)), parse(text));
  });

  it('accepts __proto__ as a plain key only when asked, without touching any prototype', () => {
    const parsed = parse('{"__proto__":{"polluted":true}}', { allowProtoKey: true });
    assert.ok(parsed instanceof Map);
    assert.deepEqual([...parsed.keys()], ['__proto__']);
    assert.equal(({} as Record<string, unknown>)['polluted'], undefined);
  });

  it('accepts nesting up to maxDepth and documents up to maxBytes', () => {
    const nested = '['.repeat(64) + ']'.repeat(64);
    assert.equal(stringify(parse(nested)), nested);
    assert.equal(parse('"éé"', { maxBytes: 6 }), 'éé');
    assert.equal(parse(Buffer.from('"éé"'), { maxBytes: 6 }), 'éé');
    assert.deepEqual(parse('1', { maxDepth: 0 }), jsonNumberOf('1'));
  });

  it('parses the deepest nesting allowed even from a deep call stack', () => {
    const depth = MAX_DEPTH_LIMIT;
    const nested = '{"a":'.repeat(depth - 1) + '[]' + '}'.repeat(depth - 1);
    const callDeep = (levels: number): JsonValue =>
      levels === 0 ? parse(nested, { maxDepth: depth }) : callDeep(levels - 1);
    assert.equal(stringify(callDeep(1000)), nested);
  });

  it('reads big documents, whose repeated keys are shared, like small ones', () => {
    fc.assert(
      fc.property(fc.array(jsonValueArbitrary, { minLength: 50, maxLength: 120 }), (values) => {
        const text = stringify(values);
        assert.deepEqual(parse(text), values);
        assert.equal(stringify(parse(text)), text);
      }),
      { numRuns: 40 },
    );
    // Past 1024 distinct keys, new keys are no longer remembered; results must not change.
    const wide = Object.fromEntries(Array.from({ length: 3000 }, (_, i) => [`k${i}`, [i]]));
    const text = stringify([wide, wide]);
    assert.equal(stringify(parse(text)), text);
  });

  it('finds a duplicate key deep in a big document', () => {
    const records = Array.from({ length: 300 }, (_, i) => `{"id":${i},"name":"n${i}"}`);
    records.push('{"id":300,"name":"a","id":1}');
    const text = `[${records.join(',')}]`;
    assert.ok(text.length > 4096);
    assert.throws(() => parse(text), {
      code: 'duplicate_key',
      details: {
        position: text.lastIndexOf('"id"'),
        line: 1,
        column: text.lastIndexOf('"id"') + 1,
        path: '$[300]',
        key: 'id',
      },
    });
  });

  it('refuses options out of range and inputs of the wrong type', () => {
    assert.throws(() => parse('1', { maxDepth: -1 }), RangeError);
    assert.throws(() => parse('1', { maxDepth: 1.5 }), RangeError);
    assert.throws(() => parse('1', { maxDepth: MAX_DEPTH_LIMIT + 1 }), RangeError);
    assert.throws(() => parse('1', { maxBytes: -1 }), RangeError);
    assert.throws(() => parse('1', { maxBytes: NaN }), RangeError);
    assert.throws(() => parse(42 as unknown as string), TypeError);
  });

  it('reads a generated document the same from a string and from its bytes', () => {
    fc.assert(
      fc.property(jsonValueArbitrary, (value) => {
        const text = stringify(value);
        assert.deepEqual(parse(Buffer.from(text, 'utf8')), parse(text));
      }),
      { numRuns: 300 },
    );
  });
});
