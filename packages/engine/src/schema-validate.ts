import type { JsonValue } from '@weave/json';
import { jsonKind } from './json-value.js';
import { pathIndex, pathKey } from './json-path.js';
import { isIntegerText } from './number-text.js';
import type { Problems } from './problems.js';
import { describeKind, report } from './problems.js';
import type { TypeName, ValueType } from './schema.js';

/** Enough problems to fix a document; a hostile 256 KiB input must not produce a megabyte of them. */
const MAX_PROBLEMS = 100;

/** Appends every way `value` breaks `type` (at most 100), each with its JSON path. */
export function validateValue(
  type: ValueType,
  value: JsonValue,
  path: string,
  problems: Problems,
): void {
  if (problems.length >= MAX_PROBLEMS || type.types === undefined) {
    return;
  }
  if (!matchesTypes(type.types, value)) {
    const expected = [...type.types].join(' or ');
    report(
      problems,
      path,
      'invalid_type',
      `${path} must be ${expected} (got ${describeKind(value)})`,
    );
    return;
  }
  if (value instanceof Map) {
    validateMembers(type, value, path, problems);
  } else if (Array.isArray(value) && type.items !== undefined) {
    const items = type.items;
    (value as readonly JsonValue[]).forEach((item, i) => {
      validateValue(items, item, pathIndex(path, i), problems);
    });
  }
}

function validateMembers(
  type: ValueType,
  value: ReadonlyMap<string, JsonValue>,
  path: string,
  problems: Problems,
): void {
  for (const [key, member] of value) {
    const memberType = type.properties.get(key);
    if (memberType !== undefined) {
      validateValue(memberType, member, pathKey(path, key), problems);
    } else if (!type.additional) {
      const at = pathKey(path, key);
      report(problems, at, 'unknown_field', `${at} is not a declared property`);
    }
  }
  for (const key of type.required) {
    if (!value.has(key)) {
      const at = pathKey(path, key);
      report(problems, at, 'missing_field', `${at} is required`);
    }
  }
}

function matchesTypes(types: ReadonlySet<TypeName>, value: JsonValue): boolean {
  const kind = jsonKind(value);
  if (kind !== 'number') {
    return types.has(kind);
  }
  if (types.has('number')) {
    return true;
  }
  return types.has('integer') && isIntegerText((value as { readonly text: string }).text);
}
