import type { JsonValue } from '@weave/json';
import { pathKey } from './json-path.js';
import type { Problems } from './problems.js';
import {
  checkMembers,
  describeKind,
  expectObject,
  readArray,
  readBoolean,
  report,
} from './problems.js';

/**
 * The input schema language (docs/definitions.md "Input schema"): a small, strict subset of JSON
 * Schema with snake_case names. `type` is one name or a list of names; objects are closed unless
 * `additional_properties` is true; a member listed in `required` must be present, and explicit
 * `null` is a value like any other, accepted only where `"null"` is among the types.
 */
export const TYPE_NAMES = [
  'string',
  'number',
  'integer',
  'boolean',
  'object',
  'array',
  'null',
] as const;
export type TypeName = (typeof TYPE_NAMES)[number];

export interface ValueType {
  /** Allowed types; undefined means any JSON value. */
  readonly types: ReadonlySet<TypeName> | undefined;
  readonly properties: ReadonlyMap<string, ValueType>;
  readonly required: ReadonlySet<string>;
  readonly additional: boolean;
  /** Type of every array item; undefined means any. */
  readonly items: ValueType | undefined;
}

export const ANY_TYPE: ValueType = {
  types: undefined,
  properties: new Map(),
  required: new Set(),
  additional: true,
  items: undefined,
};

export function typeOf(names: readonly TypeName[]): ValueType {
  return { ...ANY_TYPE, types: new Set(names), additional: false };
}

const SCHEMA_FIELDS = [
  'type',
  'properties',
  'required',
  'additional_properties',
  'items',
  'description',
];

export function compileSchema(schema: JsonValue, path: string, problems: Problems): ValueType {
  const object = expectObject(schema, path, problems);
  if (object === undefined) {
    return ANY_TYPE;
  }
  checkMembers(object, path, problems, { allowed: SCHEMA_FIELDS, required: [] });
  const types = readTypes(object.get('type'), pathKey(path, 'type'), problems);
  const isObject = types === undefined || types.has('object');
  const isArray = types === undefined || types.has('array');
  for (const key of ['properties', 'required', 'additional_properties'] as const) {
    if (object.has(key) && (types === undefined || !isObject)) {
      const at = pathKey(path, key);
      report(problems, at, 'invalid_schema', `${at} needs "object" among the types of ${path}`);
    }
  }
  if (object.has('items') && (types === undefined || !isArray)) {
    const at = pathKey(path, 'items');
    report(problems, at, 'invalid_schema', `${at} needs "array" among the types of ${path}`);
  }
  if (object.has('description') && typeof object.get('description') !== 'string') {
    report(problems, pathKey(path, 'description'), 'invalid_type', 'description must be a string');
  }
  const properties = compileProperties(
    object.get('properties'),
    pathKey(path, 'properties'),
    problems,
  );
  const items = object.get('items');
  return {
    types,
    properties,
    required: readRequired({ object, path, properties, problems }),
    additional: readBoolean(object, 'additional_properties', path, problems) ?? types === undefined,
    items: items === undefined ? undefined : compileSchema(items, pathKey(path, 'items'), problems),
  };
}

function readTypes(
  value: JsonValue | undefined,
  path: string,
  problems: Problems,
): ReadonlySet<TypeName> | undefined {
  if (value === undefined) {
    return undefined;
  }
  const names = Array.isArray(value) ? (value as readonly JsonValue[]) : [value];
  const types = new Set<TypeName>();
  const rule = `${path} must be one of ${TYPE_NAMES.join(', ')} or a non-empty list of them`;
  if (names.length === 0) {
    report(problems, path, 'invalid_schema', rule);
  }
  for (const name of names) {
    if (typeof name !== 'string' || !(TYPE_NAMES as readonly string[]).includes(name)) {
      report(problems, path, 'invalid_schema', `${rule} (got ${describeKind(name)})`);
    } else if (types.has(name as TypeName)) {
      report(problems, path, 'invalid_schema', `${path} lists "${name}" twice`);
    } else {
      types.add(name as TypeName);
    }
  }
  return types;
}

function compileProperties(
  value: JsonValue | undefined,
  path: string,
  problems: Problems,
): ReadonlyMap<string, ValueType> {
  const properties = new Map<string, ValueType>();
  if (value === undefined) {
    return properties;
  }
  const object = expectObject(value, path, problems);
  for (const [key, schema] of object ?? []) {
    properties.set(key, compileSchema(schema, pathKey(path, key), problems));
  }
  return properties;
}

function readRequired(options: {
  readonly object: ReadonlyMap<string, JsonValue>;
  readonly path: string;
  readonly properties: ReadonlyMap<string, ValueType>;
  readonly problems: Problems;
}): ReadonlySet<string> {
  const { object, path, properties, problems } = options;
  const required = new Set<string>();
  const list = readArray(object, 'required', path, problems) ?? [];
  list.forEach((name, i) => {
    const at = `${pathKey(path, 'required')}[${i}]`;
    if (typeof name !== 'string') {
      report(
        problems,
        at,
        'invalid_type',
        `${at} must be a property name (got ${describeKind(name)})`,
      );
    } else if (!properties.has(name)) {
      report(problems, at, 'invalid_schema', `${at} names "${name}", which is not in properties`);
    } else {
      required.add(name);
    }
  });
  return required;
}
