/**
 * Complete: the worker reports `succeeded` (+ result), `failed` (+ code, retryable) or
 * `needs_review`. The permit must be live; then the result transaction runs (settle-task.ts).
 *
 * An identical completion sent again (same permit, same canonical body) finds the attempt
 * settled with the same digest and returns the stored receipt, writing nothing (seed 000 §1,
 * E1.6). A different completion for a settled attempt is `permit_stale`.
 */
import { hash } from 'node:crypto';
import { canonicalize, isJsonObject, parse, stringify, utf8ByteLength } from '@weave/json';
import type { JsonValue } from '@weave/json';
import { workers } from '@weave/sdk/protocol';
import { WeaveError, notFound } from '../errors.js';
import type { Tx } from '../store/with-tx.js';
import type { PermitRef } from './permits.js';
import { lockPermitted, permitStale, requireLive } from './permits.js';
import { decideRetry } from './retry-policy.js';
import type { Settlement, TaskReceipt } from './settle-task.js';
import { settleTask } from './settle-task.js';
import type { Attempt, TaskState } from './task-record.js';
import type { StoredTaskStatus } from './task-states.js';

/**
 * Result JSON text limit, the wire contract's (the SDK Worker checks each result against it); the
 * frozen inbox snapshot that embeds it is capped at 512 KiB (E2.1).
 */
export const MAX_RESULT_BYTES = workers.MAX_RESULT_BYTES;

export interface TaskError {
  readonly code: string;
  readonly message: string;
  readonly retryable: boolean;
}

export type Completion =
  | { readonly outcome: 'succeeded'; readonly result: JsonValue }
  | { readonly outcome: 'failed'; readonly error: TaskError }
  | { readonly outcome: 'needs_review'; readonly error?: TaskError | undefined };

export interface CompleteRequest extends PermitRef {
  readonly completion: Completion;
  readonly credentialId: string | null;
  readonly requestId?: string;
  /** When set (batch completions of one queue), a task of another queue is not_found. */
  readonly queueId?: string;
}

export async function completeAttempt(tx: Tx, request: CompleteRequest): Promise<TaskReceipt> {
  const { task, attempt } = await lockPermitted(tx, request);
  const plan = planCompletion(tx, { task, attempt, request });
  return plan.kind === 'replay' ? plan.receipt : settleTask(tx, task, plan.settlement);
}

/** What a completion of a locked task does: replay a stored receipt, or this settlement. */
export type CompletionPlan =
  | { readonly kind: 'replay'; readonly receipt: TaskReceipt }
  | { readonly kind: 'settle'; readonly settlement: Settlement };

/**
 * The checks and the decision, without I/O (the caller locked the task and checked that the
 * permit is the attempt's): the queue, an identical re-report (E1.6), liveness, the outcome.
 * Throws the item's refusal before anything is written.
 */
export function planCompletion(
  tx: Tx,
  locked: {
    readonly task: TaskState;
    readonly attempt: Attempt;
    readonly request: CompleteRequest;
  },
): CompletionPlan {
  const { task, attempt, request } = locked;
  if (request.queueId !== undefined && task.queueId !== request.queueId) {
    throw notFound(`task ${task.id} in this queue`, { path: 'task_id' });
  }
  const digest = completionDigest(request.completion);
  if (attempt.completionDigest !== null) {
    if (attempt.completionDigest === digest && attempt.receipt !== null) {
      return { kind: 'replay', receipt: storedReceipt(attempt.receipt) };
    }
    throw permitStale('settled', { attempt_status: attempt.status });
  }
  requireLive(tx, task, attempt);
  const settlement = decideSettlement(tx, task, attempt, request.completion);
  return {
    kind: 'settle',
    settlement: {
      ...settlement,
      attempt: { ...settlement.attempt, completionDigest: digest },
      actor: {
        credentialId: request.credentialId,
        ...(request.requestId === undefined ? {} : { requestId: request.requestId }),
      },
    },
  };
}

type Decided = Omit<Settlement, 'actor' | 'attempt'> & {
  readonly attempt: NonNullable<Settlement['attempt']>;
};

function decideSettlement(tx: Tx, task: TaskState, attempt: Attempt, c: Completion): Decided {
  const attemptId = attempt.id;
  if (c.outcome === 'succeeded') {
    const result = resultText(c.result, '$.result');
    return {
      status: 'SUCCEEDED',
      type: 'task.succeeded',
      attemptId,
      set: { result, charged_attempts: task.chargedAttempts + 1 },
      attempt: { id: attemptId, status: 'SUCCEEDED' },
    };
  }
  if (c.outcome === 'needs_review') {
    return {
      status: 'NEEDS_REVIEW',
      type: 'task.needs_review',
      attemptId,
      set: { ...errorColumns(c.error), charged_attempts: task.chargedAttempts + 1 },
      attempt: { id: attemptId, status: 'NEEDS_REVIEW', errorCode: c.error?.code ?? null },
    };
  }
  return decideFailure(tx, task, attemptId, c.error);
}

function decideFailure(tx: Tx, task: TaskState, attemptId: string, error: TaskError): Decided {
  const charged = task.chargedAttempts + 1;
  const attempt = { id: attemptId, status: 'FAILED' as const, errorCode: error.code };
  const set = { ...errorColumns(error), charged_attempts: charged };
  const details = { code: error.code };
  if (task.cancelRequested) {
    // The worker stopped because it was told to (heartbeat): the task ends cancelled.
    return { status: 'CANCELLED', type: 'task.cancelled', attemptId, set, attempt, details };
  }
  const decision = decideRetry({
    policy: task.retry,
    chargedAttempts: charged,
    retryable: error.retryable,
    errorCode: error.code,
    now: tx.now,
    deadlineAt: task.deadlineAt,
  });
  if (decision.kind === 'retry') {
    return {
      status: 'PENDING',
      type: 'task.retry_scheduled',
      attemptId,
      set: { ...set, available_at: decision.availableAt },
      attempt,
      details,
    };
  }
  return { status: 'FAILED', type: 'task.failed', attemptId, set, attempt, details };
}

/** The result as stored text, within its limit. */
export function resultText(value: JsonValue, path: string): string {
  const text = stringify(value);
  const bytes = utf8ByteLength(text);
  if (bytes > MAX_RESULT_BYTES) {
    throw new WeaveError('payload_too_large', `${path} is ${bytes} bytes, over the limit`, {
      details: { path, limit: MAX_RESULT_BYTES },
    });
  }
  return text;
}

function errorColumns(error: TaskError | undefined) {
  return { error_code: error?.code ?? null, error_message: error?.message ?? null };
}

function completionDigest(c: Completion): string {
  return hash('sha256', canonicalize({ ...c }), 'hex');
}

function storedReceipt(text: string): TaskReceipt {
  const value = parse(text);
  const field = (key: string): string | null => {
    const v = isJsonObject(value) ? value.get(key) : undefined;
    return typeof v === 'string' ? v : null;
  };
  return {
    taskId: field('task_id') ?? '',
    attemptId: field('attempt_id'),
    revision: BigInt(field('revision') ?? '0'),
    // Written by receiptJson from a stored status, so it is one (the receipt is this server's).
    status: (field('status') ?? '') as StoredTaskStatus,
  };
}
