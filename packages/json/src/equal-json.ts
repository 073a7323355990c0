import { compareNumberText } from './compare-number-text.js';
import { isJsonArray, isJsonObject } from './guards.js';
import type { JsonArray, JsonObject, JsonValue } from './types.js';

/**
 * Deep equality of two `JsonValue`s: numbers by exact rational value (`1.0` equals `1`, `-0`
 * equals `0`), objects ignoring key order, arrays in order.
 *
 * @example equalJson(parse('{"a":1.0,"b":2}'), parse('{"b":2e0,"a":1}')) // true
 */
export function equalJson(a: JsonValue, b: JsonValue): boolean {
  if (a === b) {
    return true;
  }
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) {
    return false;
  }
  if (isJsonArray(a) || isJsonArray(b)) {
    return isJsonArray(a) && isJsonArray(b) && equalArrays(a, b);
  }
  if (isJsonObject(a) || isJsonObject(b)) {
    return isJsonObject(a) && isJsonObject(b) && equalObjects(a, b);
  }
  return compareNumberText(a.text, b.text) === 0;
}

function equalArrays(a: JsonArray, b: JsonArray): boolean {
  return a.length === b.length && a.every((item, i) => equalJson(item, b[i] ?? null));
}

function equalObjects(a: JsonObject, b: JsonObject): boolean {
  if (a.size !== b.size) {
    return false;
  }
  for (const [key, value] of a) {
    const other = b.get(key);
    if (other === undefined || !equalJson(value, other)) {
      return false;
    }
  }
  return true;
}
