/**
 * Review (核查) of a NEEDS_REVIEW task by an operator (issue 4 §7): resolve it as succeeded (the
 * operator gives the output), failed, or retried (PENDING again, a new attempt on the next
 * claim). A resolution is a result like any other: it goes through the result transaction and
 * is audited with the operator's reason.
 */
import type { JsonValue } from '@weave/json';
import { WeaveError } from '../errors.js';
import type { Tx } from '../store/with-tx.js';
import { forgetActiveBound } from './admission.js';
import { resultText } from './complete-attempt.js';
import type { Settlement, TaskReceipt } from './settle-task.js';
import { settleTask } from './settle-task.js';
import type { Task } from './task-record.js';
import { lockTask } from './task-record.js';

export type ReviewAction =
  | { readonly action: 'succeed'; readonly output: JsonValue }
  | { readonly action: 'fail'; readonly error: { readonly code: string; readonly message: string } }
  | { readonly action: 'retry' };

export interface ReviewRequest {
  readonly namespaceId: string;
  readonly taskId: string;
  readonly review: ReviewAction;
  readonly reason: string;
  readonly credentialId: string | null;
  readonly requestId?: string;
}

export async function reviewTask(tx: Tx, request: ReviewRequest): Promise<TaskReceipt> {
  const task = await lockTask(tx, request.namespaceId, request.taskId);
  if (task.status !== 'NEEDS_REVIEW') {
    throw new WeaveError('invalid_state', `task ${task.id} is ${task.status}, not NEEDS_REVIEW`, {
      details: { status: task.status },
    });
  }
  const actor = {
    credentialId: request.credentialId,
    ...(request.requestId === undefined ? {} : { requestId: request.requestId }),
  };
  const details = { review: request.review.action, reason: request.reason };
  const receipt = await settleTask(tx, task, {
    ...resolution(tx, task, request.review),
    details,
    actor,
  });
  if (request.review.action === 'retry') {
    await forgetActiveBound(tx, task);
  }
  return receipt;
}

function resolution(tx: Tx, task: Task, review: ReviewAction): Omit<Settlement, 'actor'> {
  switch (review.action) {
    case 'succeed':
      return {
        status: 'SUCCEEDED',
        type: 'task.succeeded',
        set: {
          result: resultText(review.output, '$.output'),
          error_code: null,
          error_message: null,
        },
      };
    case 'fail':
      return {
        status: 'FAILED',
        type: 'task.failed',
        set: { error_code: review.error.code, error_message: review.error.message },
      };
    case 'retry':
      if (task.deadlineAt <= tx.now) {
        throw new WeaveError('invalid_state', `task ${task.id} is past its deadline`, {
          details: { reason: 'deadline_passed' },
        });
      }
      // A fresh start: the uncertainty was resolved by the operator; history keeps the events.
      return {
        status: 'PENDING',
        type: 'task.retry_scheduled',
        set: { available_at: tx.now, effect_uncertain: 0, cancel_requested: 0, finished_at: null },
      };
  }
}
