import type { JsonValue } from '../../src/index.js';
import { isJsonArray, isJsonObject } from '../../src/index.js';

/**
 * `value` with the members of every object in another order, chosen by `seed` (a deterministic
 * shuffle, so that fast-check can replay and shrink a failure).
 */
export function reorderKeys(value: JsonValue, seed: number): JsonValue {
  if (isJsonArray(value)) {
    return value.map((item, i) => reorderKeys(item, seed + i));
  }
  if (isJsonObject(value)) {
    const entries = [...value].map(([key, item], i): [string, JsonValue] => [
      key,
      reorderKeys(item, seed + i),
    ]);
    return new Map(shuffle(entries, seed));
  }
  return value;
}

function shuffle<T>(items: T[], seed: number): T[] {
  let state = seed >>> 0 || 1;
  for (let i = items.length - 1; i > 0; i--) {
    // xorshift32: enough to permute a handful of keys reproducibly.
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    const j = (state >>> 0) % (i + 1);
    [items[i], items[j]] = [items[j] as T, items[i] as T];
  }
  return items;
}
