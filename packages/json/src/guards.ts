import { isNumberText } from './number-text.js';
import type { JsonArray, JsonNumber, JsonObject, RawJson } from './types.js';

/**
 * Guards to tell the kinds of a `JsonValue` apart. They check the value itself, not its members
 * (a `JsonValue` from `parse` is valid all the way down).
 */

/** @example isJsonObject(parse('{}')) // true */
export function isJsonObject(value: unknown): value is JsonObject {
  return value instanceof Map;
}

/** @example isJsonArray(parse('[1]')) // true */
export function isJsonArray(value: unknown): value is JsonArray {
  return Array.isArray(value);
}

/** A `{ kind: 'number', text }` whose text matches the JSON number grammar. */
export function isJsonNumber(value: unknown): value is JsonNumber {
  return isTagged(value, 'number') && isNumberText(value.text);
}

/** A `{ kind: 'raw', text }`; the text itself is trusted, not checked. */
export function isRawJson(value: unknown): value is RawJson {
  return isTagged(value, 'raw');
}

function isTagged(value: unknown, kind: string): value is { readonly text: string } {
  if (typeof value !== 'object' || value === null) {
    return false;
  }
  const tagged = value as { readonly kind?: unknown; readonly text?: unknown };
  return tagged.kind === kind && typeof tagged.text === 'string';
}
