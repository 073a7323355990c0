import type { JsonValue } from '@weave/json';
import { followPath } from './reference.js';
import type { Reference, Template } from './template.js';
import { isObject } from './json-value.js';

/**
 * Evaluates constructions against a round's data. References share the saved values (nothing is
 * re-encoded, so number text stays exact); literals from the Program are copied, so no decision
 * holds an object the Program also holds (E3.1).
 */
export interface ReadContext {
  readonly input: JsonValue;
  /** The saved output of a SUCCEEDED step; throws `EngineError` for any other status (E3.12). */
  outputOf(node: number): JsonValue;
}

export type Evaluation =
  | { readonly ok: true; readonly value: JsonValue }
  | { readonly ok: false; readonly code: 'reference_missing'; readonly message: string };

export function readReference(ref: Reference, context: ReadContext): JsonValue | undefined {
  const base = ref.node < 0 ? context.input : context.outputOf(ref.node);
  return followPath(base, ref.segments);
}

export function evaluateTemplate(template: Template, context: ReadContext): Evaluation {
  switch (template.t) {
    case 'value':
      return { ok: true, value: copyJson(template.value) };
    case 'ref': {
      const value = readReference(template.ref, context);
      return value === undefined ? missing(template.ref) : { ok: true, value };
    }
    case 'array': {
      const items: JsonValue[] = [];
      for (const item of template.items) {
        const result = evaluateTemplate(item, context);
        if (!result.ok) {
          return result;
        }
        items.push(result.value);
      }
      return { ok: true, value: items };
    }
    case 'object':
      return evaluateObject(template.members, context);
  }
}

/** A member whose whole value is a reference to a missing path is left out: missing stays missing. */
function evaluateObject(
  members: readonly (readonly [string, Template])[],
  context: ReadContext,
): Evaluation {
  const object = new Map<string, JsonValue>();
  for (const [key, member] of members) {
    if (member.t === 'ref') {
      const value = readReference(member.ref, context);
      if (value !== undefined) {
        object.set(key, value);
      }
      continue;
    }
    const result = evaluateTemplate(member, context);
    if (!result.ok) {
      return result;
    }
    object.set(key, result.value);
  }
  return { ok: true, value: object };
}

function missing(ref: Reference): Evaluation {
  return {
    ok: false,
    code: 'reference_missing',
    message: `${ref.text} does not exist in this instance`,
  };
}

export function copyJson(value: JsonValue): JsonValue {
  if (value === null || typeof value !== 'object') {
    return value;
  }
  if (Array.isArray(value)) {
    return (value as readonly JsonValue[]).map(copyJson);
  }
  if (isObject(value)) {
    return new Map([...value].map(([key, member]) => [key, copyJson(member)]));
  }
  return { kind: 'number', text: (value as { readonly text: string }).text };
}
