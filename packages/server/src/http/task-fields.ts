/**
 * Request bodies of the Pulse routes → service inputs. Every failure is `invalid_argument` with
 * the JSON path (STYLE.md §5).
 */
import { NAME_PATTERN } from '@weave/sdk/protocol';
import type { JsonObject, JsonValue } from '@weave/json';
import { isJsonNumber, stringify } from '@weave/json';
import type { Completion, TaskError } from '../pulse/complete-attempt.js';
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
const KEY_PATTERN = /^[\x20-\x7e]{1,200}$/;
export const ERROR_CODE_PATTERN = /^[A-Za-z0-9_.:-]{1,64}$/;
/** 10 years: long enough for any task, short enough that arithmetic never overflows. */
const MAX_DURATION_US = 10n * 365n * 86_400_000_000n;

export function parseSubmit(
  body: JsonValue | undefined,
  target: { namespaceId: string; queueName: string },
): SubmitInput {
  const obj = expectObject(body);
  rejectUnknownSubmitFields(obj);
  const input = obj.get('input');
  if (input === undefined) {
    throw invalidArgument('$.input', 'is required');
  }
  const deadlineAt = readInstant(obj, 'deadline_at') ?? undefined;
  return {
    ...target,
    input: stringify(input),
    idempotent: readBoolean(obj, 'idempotent') ?? false,
    priority: readInteger(obj, 'priority', { min: -1000, max: 1000 }) ?? 0,
    timeoutUs: readDuration(obj, 'timeout', { max: MAX_DURATION_US }),
    deadlineAt,
    attemptTimeoutUs: readDuration(obj, 'attempt_timeout', { max: MAX_DURATION_US }),
    retry: parseRetry(obj.get('retry')),
    traceKey: readString(obj, 'trace_key', { pattern: KEY_PATTERN }),
    resourceKey: readString(obj, 'resource_key', { pattern: KEY_PATTERN }),
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

export function parsePermit(
  body: JsonValue | undefined,
  allowed: readonly string[] = [],
): JsonObject {
  const obj = expectObject(body);
  rejectUnknown(obj, ['permit', ...allowed]);
  requireString(obj, 'permit', { maxLength: 200 });
  return obj;
}

export function parseCompletion(obj: JsonObject): Completion {
  const outcome = requireString(obj, 'outcome');
  const error = obj.get('error');
  if (outcome === 'succeeded') {
    if (error !== undefined) {
      throw invalidArgument('$.error', 'is not allowed with outcome succeeded');
    }
    return { outcome, result: obj.get('result') ?? null };
  }
  if (obj.has('result')) {
    throw invalidArgument('$.result', `is not allowed with outcome ${outcome}`);
  }
  if (outcome === 'failed') {
    return { outcome, error: parseTaskError(error, true) };
  }
  if (outcome === 'needs_review') {
    return { outcome, error: error === undefined ? undefined : parseTaskError(error, false) };
  }
  throw invalidArgument('$.outcome', 'must be succeeded, failed or needs_review');
}

function parseTaskError(value: JsonValue | undefined, required: boolean): TaskError {
  if (value === undefined && required) {
    throw invalidArgument('$.error', 'is required with outcome failed');
  }
  const obj = expectObject(value, '$.error');
  rejectUnknown(obj, ['code', 'message', 'retryable'], '$.error');
  return {
    code: requireString(obj, 'code', { path: '$.error', pattern: ERROR_CODE_PATTERN }),
    message: readString(obj, 'message', { path: '$.error', maxLength: 4000 }) ?? '',
    retryable: readBoolean(obj, 'retryable', { path: '$.error' }) ?? true,
  };
}

export function parseReview(body: JsonValue | undefined): { review: ReviewAction; reason: string } {
  const obj = expectObject(body);
  rejectUnknown(obj, ['action', 'output', 'error', 'reason']);
  const reason = requireString(obj, 'reason', { maxLength: 1000 });
  const action = requireString(obj, 'action');
  if (action === 'succeed') {
    return { review: { action, output: obj.get('output') ?? null }, reason };
  }
  if (action === 'fail') {
    const error = expectObject(obj.get('error'), '$.error');
    rejectUnknown(error, ['code', 'message'], '$.error');
    const code = requireString(error, 'code', { path: '$.error', pattern: ERROR_CODE_PATTERN });
    const message = readString(error, 'message', { path: '$.error', maxLength: 4000 }) ?? '';
    return { review: { action, error: { code, message } }, reason };
  }
  if (action === 'retry') {
    return { review: { action }, reason };
  }
  throw invalidArgument('$.action', 'must be succeed, fail or retry');
}

export interface BatchItem {
  readonly index: number;
  readonly taskId: string;
  readonly attemptId: string;
  readonly permit: string;
  readonly completion: Completion;
}

export interface BatchBody {
  readonly items: BatchItem[];
  /** Items refused while parsing, by index. */
  readonly invalid: { readonly index: number; readonly error: unknown }[];
  readonly claim:
    { readonly workerId: string; readonly maxTasks: number; readonly start: boolean } | undefined;
}

/** A malformed item is refused on its own (it never blocks the others); a malformed envelope is not. */
export function parseBatch(body: JsonValue | undefined, maxItems: number): BatchBody {
  const obj = expectObject(body);
  rejectUnknown(obj, ['completions', 'claim']);
  const list = obj.get('completions') ?? [];
  if (!Array.isArray(list) || list.length > maxItems) {
    throw invalidArgument('$.completions', `must be an array of at most ${maxItems} items`);
  }
  const parsed: BatchBody = { items: [], invalid: [], claim: parseBatchClaim(obj.get('claim')) };
  (list as readonly JsonValue[]).forEach((value, index) => {
    try {
      const item = expectObject(value, `$.completions[${index}]`);
      const permitted = parsePermit(item, ['task_id', 'attempt_id', 'outcome', 'result', 'error']);
      parsed.items.push({
        index,
        taskId: requireString(item, 'task_id', { path: `$.completions[${index}]` }),
        attemptId: requireString(item, 'attempt_id', { path: `$.completions[${index}]` }),
        permit: requireString(permitted, 'permit'),
        completion: parseCompletion(item),
      });
    } catch (error: unknown) {
      parsed.invalid.push({ index, error });
    }
  });
  return parsed;
}

function parseBatchClaim(value: JsonValue | undefined): BatchBody['claim'] {
  if (value === undefined) {
    return undefined;
  }
  const claim = expectObject(value, '$.claim');
  rejectUnknown(claim, ['worker_id', 'max_tasks', 'start'], '$.claim');
  return {
    workerId: requireString(claim, 'worker_id', {
      path: '$.claim',
      pattern: /^[\x21-\x7e]{1,200}$/,
    }),
    maxTasks: readInteger(claim, 'max_tasks', { path: '$.claim', min: 1, max: 100 }) ?? 1,
    start: readBoolean(claim, 'start', { path: '$.claim' }) ?? false,
  };
}
