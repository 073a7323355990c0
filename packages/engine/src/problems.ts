import type { JsonObject, JsonValue } from '@weave/json';
import { jsonKind } from './json-value.js';
import { pathKey } from './json-path.js';

/**
 * Compile problems are values: each names the place by JSON path, a stable snake_case code and
 * a message with the rule and what was given (STYLE.md §5). Validation collects every problem
 * instead of stopping at the first, so an author sees all faults at once.
 */
export type ProblemCode =
  | 'malformed_json'
  | 'duplicate_key'
  | 'forbidden_key'
  | 'too_deep'
  | 'payload_too_large'
  | 'invalid_type'
  | 'missing_field'
  | 'unknown_field'
  | 'invalid_value'
  | 'invalid_name'
  | 'invalid_id'
  | 'duplicate_id'
  | 'too_many_steps'
  | 'invalid_duration'
  | 'invalid_reference'
  | 'unknown_step'
  | 'unreachable_reference'
  | 'unknown_property'
  | 'invalid_condition'
  | 'condition_type_mismatch'
  | 'too_large'
  | 'unsupported_schema_version'
  | 'invalid_schema';

export interface Problem {
  readonly path: string;
  readonly code: ProblemCode;
  readonly message: string;
}

/** The list every compile function appends to. */
export type Problems = Problem[];

export function report(problems: Problems, path: string, code: ProblemCode, message: string): void {
  problems.push({ path, code, message });
}

/** `an object`, `a string`, … for messages. */
export function describeKind(value: JsonValue): string {
  const kind = jsonKind(value);
  return kind === 'array' || kind === 'object'
    ? `an ${kind}`
    : kind === 'null'
      ? 'null'
      : `a ${kind}`;
}

/** The value as an object, or a problem and undefined. */
export function expectObject(
  value: JsonValue,
  path: string,
  problems: Problems,
): JsonObject | undefined {
  if (value instanceof Map) {
    return value;
  }
  report(problems, path, 'invalid_type', `${path} must be an object (got ${describeKind(value)})`);
  return undefined;
}

/** Reports members outside `allowed` and missing `required` members. */
export function checkMembers(
  object: JsonObject,
  path: string,
  problems: Problems,
  fields: { readonly allowed: readonly string[]; readonly required: readonly string[] },
): void {
  for (const key of object.keys()) {
    if (!fields.allowed.includes(key)) {
      const allowed = fields.allowed.join(', ');
      report(problems, pathKey(path, key), 'unknown_field', `unknown field; allowed: ${allowed}`);
    }
  }
  for (const key of fields.required) {
    if (!object.has(key)) {
      report(problems, pathKey(path, key), 'missing_field', `${pathKey(path, key)} is required`);
    }
  }
}

/** A string member (undefined when absent or of another type, with a problem for the latter). */
export function readString(
  object: JsonObject,
  key: string,
  path: string,
  problems: Problems,
): string | undefined {
  const value = object.get(key);
  if (value === undefined) {
    return undefined;
  }
  if (typeof value === 'string') {
    return value;
  }
  const at = pathKey(path, key);
  report(problems, at, 'invalid_type', `${at} must be a string (got ${describeKind(value)})`);
  return undefined;
}

export function readBoolean(
  object: JsonObject,
  key: string,
  path: string,
  problems: Problems,
): boolean | undefined {
  const value = object.get(key);
  if (value === undefined || typeof value === 'boolean') {
    return value;
  }
  const at = pathKey(path, key);
  report(problems, at, 'invalid_type', `${at} must be true or false (got ${describeKind(value)})`);
  return undefined;
}

export function readArray(
  object: JsonObject,
  key: string,
  path: string,
  problems: Problems,
): readonly JsonValue[] | undefined {
  const value = object.get(key);
  if (value === undefined || Array.isArray(value)) {
    return value as readonly JsonValue[] | undefined;
  }
  const at = pathKey(path, key);
  report(problems, at, 'invalid_type', `${at} must be an array (got ${describeKind(value)})`);
  return undefined;
}
