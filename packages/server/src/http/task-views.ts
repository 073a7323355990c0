/** Pulse domain objects → wire JSON (API.md "Pulse"). Payloads are embedded as stored text. */
import type { ClaimedTask } from '../pulse/claim-tasks.js';
import type { TaskEvent } from '../pulse/list-tasks.js';
import { visibleStatus } from '../pulse/list-tasks.js';
import type { BatchItemResult } from '../pulse/complete-batch.js';
import type { TaskReceipt } from '../pulse/settle-task.js';
import { toErrorResponse } from './error-response.js';
import type { BatchBody } from './worker-fields.js';
import { receiptJson } from '../pulse/settle-task.js';
import type { RetryPolicy } from '../pulse/retry-policy.js';
import type { TaskWithQueue } from '../pulse/task-record.js';
import { formatInstant } from '@weave/sdk/protocol';
import type { Micros, tasks, workers } from '@weave/sdk/protocol';
import { formatDuration } from './durations.js';

function raw(text: string) {
  return { kind: 'raw' as const, text };
}

function optional<K extends string, V>(key: K, value: V | null): { [P in K]?: V } {
  return (value === null ? {} : { [key]: value }) as { [P in K]?: V };
}

export function taskView({ task, queueName }: TaskWithQueue, now: Micros): tasks.Task {
  return {
    id: task.id,
    queue: queueName,
    status: visibleStatus(task, now),
    revision: task.revision.toString(),
    input: raw(task.input),
    ...optional('result', task.result === null ? null : raw(task.result)),
    ...optional(
      'error',
      task.errorCode === null ? null : { code: task.errorCode, message: task.errorMessage ?? '' },
    ),
    attempts: task.attemptCount,
    effect_uncertain: task.effectUncertain,
    cancel_requested: task.cancelRequested,
    idempotent: task.idempotent,
    priority: task.priority,
    ...optional('trace_key', task.traceKey),
    ...optional('resource_key', task.resourceKey),
    ...optional(
      'attempt_timeout',
      task.attemptTimeoutUs === null ? null : formatDuration(task.attemptTimeoutUs),
    ),
    retry: retryView(task.retry),
    deadline_at: formatInstant(task.deadlineAt),
    available_at: formatInstant(task.availableAt),
    created_at: formatInstant(task.createdAt),
    updated_at: formatInstant(task.updatedAt),
    ...optional('finished_at', task.finishedAt === null ? null : formatInstant(task.finishedAt)),
    ...optional(
      'owner',
      task.ownerKind === null ? null : { kind: task.ownerKind, id: task.ownerId },
    ),
  };
}

/** The retry policy frozen on a task or a schedule's template. */
export function retryView(retry: RetryPolicy): tasks.RetryPolicy {
  return {
    max_attempts: retry.maxAttempts,
    initial_interval: formatDuration(retry.initialIntervalUs),
    backoff_coefficient: { kind: 'number', text: retry.backoffCoefficient },
    max_interval: formatDuration(retry.maxIntervalUs),
    non_retryable_codes: retry.nonRetryableCodes,
  };
}

export function claimedTaskView(claimed: ClaimedTask): workers.ClaimedTask {
  const { task } = claimed;
  return {
    task_id: task.id,
    attempt_id: claimed.attemptId,
    permit: claimed.permit,
    lease_expires_at: formatInstant(claimed.leaseUntil),
    deadline_at: formatInstant(task.deadlineAt),
    input: raw(task.input),
    attempt_number: claimed.attemptNumber,
    ...optional('trace_key', task.traceKey),
    ...optional('resource_key', task.resourceKey),
    idempotent: task.idempotent,
  };
}

export function receiptView(receipt: TaskReceipt): tasks.TaskReceipt {
  return receiptJson(receipt);
}

export function taskEventView(event: TaskEvent): tasks.TaskEvent {
  return {
    id: event.id,
    revision: event.revision.toString(),
    type: event.type,
    status: event.status,
    ...optional('attempt_id', event.attemptId),
    at: formatInstant(event.at),
    ...optional('details', event.details === null ? null : raw(event.details)),
  };
}

/** `{receipts: [{index, …receipt}], errors: [{index, error}], tasks}`, both lists by index. */
export function batchView(
  batch: BatchBody,
  results: readonly BatchItemResult[],
  claimed: readonly ClaimedTask[],
): workers.BatchCompletionAnswer {
  const receipts = results.flatMap((r) =>
    'receipt' in r ? [{ index: r.index, ...receiptJson(r.receipt) }] : [],
  );
  const refused = [
    ...batch.invalid,
    ...results.flatMap((r) => ('error' in r ? [{ index: r.index, error: r.error }] : [])),
  ].sort((a, b) => a.index - b.index);
  const errors = refused.map(({ index, error }) => ({
    index,
    error: toErrorResponse(error, { bodyLimitBytes: 0 }).body.error,
  }));
  return { receipts, errors, tasks: claimed.map(claimedTaskView) };
}
