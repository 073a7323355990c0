/**
 * Reading request bodies (exact-JSON values) into typed fields. Every failure is
 * `invalid_argument` with the JSON path of the field, the rule, and what was given.
 */
import { isJsonArray, isJsonNumber, isJsonObject } from '@weave/json';
import type { JsonObject, JsonValue } from '@weave/json';
import { WeaveError } from '../errors.js';
import { parseInstant } from '@weave/sdk/protocol';
import type { Micros } from '@weave/sdk/protocol';

function describe(value: JsonValue | undefined): string {
  if (value === undefined) {
    return 'nothing';
  }
  if (value === null) {
    return 'null';
  }
  if (isJsonArray(value)) {
    return 'an array';
  }
  if (isJsonObject(value)) {
    return 'an object';
  }
  if (isJsonNumber(value)) {
    return `the number ${value.text}`;
  }
  return typeof value === 'string' ? `a string` : `${String(value)}`;
}

function fail(path: string, rule: string, value: JsonValue | undefined): never {
  throw new WeaveError('invalid_argument', `${path} ${rule} (got ${describe(value)})`, {
    details: { path },
  });
}

export function expectObject(value: JsonValue | undefined, path = '$'): JsonObject {
  if (!isJsonObject(value)) {
    fail(path, 'must be an object', value);
  }
  return value;
}

/** Unknown members are refused, so a misspelt option never passes silently. */
export function rejectUnknown(obj: JsonObject, allowed: readonly string[], path = '$'): void {
  for (const key of obj.keys()) {
    if (!allowed.includes(key)) {
      throw new WeaveError('invalid_argument', `${path}.${key} is not a known field`, {
        details: { path: `${path}.${key}` },
      });
    }
  }
}

interface Common {
  readonly path?: string;
}

export function readString(
  obj: JsonObject,
  key: string,
  opts: Common & { pattern?: RegExp; maxLength?: number } = {},
): string | undefined {
  const path = `${opts.path ?? '$'}.${key}`;
  const value = obj.get(key);
  if (value === undefined) {
    return undefined;
  }
  if (typeof value !== 'string') {
    fail(path, 'must be a string', value);
  }
  if (opts.pattern !== undefined && !opts.pattern.test(value)) {
    fail(path, `must match ${opts.pattern.source}`, value);
  }
  if (opts.maxLength !== undefined && [...value].length > opts.maxLength) {
    fail(path, `must be at most ${opts.maxLength} characters`, value);
  }
  return value;
}

export function requireString(
  obj: JsonObject,
  key: string,
  opts: Common & { pattern?: RegExp; maxLength?: number } = {},
): string {
  const value = readString(obj, key, opts);
  if (value === undefined) {
    fail(`${opts.path ?? '$'}.${key}`, 'is required', undefined);
  }
  return value;
}

export function readInteger(
  obj: JsonObject,
  key: string,
  opts: Common & { min?: number; max?: number } = {},
): number | undefined {
  const path = `${opts.path ?? '$'}.${key}`;
  const value = obj.get(key);
  if (value === undefined) {
    return undefined;
  }
  const text = isJsonNumber(value) ? value.text : undefined;
  if (
    text === undefined ||
    !/^-?(0|[1-9][0-9]{0,15})$/.test(text) ||
    !Number.isSafeInteger(Number(text))
  ) {
    fail(path, 'must be an integer', value);
  }
  const n = Number(text);
  const min = opts.min ?? 0;
  const max = opts.max ?? Number.MAX_SAFE_INTEGER;
  if (n < min || n > max) {
    fail(path, `must be between ${min} and ${max}`, value);
  }
  return n;
}

export function readBoolean(obj: JsonObject, key: string, opts: Common = {}): boolean | undefined {
  const value = obj.get(key);
  if (value === undefined) {
    return undefined;
  }
  if (typeof value !== 'boolean') {
    fail(`${opts.path ?? '$'}.${key}`, 'must be true or false', value);
  }
  return value;
}

export function readStringArray(
  obj: JsonObject,
  key: string,
  opts: Common & { pattern?: RegExp; minItems?: number; maxItems?: number } = {},
): string[] | undefined {
  const path = `${opts.path ?? '$'}.${key}`;
  const value = obj.get(key);
  if (value === undefined) {
    return undefined;
  }
  if (!Array.isArray(value)) {
    fail(path, 'must be an array of strings', value);
  }
  const items = value as readonly JsonValue[];
  if (items.length < (opts.minItems ?? 0) || items.length > (opts.maxItems ?? 1000)) {
    fail(path, `must have ${opts.minItems ?? 0} to ${opts.maxItems ?? 1000} items`, value);
  }
  return items.map((item, i) => {
    if (typeof item !== 'string' || (opts.pattern !== undefined && !opts.pattern.test(item))) {
      fail(
        `${path}[${i}]`,
        opts.pattern ? `must be a string matching ${opts.pattern.source}` : 'must be a string',
        item,
      );
    }
    return item;
  });
}

/** RFC 3339 instant (`2026-11-29T20:30:11.123456Z`) → Unix microseconds; `null` stays `null`. */
export function readInstant(
  obj: JsonObject,
  key: string,
  opts: Common = {},
): Micros | null | undefined {
  const path = `${opts.path ?? '$'}.${key}`;
  const value = obj.get(key);
  if (value === undefined || value === null) {
    return value;
  }
  const micros = typeof value === 'string' ? parseInstant(value) : undefined;
  if (micros === undefined) {
    fail(path, 'must be an RFC 3339 time such as 2026-11-29T20:30:11Z', value);
  }
  return micros;
}
