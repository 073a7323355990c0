/**
 * `flatten`, `mapped` and `kept` (store/flatten.ts) yield what `Array.prototype.flatMap`, `map` and
 * `filter` yield, index included.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { flatten, kept, mapped } from '../../src/store/flatten.js';

test('flatten is flatMap: same elements, same order, the index passed, empty parts skipped', () => {
  const items = Array.from({ length: 40 }, (_, i) => ({ id: `t${i}`, n: i % 4 }));
  const part = (item: { id: string; n: number }, index: number) =>
    Array.from({ length: item.n }, (_, k) => `${item.id}.${k}@${index}`);
  assert.deepEqual(flatten(items, part), items.flatMap(part));
  assert.deepEqual(flatten([], part), []);
  // One level only, as flatMap: a nested array stays an element.
  assert.deepEqual(
    flatten([1, 2], (n) => [[n], n]),
    [[1], 1, [2], 2],
  );
});

test('mapped is map and kept is filter: same elements, same order, the index passed', () => {
  const items = Array.from({ length: 40 }, (_, i) => ({ id: `t${i}`, n: i % 3 }));
  const label = (item: { id: string; n: number }, index: number) => `${item.id}@${index}`;
  assert.deepEqual(mapped(items, label), items.map(label));
  assert.deepEqual(mapped([], label), []);
  const even = (item: { n: number }) => item.n === 0;
  assert.deepEqual(kept(items, even), items.filter(even));
  assert.equal(kept(items, even).length, 14);
  assert.deepEqual(kept([], even), []);
});
