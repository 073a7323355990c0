import type { JsonValue } from '@weave/json';
import { isObject } from './json-value.js';

/**
 * A first, forgiving walk over the step tree: every id and the number of step objects at all
 * nesting levels. The compiler needs the full id set before scoping, to tell a reference to a
 * step that exists but may not have succeeded ("unreachable") from a misspelt one ("unknown").
 */
export interface StepCensus {
  readonly ids: ReadonlySet<string>;
  readonly count: number;
}

export function collectIds(steps: JsonValue | undefined): StepCensus {
  const ids = new Set<string>();
  let count = 0;
  const visitList = (list: JsonValue | undefined): void => {
    if (!Array.isArray(list)) {
      return;
    }
    for (const step of list as readonly JsonValue[]) {
      if (!isObject(step)) {
        continue;
      }
      count++;
      const id = step.get('id');
      if (typeof id === 'string') {
        ids.add(id);
      }
      visitChildren(step, visitList);
    }
  };
  visitList(steps);
  return { ids, count };
}

function visitChildren(
  step: ReadonlyMap<string, JsonValue>,
  visitList: (list: JsonValue | undefined) => void,
): void {
  const cases = step.get('cases');
  if (Array.isArray(cases)) {
    for (const item of cases as readonly JsonValue[]) {
      if (isObject(item)) {
        visitList(item.get('steps'));
      }
    }
  }
  visitList(step.get('default'));
  const branches = step.get('branches');
  if (isObject(branches)) {
    for (const list of branches.values()) {
      visitList(list);
    }
  }
}
