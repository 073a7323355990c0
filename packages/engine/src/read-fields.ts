import type { JsonObject } from '@weave/json';
import { parseDuration } from './duration.js';
import { pathKey } from './json-path.js';
import { smallInteger } from './number-text.js';
import type { Problems } from './problems.js';
import { describeKind, report } from './problems.js';

/** Typed readers for number and duration members of a definition, reporting into `problems`. */

export function readInteger(
  object: JsonObject,
  key: string,
  path: string,
  options: { readonly problems: Problems; readonly min: number; readonly max: number },
): number | undefined {
  const value = object.get(key);
  if (value === undefined) {
    return undefined;
  }
  const at = pathKey(path, key);
  const rule = `${at} must be an integer from ${options.min} to ${options.max}`;
  if (typeof value !== 'object' || value === null || value instanceof Map || Array.isArray(value)) {
    report(options.problems, at, 'invalid_type', `${rule} (got ${describeKind(value)})`);
    return undefined;
  }
  const text = (value as { readonly text: string }).text;
  const result = smallInteger(text, options.min, options.max);
  if (result === undefined) {
    report(options.problems, at, 'invalid_value', `${rule} (got ${text})`);
  }
  return result;
}

/** An ISO 8601 duration member in milliseconds. */
export function readDuration(
  object: JsonObject,
  key: string,
  path: string,
  problems: Problems,
): number | undefined {
  const value = object.get(key);
  if (value === undefined) {
    return undefined;
  }
  const at = pathKey(path, key);
  if (typeof value !== 'string') {
    const message = `${at} must be an ISO 8601 duration string (got ${describeKind(value)})`;
    report(problems, at, 'invalid_type', message);
    return undefined;
  }
  const result = parseDuration(value);
  if (!result.ok) {
    report(problems, at, 'invalid_duration', `${at} ${result.message}`);
    return undefined;
  }
  return result.ms;
}
