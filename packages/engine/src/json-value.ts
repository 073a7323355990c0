import type { JsonNumber, JsonObject, JsonValue } from '@weave/json';
import { isNumberText } from '@weave/json';
import { pathIndex, pathKey } from './json-path.js';

/**
 * Small private helpers over the `@weave/json` value model that the package does not export:
 * a kind tag, a deep shape check for values that arrive from storage, and the compact serialized
 * size (for size limits without building the text).
 */
export type JsonKind = 'null' | 'boolean' | 'string' | 'number' | 'array' | 'object';

export function jsonKind(value: JsonValue): JsonKind {
  if (value === null) {
    return 'null';
  }
  switch (typeof value) {
    case 'boolean':
      return 'boolean';
    case 'string':
      return 'string';
    default:
      if (Array.isArray(value)) {
        return 'array';
      }
      return value instanceof Map ? 'object' : 'number';
  }
}

/** A `JsonNumber` from a safe integer the engine computed itself (milliseconds, counts). */
export function integerNumber(value: number): JsonNumber {
  return { kind: 'number', text: String(value) };
}

/** The path of the first place where `value` is not a well-formed `JsonValue`, or undefined. */
export function findInvalidJson(value: unknown, path: string): string | undefined {
  if (value === null || typeof value === 'boolean') {
    return undefined;
  }
  if (typeof value === 'string') {
    return isWellFormed(value) ? undefined : path;
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const bad = findInvalidJson(value[i], pathIndex(path, i));
      if (bad !== undefined) {
        return bad;
      }
    }
    return undefined;
  }
  if (value instanceof Map) {
    for (const [key, member] of value as Map<unknown, unknown>) {
      if (typeof key !== 'string') {
        return path;
      }
      const bad = findInvalidJson(member, pathKey(path, key));
      if (bad !== undefined) {
        return bad;
      }
    }
    return undefined;
  }
  return isNumberValue(value) ? undefined : path;
}

function isNumberValue(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) {
    return false;
  }
  const candidate = value as { kind?: unknown; text?: unknown };
  return (
    candidate.kind === 'number' &&
    typeof candidate.text === 'string' &&
    isNumberText(candidate.text)
  );
}

function isWellFormed(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0xd800 && code <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (!(next >= 0xdc00 && next <= 0xdfff)) {
        return false;
      }
      i++;
    } else if (code >= 0xdc00 && code <= 0xdfff) {
      return false;
    }
  }
  return true;
}

/**
 * UTF-8 bytes of the compact JSON text `stringify` writes for `value` (minimal escapes).
 * Stops counting once the total passes `stopAbove` and returns a number above it, so a limit
 * check on a huge value costs no more than the limit.
 */
export function serializedSize(value: JsonValue, stopAbove = Number.POSITIVE_INFINITY): number {
  if (value === null) {
    return 4;
  }
  switch (typeof value) {
    case 'boolean':
      return value ? 4 : 5;
    case 'string':
      return stringSize(value);
    default:
      break;
  }
  if (Array.isArray(value)) {
    let size = 2 + Math.max(0, value.length - 1);
    for (const item of value as readonly JsonValue[]) {
      size += serializedSize(item, stopAbove - size);
      if (size > stopAbove) {
        return size;
      }
    }
    return size;
  }
  if (isObject(value)) {
    let size = 2 + Math.max(0, value.size - 1);
    for (const [key, member] of value) {
      size += stringSize(key) + 1 + serializedSize(member, stopAbove - size);
      if (size > stopAbove) {
        return size;
      }
    }
    return size;
  }
  return (value as JsonNumber).text.length;
}

/** Bytes of a quoted JSON string: escapes for `"`, `\`, controls; UTF-8 for the rest. */
export function stringSize(text: string): number {
  let size = 2;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 0x22 || code === 0x5c) {
      size += 2;
    } else if (code < 0x20) {
      size += code === 8 || code === 9 || code === 10 || code === 12 || code === 13 ? 2 : 6;
    } else if (code < 0x80) {
      size += 1;
    } else if (code < 0x800) {
      size += 2;
    } else if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      size += 4;
      i++;
    } else {
      size += 3;
    }
  }
  return size;
}

/** `Array.isArray` that narrows a `JsonValue` to a readonly array. */
export function isArray(value: JsonValue | undefined): value is readonly JsonValue[] {
  return Array.isArray(value);
}

export function isNumber(value: JsonValue | undefined): value is JsonNumber {
  return (
    typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Map)
  );
}

/** `instanceof Map` that narrows a `JsonValue` to a `JsonObject` (not `Map<any, any>`). */
export function isObject(value: JsonValue | undefined): value is JsonObject {
  return value instanceof Map;
}
