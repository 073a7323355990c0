/**
 * Request bodies of the worker protocol (claim, start, heartbeat, complete, many completions)
 * → service inputs. Every failure is `invalid_argument` with the JSON path (STYLE.md §5).
 */
import type { JsonObject, JsonValue } from '@weave/json';
import { tasks, workers } from '@weave/sdk/protocol';
import { invalidArgument } from '../errors.js';
import type { Completion, TaskError } from '../pulse/complete-attempt.js';
import {
  expectObject,
  readBoolean,
  readInteger,
  readString,
  rejectUnknown,
  requireString,
} from './fields.js';

export interface ClaimFields {
  readonly workerId: string;
  readonly maxTasks: number;
  readonly start: boolean;
}

function readClaim(obj: JsonObject, path = '$'): ClaimFields {
  return {
    workerId: requireString(obj, 'worker_id', { path, pattern: workers.WORKER_ID_PATTERN }),
    maxTasks: readInteger(obj, 'max_tasks', { path, min: 1, max: workers.MAX_CLAIM_TASKS }) ?? 1,
    start: readBoolean(obj, 'start', { path }) ?? false,
  };
}

/** `POST /queues/{q}/claims`. */
export function parseClaim(body: JsonValue | undefined): ClaimFields & { waitMs: number } {
  const obj = expectObject(body);
  rejectUnknown(obj, ['worker_id', 'max_tasks', 'wait_ms', 'start']);
  return {
    ...readClaim(obj),
    waitMs: readInteger(obj, 'wait_ms', { min: 0, max: workers.MAX_WAIT_MS }) ?? 0,
  };
}

function readPermit(obj: JsonObject, path = '$'): string {
  return requireString(obj, 'permit', { path, maxLength: workers.MAX_PERMIT_LENGTH });
}

/** `{permit}`: start and heartbeat. */
export function parsePermit(body: JsonValue | undefined): string {
  const obj = expectObject(body);
  rejectUnknown(obj, ['permit']);
  return readPermit(obj);
}

/** `{permit, outcome, result?, error?}`: complete. */
export function parseComplete(body: JsonValue | undefined) {
  const obj = expectObject(body);
  rejectUnknown(obj, ['permit', 'outcome', 'result', 'error']);
  return { permit: readPermit(obj), completion: readCompletion(obj) };
}

function readCompletion(obj: JsonObject, path = '$'): Completion {
  const outcome = requireString(obj, 'outcome', { path });
  const error = obj.get('error');
  if (outcome === 'succeeded') {
    if (error !== undefined) {
      throw invalidArgument(`${path}.error`, 'is not allowed with outcome succeeded');
    }
    return { outcome, result: obj.get('result') ?? null };
  }
  if (obj.has('result')) {
    throw invalidArgument(`${path}.result`, `is not allowed with outcome ${outcome}`);
  }
  if (outcome === 'failed') {
    return { outcome, error: readTaskError(error, `${path}.error`, true) };
  }
  if (outcome === 'needs_review') {
    const given = error === undefined ? undefined : readTaskError(error, `${path}.error`, false);
    return { outcome, error: given };
  }
  throw invalidArgument(`${path}.outcome`, 'must be succeeded, failed or needs_review');
}

function readTaskError(value: JsonValue | undefined, path: string, required: boolean): TaskError {
  if (value === undefined && required) {
    throw invalidArgument(path, 'is required with outcome failed');
  }
  const obj = expectObject(value, path);
  rejectUnknown(obj, ['code', 'message', 'retryable'], path);
  return {
    code: requireString(obj, 'code', { path, pattern: tasks.ERROR_CODE_PATTERN }),
    message: readString(obj, 'message', { path, maxLength: tasks.MAX_ERROR_MESSAGE }) ?? '',
    retryable: readBoolean(obj, 'retryable', { path }) ?? true,
  };
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
  readonly claim: ClaimFields | undefined;
}

/** A malformed item is refused on its own (it never blocks the others); a malformed envelope is not. */
export function parseBatch(body: JsonValue | undefined): BatchBody {
  const obj = expectObject(body);
  rejectUnknown(obj, ['completions', 'claim']);
  const list = obj.get('completions') ?? [];
  const max = workers.MAX_BATCH_COMPLETIONS;
  if (!Array.isArray(list) || list.length > max) {
    throw invalidArgument('$.completions', `must be an array of at most ${max} items`);
  }
  const claim = obj.get('claim');
  const parsed: BatchBody = {
    items: [],
    invalid: [],
    claim: claim === undefined ? undefined : parseBatchClaim(claim),
  };
  (list as readonly JsonValue[]).forEach((value, index) => {
    try {
      parsed.items.push({ index, ...readBatchItem(value, `$.completions[${index}]`) });
    } catch (error: unknown) {
      parsed.invalid.push({ index, error });
    }
  });
  return parsed;
}

function readBatchItem(value: JsonValue, path: string) {
  const item = expectObject(value, path);
  rejectUnknown(item, ['task_id', 'attempt_id', 'permit', 'outcome', 'result', 'error'], path);
  return {
    taskId: requireString(item, 'task_id', { path }),
    attemptId: requireString(item, 'attempt_id', { path }),
    permit: readPermit(item, path),
    completion: readCompletion(item, path),
  };
}

function parseBatchClaim(value: JsonValue): ClaimFields {
  const claim = expectObject(value, '$.claim');
  rejectUnknown(claim, ['worker_id', 'max_tasks', 'start'], '$.claim');
  return readClaim(claim, '$.claim');
}
