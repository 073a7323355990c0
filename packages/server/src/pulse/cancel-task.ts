/**
 * Cancel: a task whose work has not begun (PENDING, or CLAIMED but not started) ends CANCELLED
 * at once, voiding any permit. A RUNNING task may be mid-effect, so it is only marked
 * `cancel_requested`; its worker learns it on the next heartbeat and reports back (a failure
 * then ends CANCELLED; a success stays a success, since the effect happened). Cancelling a
 * cancelled task answers the same again; other finished tasks are `invalid_state`.
 */
import { WeaveError } from '../errors.js';
import type { Tx } from '../store/with-tx.js';
import type { TaskReceipt } from './settle-task.js';
import { settleTask } from './settle-task.js';
import { changeTask } from './task-change.js';
import { lockTask } from './task-record.js';

export interface CancelRequest {
  readonly namespaceId: string;
  readonly taskId: string;
  readonly credentialId: string | null;
  readonly requestId?: string;
}

export async function cancelTask(tx: Tx, request: CancelRequest): Promise<TaskReceipt> {
  const task = await lockTask(tx, request.namespaceId, request.taskId);
  const actor = {
    credentialId: request.credentialId,
    ...(request.requestId === undefined ? {} : { requestId: request.requestId }),
  };
  const same = { taskId: task.id, attemptId: task.currentAttemptId, revision: task.revision };
  switch (task.status) {
    case 'PENDING':
      return settleTask(tx, task, { status: 'CANCELLED', type: 'task.cancelled', actor });
    case 'CLAIMED': {
      const attemptId = task.currentAttemptId ?? '';
      const attempt = { id: attemptId, status: 'VOID' as const, errorCode: 'cancelled' };
      return settleTask(tx, task, {
        status: 'CANCELLED',
        type: 'task.cancelled',
        attemptId,
        attempt,
        actor,
      });
    }
    case 'RUNNING': {
      if (task.cancelRequested) {
        return { ...same, status: task.status };
      }
      const revision = await changeTask(tx, task, {
        status: 'RUNNING',
        type: 'task.cancel_requested',
        attemptId: task.currentAttemptId,
        set: { cancel_requested: 1 },
      });
      return { ...same, revision, status: 'RUNNING' };
    }
    case 'CANCELLED':
      return { ...same, status: task.status };
    default:
      throw new WeaveError('invalid_state', `task ${task.id} is ${task.status}`, {
        details: { status: task.status },
      });
  }
}
