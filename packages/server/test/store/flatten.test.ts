/** `flatten` (store/flatten.ts) yields what `Array.prototype.flatMap` yields, index included. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { flatten } from '../../src/store/flatten.js';

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
