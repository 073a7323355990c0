import type { JsonValue } from '@weave/json';
import { isArray, isNumber, isObject, jsonKind, serializedSize } from './json-value.js';
import { pathIndex, pathKey } from './json-path.js';
import type { Problems } from './problems.js';
import { report } from './problems.js';
import { parseReference } from './reference.js';
import type { ValueType } from './schema.js';
import { ANY_TYPE, typeOf } from './schema.js';
import type { Segment } from './schema-lookup.js';
import { lookupType } from './schema-lookup.js';

/**
 * Construction (docs/definitions.md "Values"): any JSON value in which a string starting with
 * `$` is a reference and `$$` escapes a literal `$`. Numbers are kept as their source text;
 * object keys are literal. Subtrees without references are folded into one literal.
 */
export interface Reference {
  readonly text: string;
  /** Index of the step node whose output is read, or -1 for the instance input. */
  readonly node: number;
  readonly segments: readonly Segment[];
}

export type Template =
  | { readonly t: 'value'; readonly value: JsonValue; readonly size: number }
  | { readonly t: 'ref'; readonly ref: Reference }
  | { readonly t: 'object'; readonly members: readonly (readonly [string, Template])[] }
  | { readonly t: 'array'; readonly items: readonly Template[] };

export interface StepBinding {
  readonly node: number;
  readonly type: ValueType;
}

/** What a construction may read at its place in the definition (docs "References"). */
export interface Scope {
  readonly inputType: ValueType;
  /** Steps that must have SUCCEEDED on every path to this place. */
  readonly visible: ReadonlyMap<string, StepBinding>;
  /** Every step id of the definition, to tell "unreachable" from "unknown". */
  readonly allIds: ReadonlySet<string>;
}

export interface Compiled {
  readonly template: Template;
  readonly type: ValueType;
  /** The value may be absent at run time (an optional input field, an array index…). */
  readonly maybeMissing: boolean;
}

export function compileTemplate(
  value: JsonValue,
  path: string,
  scope: Scope,
  problems: Problems,
): Compiled {
  if (typeof value === 'string' && value.startsWith('$') && !value.startsWith('$$')) {
    return compileReferenceTemplate(value, path, scope, problems);
  }
  if (isObject(value)) {
    const members = [...value].map(
      ([key, member]) =>
        [key, compileTemplate(member, pathKey(path, key), scope, problems).template] as const,
    );
    return fold({ t: 'object', members }, typeOf(['object']));
  }
  if (isArray(value)) {
    const items = value.map(
      (item, i) => compileTemplate(item, pathIndex(path, i), scope, problems).template,
    );
    return fold({ t: 'array', items }, typeOf(['array']));
  }
  const literal = typeof value === 'string' ? value.slice(1) : value;
  return literalOf(typeof value === 'string' && value.startsWith('$$') ? literal : value);
}

function literalOf(source: JsonValue): Compiled {
  // Numbers are copied too, so the Program shares no object with the caller's definition (E3.1).
  const value = isNumber(source) ? { kind: 'number' as const, text: source.text } : source;
  const kind = jsonKind(value);
  const type = typeOf([kind]);
  return {
    template: { t: 'value', value, size: serializedSize(value) },
    type,
    maybeMissing: false,
  };
}

/** An object or array whose members are all literal becomes one literal (built once, here). */
function fold(template: Template, type: ValueType): Compiled {
  if (template.t === 'object' && template.members.every(([, m]) => m.t === 'value')) {
    const value = new Map(template.members.map(([k, m]) => [k, (m as { value: JsonValue }).value]));
    return literalOf(value);
  }
  if (template.t === 'array' && template.items.every((m) => m.t === 'value')) {
    return literalOf(template.items.map((m) => (m as { value: JsonValue }).value));
  }
  return { template, type, maybeMissing: false };
}

export function compileReferenceTemplate(
  text: string,
  path: string,
  scope: Scope,
  problems: Problems,
): Compiled {
  const unknown: Compiled = {
    template: { t: 'value', value: null, size: 4 },
    type: ANY_TYPE,
    maybeMissing: true,
  };
  const parsed = parseReference(text);
  if (!parsed.ok) {
    report(
      problems,
      path,
      'invalid_reference',
      `${path}: ${parsed.message}; write "$$" for a literal "$"`,
    );
    return unknown;
  }
  const { stepId, segments } = parsed.value;
  let base: StepBinding = { node: -1, type: scope.inputType };
  if (stepId !== undefined) {
    const binding = scope.visible.get(stepId);
    if (binding === undefined) {
      reportUnreadable(stepId, path, scope, problems);
      return unknown;
    }
    base = binding;
  }
  const found = lookupType(base.type, segments);
  if (!found.ok) {
    report(problems, path, found.code, `${path}: ${found.message} ("${text}")`);
    return unknown;
  }
  const ref: Reference = { text, node: base.node, segments };
  return { template: { t: 'ref', ref }, type: found.type, maybeMissing: found.maybeMissing };
}

function reportUnreadable(stepId: string, path: string, scope: Scope, problems: Problems): void {
  if (scope.allIds.has(stepId)) {
    const message =
      `${path} reads step "${stepId}", which has not necessarily SUCCEEDED here: only earlier ` +
      'steps of the same sequence (or of an enclosing one) can be read; read a PARALLEL ' +
      "branch through the PARALLEL step's output and a BRANCH case through the BRANCH output";
    report(problems, path, 'unreachable_reference', message);
  } else {
    report(problems, path, 'unknown_step', `${path} reads step "${stepId}", which does not exist`);
  }
}
