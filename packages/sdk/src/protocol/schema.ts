/**
 * JSON Schema objects (2020-12, the dialect of OpenAPI 3.1) that carry their TypeScript type.
 * Each wire shape is written once, here in the protocol: the server's presenters are checked
 * against `Infer<typeof X>` at compile time, the SDK's methods take and return the same types,
 * and the OpenAPI document embeds the same objects.
 *
 * The type rides on a phantom property that never exists at run time, so a schema is a plain
 * JSON-serialisable object.
 *
 * @example
 * const Queue = named('Queue', object({ name: string(), capacity: integer({ minimum: 1 }) }));
 * type Queue = Infer<typeof Queue>; // { readonly name: string; readonly capacity: number }
 */
import type { JsonNumber } from '@weave/json';

declare const phantom: unique symbol;

/** A JSON Schema object whose instances have type `T`. */
export interface Schema<T = unknown> {
  readonly [phantom]?: T;
  readonly [keyword: string]: unknown;
}

/** The TypeScript type of a schema's instances. */
export type Infer<S> = S extends Schema<infer T> ? T : never;

interface Annotations {
  readonly description?: string;
  readonly examples?: readonly unknown[];
  readonly deprecated?: boolean;
}

const OPTIONAL = Symbol('optional');

/** An object member that may be absent (it is not in `required`). */
export interface Optional<S extends Schema> {
  readonly [OPTIONAL]: true;
  readonly schema: S;
}

export function optional<S extends Schema>(schema: S): Optional<S> {
  return { [OPTIONAL]: true, schema };
}

function isOptional(value: Schema | Optional<Schema>): value is Optional<Schema> {
  return (value as Partial<Optional<Schema>>)[OPTIONAL] === true;
}

/** The members of an object schema: required ones, and `optional(…)` ones. */
export type Members = Readonly<Record<string, Schema | Optional<Schema>>>;
type Simplify<T> = { [K in keyof T]: T[K] } & {};
type RequiredKeys<M extends Members> = {
  [K in keyof M]: M[K] extends Optional<Schema> ? never : K;
}[keyof M];
type OptionalKeys<M extends Members> = Exclude<keyof M, RequiredKeys<M>>;
type MemberType<V> = V extends Optional<infer S> ? Infer<S> : Infer<V>;

export type ObjectType<M extends Members> = Simplify<
  { readonly [K in RequiredKeys<M>]: MemberType<M[K]> } & {
    readonly [K in OptionalKeys<M>]?: MemberType<M[K]>;
  }
>;

function clean<T extends Record<string, unknown>>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

export interface StringOptions extends Annotations {
  readonly pattern?: RegExp;
  readonly minLength?: number;
  readonly maxLength?: number;
  /** `date-time`, `uri`… (annotation for generators; readers check the real rule). */
  readonly format?: string;
}

export function string(options: StringOptions = {}): Schema<string> {
  const { pattern, ...rest } = options;
  return clean({ type: 'string', ...rest, pattern: pattern?.source });
}

/** One of the given strings (`enum`), typed as their union. */
export function literal<const T extends string>(
  values: readonly T[],
  annotations: Annotations = {},
): Schema<T> {
  return clean({ type: 'string', enum: [...values], ...annotations });
}

export interface NumberOptions extends Annotations {
  readonly minimum?: number;
  readonly maximum?: number;
}

export function integer(options: NumberOptions = {}): Schema<number> {
  return clean({ type: 'integer', ...options });
}

/**
 * Any JSON number. The SDK turns a number into a JS `number` only when that is exact; any other
 * arrives as a `JsonNumber` (`{kind: 'number', text}`), and either may be sent.
 */
export function number(options: NumberOptions = {}): Schema<number | JsonNumber> {
  return clean({ type: 'number', ...options });
}

export function boolean(annotations: Annotations = {}): Schema<boolean> {
  return clean({ type: 'boolean', ...annotations });
}

/** Any JSON value (a payload: input, result, output), kept exact end to end. */
export function json<T = unknown>(annotations: Annotations = {}): Schema<T> {
  return clean({ ...annotations });
}

export function nullable<T>(schema: Schema<T>): Schema<T | null> {
  if (typeof schema.type === 'string' && schema.enum === undefined) {
    return { ...schema, type: [schema.type, 'null'] };
  }
  return { anyOf: [schema, { type: 'null' }] };
}

export interface ArrayOptions extends Annotations {
  readonly minItems?: number;
  readonly maxItems?: number;
}

export function array<T>(items: Schema<T>, options: ArrayOptions = {}): Schema<readonly T[]> {
  return clean({ type: 'array', items, ...options });
}

/**
 * An object with exactly these members: unknown members are refused
 * (`additionalProperties: false`), as every reader of the server refuses them.
 */
export function object<const M extends Members>(
  members: M,
  annotations: Annotations = {},
): Schema<ObjectType<M>> {
  const properties: Record<string, Schema> = {};
  const required: string[] = [];
  for (const [key, value] of Object.entries(members)) {
    if (isOptional(value)) {
      properties[key] = value.schema;
    } else {
      properties[key] = value;
      required.push(key);
    }
  }
  return clean({
    type: 'object',
    properties,
    required: required.length === 0 ? undefined : required,
    additionalProperties: false,
    ...annotations,
  });
}

/** An object whose member names are free and whose values all match `values`. */
export function record<T>(
  values: Schema<T>,
  annotations: Annotations = {},
): Schema<Readonly<Record<string, T>>> {
  return clean({ type: 'object', additionalProperties: values, ...annotations });
}

/** Exactly one of the alternatives (tagged unions: give each a `literal` tag member). */
export function oneOf<const S extends readonly Schema[]>(
  alternatives: S,
  annotations: Annotations = {},
): Schema<Infer<S[number]>> {
  return clean({ oneOf: [...alternatives], ...annotations });
}

/**
 * A schema with a name: the OpenAPI document lists it once under `components.schemas` and
 * refers to it by `$ref`. The name is kept in `title`.
 */
export function named<T>(name: string, schema: Schema<T>): Schema<T> {
  return { ...schema, title: name };
}
