import type { JsonObject, JsonValue } from '@weave/json';
import { compareNumberText } from '@weave/json';
import { LIMITS } from './limits.js';
import { pathIndex, pathKey } from './json-path.js';
import type { RetryPolicy, TaskNode } from './model.js';
import type { Problems } from './problems.js';
import {
  checkMembers,
  describeKind,
  expectObject,
  readArray,
  readBoolean,
  report,
} from './problems.js';
import { readDuration, readInteger } from './read-fields.js';
import type { Scope } from './template.js';
import { compileStringExpression, compileValue, readName } from './compile-fields.js';

/** TASK: a unit of business work that Pulse runs on a queue (docs/definitions.md "TASK"). */
export type TaskSpec = Omit<TaskNode, 'index' | 'id' | 'path' | 'parent' | 'end'>;

export const TASK_FIELDS = [
  'queue',
  'input',
  'timeout',
  'retry',
  'idempotent',
  'trace_key',
  'resource_key',
];

export function compileTask(
  object: JsonObject,
  path: string,
  scope: Scope,
  problems: Problems,
): TaskSpec {
  const keyOptions = { scope, problems, maxBytes: LIMITS.maxTaskKeyBytes };
  const traceKey = object.get('trace_key');
  const resourceKey = object.get('resource_key');
  return {
    kind: 'TASK',
    queue: readName(object, 'queue', path, problems),
    input: compileValue(object, 'input', path, { scope, problems, fallback: new Map() }),
    timeoutMs: readDuration(object, 'timeout', path, problems),
    retry: compileRetry(object.get('retry'), pathKey(path, 'retry'), problems),
    idempotent: readBoolean(object, 'idempotent', path, problems) ?? false,
    traceKey:
      traceKey === undefined
        ? undefined
        : compileStringExpression(traceKey, pathKey(path, 'trace_key'), keyOptions),
    resourceKey:
      resourceKey === undefined
        ? undefined
        : compileStringExpression(resourceKey, pathKey(path, 'resource_key'), keyOptions),
  };
}

const RETRY_FIELDS = [
  'max_attempts',
  'initial_interval',
  'backoff_coefficient',
  'max_interval',
  'non_retryable_codes',
];

/** Defaults: one attempt (no retry), 1 s first interval, doubling, capped at 100 × the first. */
export function compileRetry(
  value: JsonValue | undefined,
  path: string,
  problems: Problems,
): RetryPolicy {
  const object =
    value === undefined ? new Map<string, JsonValue>() : expectObject(value, path, problems);
  if (object === undefined) {
    return defaultRetry();
  }
  checkMembers(object, path, problems, { allowed: RETRY_FIELDS, required: [] });
  const initialIntervalMs = readDuration(object, 'initial_interval', path, problems) ?? 1000;
  const maxIntervalMs =
    readDuration(object, 'max_interval', path, problems) ??
    Math.min(100 * initialIntervalMs, LIMITS.maxDurationMs);
  if (maxIntervalMs < initialIntervalMs) {
    const at = pathKey(path, 'max_interval');
    report(problems, at, 'invalid_value', `${at} must not be shorter than initial_interval`);
  }
  return {
    maxAttempts:
      readInteger(object, 'max_attempts', path, { problems, min: 1, max: LIMITS.maxAttempts }) ?? 1,
    initialIntervalMs,
    backoffCoefficient: readCoefficient(object, path, problems),
    maxIntervalMs,
    nonRetryableCodes: readCodes(object, path, problems),
  };
}

function defaultRetry(): RetryPolicy {
  return {
    maxAttempts: 1,
    initialIntervalMs: 1000,
    backoffCoefficient: '2',
    maxIntervalMs: 100_000,
    nonRetryableCodes: [],
  };
}

function readCoefficient(object: JsonObject, path: string, problems: Problems): string {
  const value = object.get('backoff_coefficient');
  if (value === undefined) {
    return '2';
  }
  const at = pathKey(path, 'backoff_coefficient');
  const rule = `${at} must be a number from 1 to 10`;
  if (typeof value !== 'object' || value === null || value instanceof Map || Array.isArray(value)) {
    report(problems, at, 'invalid_type', `${rule} (got ${describeKind(value)})`);
    return '2';
  }
  const text = (value as { readonly text: string }).text;
  if (compareNumberText(text, '1') < 0 || compareNumberText(text, '10') > 0) {
    report(problems, at, 'invalid_value', `${rule} (got ${text})`);
  }
  return text;
}

const CODE_PATTERN = /^[A-Za-z0-9_.:-]{1,100}$/;

function readCodes(object: JsonObject, path: string, problems: Problems): readonly string[] {
  const list = readArray(object, 'non_retryable_codes', path, problems) ?? [];
  const at = pathKey(path, 'non_retryable_codes');
  if (list.length > 50) {
    report(problems, at, 'too_large', `${at} may list at most 50 codes (got ${list.length})`);
  }
  const codes: string[] = [];
  list.forEach((code, i) => {
    if (typeof code === 'string' && CODE_PATTERN.test(code)) {
      codes.push(code);
    } else {
      const message = `${pathIndex(at, i)} must be an error code matching ^[A-Za-z0-9_.:-]{1,100}$`;
      report(problems, pathIndex(at, i), 'invalid_value', message);
    }
  });
  return codes;
}
