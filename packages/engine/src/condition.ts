import type { JsonValue } from '@weave/json';
import { isArray } from './json-value.js';
import { pathIndex, pathKey } from './json-path.js';
import type { Problems } from './problems.js';
import { describeKind, report } from './problems.js';
import type { ValueType } from './schema.js';
import type { Compiled, Reference, Scope, Template } from './template.js';
import { compileReferenceTemplate, compileTemplate } from './template.js';

/**
 * Conditions (docs/definitions.md "Conditions"): one operator per object. Comparisons take two
 * values; `and`/`or` a non-empty list; `not` one condition; `exists`/`is_null` one reference;
 * `in` a value and a list. No scripts, clock or randomness: a condition reads only saved data.
 */
export const COMPARISONS = ['eq', 'ne', 'lt', 'le', 'gt', 'ge'] as const;
export type Comparison = (typeof COMPARISONS)[number];
const OPERATORS = [...COMPARISONS, 'and', 'or', 'not', 'exists', 'is_null', 'in'];

export type Condition =
  | { readonly op: Comparison; readonly left: Template; readonly right: Template }
  | { readonly op: 'and' | 'or'; readonly items: readonly Condition[] }
  | { readonly op: 'not'; readonly item: Condition }
  | { readonly op: 'exists' | 'is_null'; readonly ref: Reference }
  | { readonly op: 'in'; readonly needle: Template; readonly list: Template };

const ALWAYS_TRUE: Condition = { op: 'and', items: [] };

export function compileCondition(
  value: JsonValue,
  path: string,
  scope: Scope,
  problems: Problems,
): Condition {
  const rule = `${path} must be an object with one operator: ${OPERATORS.join(', ')}`;
  if (!(value instanceof Map) || value.size !== 1) {
    report(problems, path, 'invalid_condition', `${rule} (got ${describeKind(value)})`);
    return ALWAYS_TRUE;
  }
  const [op, operand] = [...value][0] as [string, JsonValue];
  const at = pathKey(path, op);
  if ((COMPARISONS as readonly string[]).includes(op)) {
    return compileComparison(op as Comparison, operand, at, { scope, problems });
  }
  switch (op) {
    case 'and':
    case 'or':
      return { op, items: compileList(operand, at, scope, problems) };
    case 'not':
      return { op, item: compileCondition(operand, at, scope, problems) };
    case 'exists':
    case 'is_null':
      return compileTest(op, operand, at, { scope, problems });
    case 'in':
      return compileIn(operand, at, { scope, problems });
    default:
      report(problems, path, 'invalid_condition', `${rule} (got "${op}")`);
      return ALWAYS_TRUE;
  }
}

interface Context {
  readonly scope: Scope;
  readonly problems: Problems;
}

function compileList(
  operand: JsonValue,
  path: string,
  scope: Scope,
  problems: Problems,
): Condition[] {
  if (!isArray(operand) || operand.length === 0) {
    report(problems, path, 'invalid_condition', `${path} must be a non-empty list of conditions`);
    return [];
  }
  return operand.map((item, i) => compileCondition(item, pathIndex(path, i), scope, problems));
}

function compilePair(
  operand: JsonValue,
  path: string,
  context: Context,
): [Compiled, Compiled] | undefined {
  if (!isArray(operand) || operand.length !== 2) {
    report(context.problems, path, 'invalid_condition', `${path} must be a list of two values`);
    return undefined;
  }
  const [left = null, right = null] = operand;
  return [
    compileTemplate(left, pathIndex(path, 0), context.scope, context.problems),
    compileTemplate(right, pathIndex(path, 1), context.scope, context.problems),
  ];
}

function compileComparison(
  op: Comparison,
  operand: JsonValue,
  path: string,
  context: Context,
): Condition {
  const pair = compilePair(operand, path, context);
  if (pair === undefined) {
    return ALWAYS_TRUE;
  }
  const [left, right] = pair;
  const ordering = op !== 'eq' && op !== 'ne';
  const common = intersect(categories(left.type, ordering), categories(right.type, ordering));
  if (common.size === 0) {
    const what = ordering ? 'two numbers or two strings' : 'values that can have the same type';
    const message = `${path} compares ${describe(left.type)} with ${describe(right.type)}; "${op}" needs ${what}`;
    report(context.problems, path, 'condition_type_mismatch', message);
  }
  return { op, left: left.template, right: right.template };
}

function compileTest(
  op: 'exists' | 'is_null',
  operand: JsonValue,
  path: string,
  context: Context,
): Condition {
  if (typeof operand !== 'string' || !operand.startsWith('$') || operand.startsWith('$$')) {
    report(
      context.problems,
      path,
      'invalid_condition',
      `${path} must be a reference such as "$.input.note"`,
    );
    return ALWAYS_TRUE;
  }
  const compiled = compileReferenceTemplate(operand, path, context.scope, context.problems);
  if (compiled.template.t !== 'ref') {
    return ALWAYS_TRUE;
  }
  return { op, ref: compiled.template.ref };
}

function compileIn(operand: JsonValue, path: string, context: Context): Condition {
  const pair = compilePair(operand, path, context);
  if (pair === undefined) {
    return ALWAYS_TRUE;
  }
  const [needle, list] = pair;
  if (list.type.types !== undefined && !list.type.types.has('array')) {
    const message = `${path}[1] must be a list or a reference to one (got ${describe(list.type)})`;
    report(context.problems, pathIndex(path, 1), 'condition_type_mismatch', message);
  }
  return { op: 'in', needle: needle.template, list: list.template };
}

/** The comparable categories a value of `type` may fall in. */
function categories(type: ValueType, ordering: boolean): Set<string> {
  const all = ordering
    ? ['number', 'string']
    : ['number', 'string', 'boolean', 'null', 'object', 'array'];
  if (type.types === undefined) {
    return new Set(all);
  }
  const found = new Set<string>();
  for (const name of type.types) {
    const category = name === 'integer' ? 'number' : name;
    if (all.includes(category)) {
      found.add(category);
    }
  }
  return found;
}

function intersect(a: Set<string>, b: Set<string>): Set<string> {
  return new Set([...a].filter((x) => b.has(x)));
}

function describe(type: ValueType): string {
  return type.types === undefined ? 'any value' : [...type.types].join(' or ');
}
