/**
 * `toPlain`: exact JSON answers as plain objects. Members are assigned (fast) except
 * `__proto__`, which is defined as an own member so it never sets the object's prototype.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parse } from '@weave/json';
import type { JsonValue } from '@weave/json';
import { toPlain } from '../src/plain.js';

test('objects become plain objects with their members in order, safe integers numbers', () => {
  const plain = toPlain(parse('{"b":1,"a":[true,null,"x"],"10":{"c":-3}}'));
  assert.deepEqual(plain, { b: 1, a: [true, null, 'x'], 10: { c: -3 } });
  assert.equal(Object.getPrototypeOf(plain), Object.prototype);
});

test('a "__proto__" member is an own member and leaves the prototype alone', () => {
  // The parser refuses the key by default (`forbidden_key`); a JsonObject can still hold it.
  const value = new Map<string, JsonValue>([
    ['__proto__', new Map<string, JsonValue>([['polluted', true]])],
    ['after', { kind: 'number', text: '1' }],
  ]);
  const plain = toPlain(value) as Record<string, unknown>;
  assert.equal(Object.getPrototypeOf(plain), Object.prototype);
  assert.deepEqual(Object.keys(plain), ['__proto__', 'after']);
  assert.deepEqual(Object.getOwnPropertyDescriptor(plain, '__proto__')?.value, {
    polluted: true,
  });
  assert.equal((plain as { polluted?: unknown }).polluted, undefined);
  assert.equal(plain['after'], 1);
  assert.equal(({} as { polluted?: unknown }).polluted, undefined);
});

test('numbers a float64 cannot hold exactly stay JSON numbers', () => {
  const plain = toPlain(parse('{"big":12345678901234567890,"f":0.1,"n":42}'));
  assert.deepEqual(plain, {
    big: { kind: 'number', text: '12345678901234567890' },
    f: { kind: 'number', text: '0.1' },
    n: 42,
  });
});
