/**
 * Sample request bodies generated from a protocol schema, for the reader/schema agreement test:
 * every member present (one sample per `oneOf` alternative), each value the schema's first
 * example or the simplest value its keywords allow. Objects are `RecordingObject`s, which note
 * every member name a reader asks for, by JSON path.
 */
import type { JsonNumber, JsonValue } from '@weave/json';

type SchemaObject = Readonly<Record<string, unknown>>;

/** An exact-JSON object that records the member names read from it (`get` / `has`). */
export class RecordingObject extends Map<string, JsonValue> {
  readonly #path: string;
  readonly #seen: Set<string>;

  constructor(path: string, seen: Set<string>, entries: readonly (readonly [string, JsonValue])[]) {
    super(entries);
    this.#path = path;
    this.#seen = seen;
  }

  override get(key: string): JsonValue | undefined {
    this.#seen.add(`${this.#path}.${key}`);
    return super.get(key);
  }

  override has(key: string): boolean {
    this.#seen.add(`${this.#path}.${key}`);
    return super.has(key);
  }
}

export interface Sample {
  readonly body: JsonValue;
  /** Every member path of the sample (`$.retry.max_attempts`, `$.completions[].permit`). */
  readonly memberPaths: ReadonlySet<string>;
  /** The member paths the reader asked for (filled while it reads). */
  readonly read: Set<string>;
}

function number(text: string): JsonNumber {
  return { kind: 'number', text };
}

function scalar(schema: SchemaObject): JsonValue {
  const examples = schema.examples as readonly unknown[] | undefined;
  const enumValues = schema.enum as readonly string[] | undefined;
  const example = examples?.[0] ?? enumValues?.[0];
  const type = Array.isArray(schema.type) ? (schema.type[0] as string) : schema.type;
  if (type === 'integer' || type === 'number') {
    const value = (example as number | undefined) ?? (schema.minimum as number | undefined) ?? 1;
    return number(String(value));
  }
  if (type === 'boolean') {
    return true;
  }
  if (type === 'string') {
    if (typeof example === 'string') {
      return example;
    }
    if (schema.format === 'date-time') {
      return '2026-11-29T20:30:11.123456Z';
    }
    if (schema.format === 'uri') {
      return 'https://hooks.example.com/weave';
    }
    if (schema.pattern !== undefined) {
      throw new Error(`a string with a pattern needs an example: ${JSON.stringify(schema)}`);
    }
    return 'text';
  }
  if (type === undefined) {
    // Any JSON value (a payload).
    return new Map<string, JsonValue>([['k', number('0.1')]]);
  }
  throw new Error(`no sample for ${JSON.stringify(schema)}`);
}

/** Every alternative of the schema at the top (`oneOf`) or inside (one per branch). */
function alternatives(schema: SchemaObject): SchemaObject[] {
  if (Array.isArray(schema.oneOf)) {
    return (schema.oneOf as SchemaObject[]).flatMap(alternatives);
  }
  if (Array.isArray(schema.anyOf)) {
    return alternatives((schema.anyOf as SchemaObject[])[0] ?? {});
  }
  return [schema];
}

function valueOf(
  schema: SchemaObject,
  path: string,
  seen: Set<string>,
  members: Set<string>,
): JsonValue {
  const [chosen = schema] = alternatives(schema);
  if (chosen.type === 'object' && chosen.properties !== undefined) {
    const properties = chosen.properties as Readonly<Record<string, SchemaObject>>;
    const entries = Object.entries(properties).map(([key, member]) => {
      members.add(`${path}.${key}`);
      return [key, valueOf(member, `${path}.${key}`, seen, members)] as const;
    });
    return new RecordingObject(path, seen, entries);
  }
  if (chosen.type === 'array') {
    return [valueOf(chosen.items as SchemaObject, `${path}[]`, seen, members)];
  }
  return scalar(chosen);
}

/** One sample per alternative of the body schema (a tagged union gives one per tag). */
export function samplesOf(schema: SchemaObject): Sample[] {
  const tops = alternatives(schema);
  const nested = tops.flatMap((top) => expandNested(top));
  return nested.map((variant) => {
    const read = new Set<string>();
    const memberPaths = new Set<string>();
    const body = valueOf(variant, '$', read, memberPaths);
    return { body, memberPaths, read };
  });
}

/**
 * Unions below the top (the items of `completions`) expand into one top-level variant per
 * alternative, so each alternative is read once.
 */
function expandNested(schema: SchemaObject): SchemaObject[] {
  if (schema.type !== 'object' || schema.properties === undefined) {
    return [schema];
  }
  const properties = schema.properties as Readonly<Record<string, SchemaObject>>;
  let variants: Record<string, SchemaObject>[] = [{}];
  for (const [key, member] of Object.entries(properties)) {
    const options = memberVariants(member);
    variants = variants.flatMap((v) => options.map((o) => ({ ...v, [key]: o })));
  }
  return variants.map((properties) => ({ ...schema, properties }));
}

function memberVariants(schema: SchemaObject): SchemaObject[] {
  if (Array.isArray(schema.oneOf)) {
    return (schema.oneOf as SchemaObject[]).flatMap(memberVariants);
  }
  if (schema.type === 'array' && schema.items !== undefined) {
    return memberVariants(schema.items as SchemaObject).map((items) => ({ ...schema, items }));
  }
  if (schema.type === 'object' && schema.properties !== undefined) {
    return expandNested(schema);
  }
  return [schema];
}

/** The paths of every schema object in a sample (not payloads: any member is fine there). */
export function objectPaths(value: JsonValue, path = '$'): string[] {
  if (value instanceof RecordingObject) {
    return [path, ...[...value].flatMap(([key, member]) => objectPaths(member, `${path}.${key}`))];
  }
  if (Array.isArray(value)) {
    return (value as readonly JsonValue[]).flatMap((item, i) => objectPaths(item, `${path}[${i}]`));
  }
  return [];
}

/** A copy of the sample with `key: 1` (default `zz_unknown`) added to the object at `target`. */
export function withUnknownMember(
  value: JsonValue,
  target: string,
  key = 'zz_unknown',
  path = '$',
): JsonValue {
  if (value instanceof RecordingObject) {
    const entries: [string, JsonValue][] = [...value].map(([k, v]) => [
      k,
      withUnknownMember(v, target, key, `${path}.${k}`),
    ]);
    if (path === target) {
      entries.push([key, number('1')]);
    }
    return new Map(entries);
  }
  if (Array.isArray(value)) {
    return (value as readonly JsonValue[]).map((item, i) =>
      withUnknownMember(item, target, key, `${path}[${i}]`),
    );
  }
  return value;
}
