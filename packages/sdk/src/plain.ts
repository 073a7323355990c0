/**
 * Exact JSON → plain JS for API responses: objects become plain objects, and numbers become JS
 * numbers only when that is exact (safe integers); any other number stays a `JsonNumber`
 * (`{ kind: 'number', text }`) so no value is silently rounded.
 */
import { isJsonNumber, isJsonObject } from '@weave/json';
import type { JsonNumber, JsonValue } from '@weave/json';

export type Plain =
  null | boolean | string | number | JsonNumber | Plain[] | { [key: string]: Plain };

export function toPlain(value: JsonValue): Plain {
  if (isJsonNumber(value)) {
    const n = Number(value.text);
    return /^-?(0|[1-9][0-9]*)$/.test(value.text) && Number.isSafeInteger(n) ? n : value;
  }
  if (isJsonObject(value)) {
    const out: { [key: string]: Plain } = {};
    for (const [k, v] of value) {
      if (k === '__proto__') {
        // An own member like any other: assigned, it would set the object's prototype.
        Object.defineProperty(out, k, {
          value: toPlain(v),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      } else {
        out[k] = toPlain(v);
      }
    }
    return out;
  }
  if (Array.isArray(value)) {
    return (value as readonly JsonValue[]).map(toPlain);
  }
  return value as null | boolean | string;
}
