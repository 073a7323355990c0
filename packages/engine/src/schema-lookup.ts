import type { ValueType } from './schema.js';
import { ANY_TYPE } from './schema.js';

/**
 * What the compiler knows statically about the value at a reference path: its type, and whether
 * it may be missing at run time. A path that can never exist is an error the author must fix.
 */
export type Segment = string | number;

export type LookupResult =
  | { readonly ok: true; readonly type: ValueType; readonly maybeMissing: boolean }
  | {
      readonly ok: false;
      readonly code: 'unknown_property' | 'invalid_reference';
      readonly message: string;
    };

export function lookupType(root: ValueType, segments: readonly Segment[]): LookupResult {
  let type = root;
  let maybeMissing = false;
  for (const segment of segments) {
    const expected = typeof segment === 'number' ? 'array' : 'object';
    if (type.types !== undefined && !type.types.has(expected)) {
      const message = `the value before ${describeSegment(segment)} is never an ${expected}`;
      return { ok: false, code: 'invalid_reference', message };
    }
    if (type.types === undefined || type.types.size > 1) {
      maybeMissing = true;
    }
    if (typeof segment === 'number') {
      type = type.items ?? ANY_TYPE;
      maybeMissing = true;
      continue;
    }
    const member = type.properties.get(segment);
    if (member !== undefined) {
      maybeMissing ||= !type.required.has(segment);
      type = member;
    } else if (type.additional) {
      type = ANY_TYPE;
      maybeMissing = true;
    } else {
      const message = `"${segment}" is not a declared property, so the reference never resolves`;
      return { ok: false, code: 'unknown_property', message };
    }
  }
  return { ok: true, type, maybeMissing };
}

function describeSegment(segment: Segment): string {
  return typeof segment === 'number' ? `[${segment}]` : `"${segment}"`;
}
