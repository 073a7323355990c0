/**
 * Request bodies of the task routes (submit, review) → service inputs. Every failure is `invalid_argument` with
 * the JSON path (STYLE.md §5).
 */
import { NAME_PATTERN, tasks } from '@weave/sdk/protocol';
import type { JsonObject, JsonValue } from '@weave/json';
import { isJsonNumber, stringify } from '@weave/json';
import type { RetryPolicy } from '../pulse/retry-policy.js';
import type { ReviewAction } from '../pulse/review-task.js';
import { DEFAULT_RETRY_POLICY } from '../pulse/retry-policy.js';
import type { SubmitInput } from '../pulse/submit-task.js';
import { invalidArgument } from '../errors.js';
import { readDuration } from './durations.js';
import {
  expectObject,
  readBoolean,
  readInstant,
  readInteger,
  readString,
  readStringArray,
  rejectUnknown,
  requireString,
} from './fields.js';

const SUBMIT_FIELDS = [
  'input',
  'idempotent',
  'priority',
  'timeout',
  'deadline_at',
  'attempt_timeout',
  'retry',
  'trace_key',
  'resource_key',
  'result_stream',
];
const ERROR_CODE_PATTERN = tasks.ERROR_CODE_PATTERN;
/** 10 years: long enough for any task, short enough that arithmetic never overflows. */
const MAX_DURATION_US = 10n * 365n * 86_400_000_000n;

/** The submit members of a task (`POST /queues/{q}/tasks`, a schedule's `task`). */
export type SubmitFields = Omit<SubmitInput, 'namespaceId' | 'queueName'>;

export function parseSubmit(body: JsonValue | undefined): SubmitFields {
  const obj = expectObject(body);
  rejectUnknownSubmitFields(obj);
  const input = obj.get('input');
  if (input === undefined) {
    throw invalidArgument('$.input', 'is required');
  }
  const deadlineAt = readInstant(obj, 'deadline_at') ?? undefined;
  return {
    input: stringify(input),
    idempotent: readBoolean(obj, 'idempotent') ?? false,
    priority: readInteger(obj, 'priority', { min: -1000, max: 1000 }) ?? 0,
    timeoutUs: readDuration(obj, 'timeout', { max: MAX_DURATION_US }),
    deadlineAt,
    attemptTimeoutUs: readDuration(obj, 'attempt_timeout', { max: MAX_DURATION_US }),
    retry: parseRetry(obj.get('retry')),
    traceKey: readString(obj, 'trace_key', { pattern: tasks.KEY_PATTERN }),
    resourceKey: readString(obj, 'resource_key', { pattern: tasks.KEY_PATTERN }),
    resultStream: readString(obj, 'result_stream', { pattern: NAME_PATTERN }),
  };
}

/**
 * A body without `input` whose fields are not submit options is most likely the input itself,
 * sent bare (`{"to": "a@b.c"}`): say where it goes, not only that the field is unknown.
 */
function rejectUnknownSubmitFields(obj: JsonObject): void {
  if (obj.get('input') !== undefined) {
    rejectUnknown(obj, SUBMIT_FIELDS);
    return;
  }
  const stray = [...obj.keys()].find((key) => !SUBMIT_FIELDS.includes(key));
  if (stray !== undefined) {
    throw invalidArgument(
      `$.${stray}`,
      'is not a known field; the task input goes under "input": {"input": {...}}',
    );
  }
}

function parseRetry(value: JsonValue | undefined): RetryPolicy {
  if (value === undefined) {
    return DEFAULT_RETRY_POLICY;
  }
  const path = '$.retry';
  const obj = expectObject(value, path);
  const d = DEFAULT_RETRY_POLICY;
  rejectUnknown(
    obj,
    [
      'max_attempts',
      'initial_interval',
      'backoff_coefficient',
      'max_interval',
      'non_retryable_codes',
    ],
    path,
  );
  const opts = { path, max: MAX_DURATION_US };
  const initial = readDuration(obj, 'initial_interval', opts) ?? d.initialIntervalUs;
  const max =
    readDuration(obj, 'max_interval', opts) ??
    (initial > d.maxIntervalUs ? initial : d.maxIntervalUs);
  if (max < initial) {
    throw invalidArgument(`${path}.max_interval`, 'must not be shorter than initial_interval');
  }
  return {
    maxAttempts: readInteger(obj, 'max_attempts', { path, min: 1, max: 100 }) ?? d.maxAttempts,
    initialIntervalUs: initial,
    backoffCoefficient: readCoefficient(obj, path) ?? d.backoffCoefficient,
    maxIntervalUs: max,
    nonRetryableCodes:
      readStringArray(obj, 'non_retryable_codes', {
        path,
        pattern: ERROR_CODE_PATTERN,
        maxItems: 100,
      }) ?? d.nonRetryableCodes,
  };
}

function readCoefficient(obj: JsonObject, path: string): string | undefined {
  const value = obj.get('backoff_coefficient');
  if (value === undefined) {
    return undefined;
  }
  const n = isJsonNumber(value) ? Number(value.text) : NaN;
  if (!(n >= 1 && n <= 100) || !isJsonNumber(value) || value.text.length > 32) {
    throw invalidArgument(`${path}.backoff_coefficient`, 'must be a number from 1 to 100');
  }
  return value.text;
}

export function parseReview(body: JsonValue | undefined): { review: ReviewAction; reason: string } {
  const obj = expectObject(body);
  rejectUnknown(obj, ['action', 'output', 'error', 'reason']);
  const reason = requireString(obj, 'reason', { maxLength: tasks.MAX_REASON });
  const action = requireString(obj, 'action');
  if (action === 'succeed') {
    return { review: { action, output: obj.get('output') ?? null }, reason };
  }
  if (action === 'fail') {
    const error = expectObject(obj.get('error'), '$.error');
    rejectUnknown(error, ['code', 'message'], '$.error');
    const code = requireString(error, 'code', { path: '$.error', pattern: ERROR_CODE_PATTERN });
    const message =
      readString(error, 'message', { path: '$.error', maxLength: tasks.MAX_ERROR_MESSAGE }) ?? '';
    return { review: { action, error: { code, message } }, reason };
  }
  if (action === 'retry') {
    return { review: { action }, reason };
  }
  throw invalidArgument('$.action', 'must be succeed, fail or retry');
}
