import type { JsonValue } from '@weave/json';
import { compareNumberText, equalJson } from '@weave/json';
import { jsonKind } from './json-value.js';
import type { Condition } from './condition.js';
import type { ReadContext } from './template-eval.js';
import { evaluateTemplate, readReference } from './template-eval.js';

/**
 * Evaluates a condition against saved data. Numbers compare as exact rationals through
 * `compareNumberText` (never float64: E3.13); strings by Unicode code point. `and`/`or` stop at
 * the first deciding item, so `exists` can guard a comparison. A missing operand or an ordering
 * comparison between other kinds is an error: the BRANCH fails rather than guessing.
 */
export type ConditionResult =
  | { readonly ok: true; readonly value: boolean }
  | {
      readonly ok: false;
      readonly code: 'reference_missing' | 'condition_type_error';
      readonly message: string;
    };

export function evaluateCondition(condition: Condition, context: ReadContext): ConditionResult {
  switch (condition.op) {
    case 'and':
    case 'or': {
      const stopAt = condition.op === 'or';
      for (const item of condition.items) {
        const result = evaluateCondition(item, context);
        if (!result.ok || result.value === stopAt) {
          return result;
        }
      }
      return { ok: true, value: !stopAt };
    }
    case 'not': {
      const result = evaluateCondition(condition.item, context);
      return result.ok ? { ok: true, value: !result.value } : result;
    }
    case 'exists':
      return { ok: true, value: readReference(condition.ref, context) !== undefined };
    case 'is_null':
      return { ok: true, value: readReference(condition.ref, context) === null };
    case 'in':
      return evaluateIn(condition, context);
    default:
      return evaluateComparison(condition, context);
  }
}

function evaluateIn(condition: Condition & { op: 'in' }, context: ReadContext): ConditionResult {
  const needle = evaluateTemplate(condition.needle, context);
  const list = evaluateTemplate(condition.list, context);
  if (!needle.ok) {
    return needle;
  }
  if (!list.ok) {
    return list;
  }
  if (!Array.isArray(list.value)) {
    return {
      ok: false,
      code: 'condition_type_error',
      message: `"in" needs a list (got ${jsonKind(list.value)})`,
    };
  }
  const items = list.value as readonly JsonValue[];
  return { ok: true, value: items.some((item) => equalJson(item, needle.value)) };
}

function evaluateComparison(
  condition: Condition & { op: 'eq' | 'ne' | 'lt' | 'le' | 'gt' | 'ge' },
  context: ReadContext,
): ConditionResult {
  const left = evaluateTemplate(condition.left, context);
  const right = evaluateTemplate(condition.right, context);
  if (!left.ok) {
    return left;
  }
  if (!right.ok) {
    return right;
  }
  if (condition.op === 'eq' || condition.op === 'ne') {
    return { ok: true, value: equalJson(left.value, right.value) === (condition.op === 'eq') };
  }
  const order = compareOrdered(left.value, right.value);
  if (order === undefined) {
    const kinds = `${jsonKind(left.value)} and ${jsonKind(right.value)}`;
    const message = `"${condition.op}" compares two numbers or two strings (got ${kinds})`;
    return { ok: false, code: 'condition_type_error', message };
  }
  const value =
    condition.op === 'lt'
      ? order < 0
      : condition.op === 'le'
        ? order <= 0
        : condition.op === 'gt'
          ? order > 0
          : order >= 0;
  return { ok: true, value };
}

function compareOrdered(a: JsonValue, b: JsonValue): number | undefined {
  if (typeof a === 'string' && typeof b === 'string') {
    return compareCodePoints(a, b);
  }
  if (jsonKind(a) === 'number' && jsonKind(b) === 'number') {
    return compareNumberText(
      (a as { readonly text: string }).text,
      (b as { readonly text: string }).text,
    );
  }
  return undefined;
}

/** Code point order (UTF-8 byte order), not UTF-16 code unit order. */
export function compareCodePoints(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) {
      const xSurrogate = x >= 0xd800 && x <= 0xdfff;
      const ySurrogate = y >= 0xd800 && y <= 0xdfff;
      if (xSurrogate !== ySurrogate) {
        return xSurrogate ? 1 : -1;
      }
      return x < y ? -1 : 1;
    }
  }
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}
