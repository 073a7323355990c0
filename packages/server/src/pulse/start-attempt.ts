/**
 * Start: the worker declares that side effects begin (DESIGN.md §4). From here on a lost lease
 * makes the effect uncertain. A paused queue refuses start; starting an attempt that is already
 * running answers the same again (a retried request).
 */
import { WeaveError } from '../errors.js';
import type { Tx } from '../store/with-tx.js';
import { toBool } from '../store/values.js';
import type { PermitRef } from './permits.js';
import { lockPermitted, requireLive } from './permits.js';
import { changeTask } from './task-change.js';

export interface StartReceipt {
  readonly taskId: string;
  readonly attemptId: string;
  readonly revision: bigint;
  readonly status: 'RUNNING';
}

export async function startAttempt(tx: Tx, ref: PermitRef): Promise<StartReceipt> {
  const { task, attempt } = await lockPermitted(tx, ref);
  requireLive(tx, task, attempt);
  const receipt = { taskId: task.id, attemptId: attempt.id, status: 'RUNNING' as const };
  if (attempt.status === 'RUNNING') {
    return { ...receipt, revision: task.revision };
  }
  const queue = await tx.db
    .selectFrom('queues')
    .select('paused')
    .where('id', '=', task.queueId)
    .where('namespace_id', '=', task.namespaceId)
    .executeTakeFirstOrThrow();
  if (toBool(queue.paused)) {
    throw new WeaveError('invalid_state', 'the queue is paused: the attempt may not start', {
      details: { reason: 'queue_paused' },
    });
  }
  await tx.db
    .updateTable('task_attempts')
    .set({ status: 'RUNNING', started_at: tx.now })
    .where('id', '=', attempt.id)
    .where('namespace_id', '=', task.namespaceId)
    .execute();
  const revision = await changeTask(tx, task, {
    status: 'RUNNING',
    type: 'task.started',
    attemptId: attempt.id,
  });
  return { ...receipt, revision };
}
