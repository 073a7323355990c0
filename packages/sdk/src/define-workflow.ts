/**
 * `defineWorkflow<Input, Output>(…)`: a typed handle on a schema_version 1 definition
 * (docs/definitions.md), which `client.workflows.publish(handle)` accepts (STYLE.md §11: typed
 * handles over ambient magic). The builder assembles JSON and checks nothing beyond its types:
 * the server's compiler (as `weave workflows validate`) is the one authority.
 */
import type { Duration, Steps } from './define-steps.js';
import type { Value } from './define-values.js';

/** A type name of the input schema. @example const type: SchemaType = 'string'; */
export type SchemaType = 'string' | 'number' | 'integer' | 'boolean' | 'object' | 'array' | 'null';

/**
 * The input schema (docs/definitions.md "Input schema"): a strict subset of JSON Schema with
 * snake_case names; objects are closed unless `additional_properties` is true.
 *
 * @example
 * const schema: InputSchema = {
 *   type: 'object',
 *   required: ['orderId'],
 *   properties: { orderId: { type: 'string' } },
 * };
 */
export type InputSchema = {
  readonly type?: SchemaType | readonly SchemaType[];
  readonly properties?: { readonly [name: string]: InputSchema };
  readonly required?: readonly string[];
  readonly additional_properties?: boolean;
  readonly items?: InputSchema;
  readonly description?: string;
};

/**
 * What `defineWorkflow` takes: the document without `schema_version`.
 *
 * @example
 * const options: WorkflowOptions = { name: 'order', steps: [] };
 */
export type WorkflowOptions = {
  readonly name: string;
  readonly description?: string;
  readonly timeout?: Duration;
  readonly input?: InputSchema;
  readonly steps: Steps;
  readonly output?: Value;
};

/**
 * A schema_version 1 definition as plain JSON (write it with `stringify` from `@weave/json`,
 * which keeps `JsonNumber` text exact).
 *
 * @example
 * const definition: WorkflowDefinition = { schema_version: 1, name: 'order', steps: [] };
 */
export type WorkflowDefinition = { readonly schema_version: 1 } & WorkflowOptions;

// Symbol.for, not a module-local Symbol(): a handle made by one copy of the SDK is recognized by
// another (STYLE.md §5: never instanceof across packages).
const HANDLE: unique symbol = Symbol.for('@weave/sdk.workflow-handle');
declare const types: unique symbol;

/**
 * A workflow definition with the types of its instance input and output. `Input` and `Output`
 * are compile-time only (there is no runtime check of them; the input schema is checked by the
 * server at Start).
 *
 * @example
 * type OrderInput = { orderId: string };
 * const order: WorkflowHandle<OrderInput> = defineWorkflow<OrderInput>({ name: 'order', steps: [] });
 */
export type WorkflowHandle<Input = unknown, Output = unknown> = {
  readonly name: string;
  readonly definition: WorkflowDefinition;
  readonly [HANDLE]: true;
  /** Phantom: never present at run time. */
  readonly [types]?: { readonly input: Input; readonly output: Output };
};

/** The instance input type of a handle. @example type OrderInput = InputOf<typeof order>; */
export type InputOf<H> = H extends WorkflowHandle<infer Input, unknown> ? Input : never;

/** The instance output type of a handle. @example type OrderOutput = OutputOf<typeof order>; */
export type OutputOf<H> = H extends WorkflowHandle<unknown, infer Output> ? Output : never;

/**
 * A typed handle on the definition `{ schema_version: 1, name, description?, timeout?, input?,
 * steps, output? }` (members in that order; absent options are left out).
 *
 * @example
 * const order = defineWorkflow<{ orderId: string }, { tracking: unknown }>({
 *   name: 'order',
 *   input: { type: 'object', required: ['orderId'], properties: { orderId: { type: 'string' } } },
 *   steps: [task('reserve', { queue: 'inventory', input: { order: ref.input('orderId') } })],
 *   output: { tracking: ref.step('reserve').output() },
 * });
 * await client.workflows.publish(order);
 */
export function defineWorkflow<Input = unknown, Output = unknown>(
  options: WorkflowOptions,
): WorkflowHandle<Input, Output> {
  const { name, description, timeout, input, steps, output } = options;
  const definition = {
    schema_version: 1 as const,
    name,
    ...(description === undefined ? {} : { description }),
    ...(timeout === undefined ? {} : { timeout }),
    ...(input === undefined ? {} : { input }),
    steps,
    ...(output === undefined ? {} : { output }),
  };
  return { name, definition, [HANDLE]: true };
}

/**
 * Whether `value` is a handle made by `defineWorkflow` (by any copy of the SDK).
 *
 * @example
 * const definition = isWorkflowHandle(x) ? x.definition : x;
 */
export function isWorkflowHandle(value: unknown): value is WorkflowHandle {
  return typeof value === 'object' && value !== null && HANDLE in value && value[HANDLE] === true;
}
