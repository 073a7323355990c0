/**
 * The result transaction (seed 000 §1, E1.1), shared by completions, cancellation and the lease
 * and deadline sweeper. In order, inside the caller's transaction, which rolls back whole on any
 * failure:
 *   1. update the task row;
 *   2. settle the permit (attempt final, task's current attempt and lease cleared) — usage needs
 *      no write: the quota count is derived from task statuses (admission.ts);
 *   3. write the raw status event;
 *   4–5. workflow tasks only (E1.2): read-only ownership check and inbox row (Weave);
 *   6. lock the Orbit stream row and append the result event;
 *   7. audit, and the execution receipt on the attempt.
 * A retry (PENDING again) is a raw status event only: no result is delivered (E1.5).
 */
import { stringify } from '@weave/json';
import { writeAudit } from '../auth/audit.js';
import { appendResult } from '../orbit/append-result.js';
import type { Tx } from '../store/with-tx.js';
import { deliverResult } from '../weave/runtime/deliver-result.js';
import { releaseResource } from './resource-keys.js';
import type { TaskChange } from './task-change.js';
import { updateTaskRow, writeTaskEvent } from './task-change.js';
import type { Task } from './task-record.js';
import type { AttemptStatus } from './task-states.js';
import { isTerminal } from './task-states.js';

export interface AttemptSettlement {
  readonly id: string;
  readonly status: AttemptStatus;
  readonly errorCode?: string | null;
  readonly completionDigest?: string;
}

export interface Settlement extends TaskChange {
  readonly attempt?: AttemptSettlement;
  /** Who caused it (null for the sweeper) and the request, for the audit row. */
  readonly actor: { readonly credentialId: string | null; readonly requestId?: string };
}

export interface TaskReceipt {
  readonly taskId: string;
  readonly attemptId: string | null;
  readonly revision: bigint;
  readonly status: string;
}

export async function settleTask(tx: Tx, task: Task, settlement: Settlement): Promise<TaskReceipt> {
  const terminal = isTerminal(settlement.status);
  const set = {
    ...settlement.set,
    current_attempt_id: null,
    lease_owner: null,
    lease_until: null,
    ...(terminal ? { finished_at: tx.now } : {}),
  };
  const revision = await updateTaskRow(tx, task, { ...settlement, set });
  const receipt: TaskReceipt = {
    taskId: task.id,
    attemptId: settlement.attempt?.id ?? null,
    revision,
    status: settlement.status,
  };
  if (settlement.attempt !== undefined) {
    await settleAttempt(tx, settlement.attempt, receipt);
  }
  // Settling always leaves CLAIMED/RUNNING: the resource key is free for the next task.
  if (task.status === 'CLAIMED' || task.status === 'RUNNING') {
    await releaseResource(tx, task);
  }
  await writeTaskEvent(tx, task, { ...settlement, revision });
  if (terminal) {
    await deliverTerminal(tx, task, settlement, receipt);
  }
  await writeAudit(tx, {
    namespaceId: task.namespaceId,
    credentialId: settlement.actor.credentialId,
    action: settlement.type,
    outcome: 'ok',
    objectType: 'task',
    objectId: task.id,
    ...(settlement.actor.requestId === undefined ? {} : { requestId: settlement.actor.requestId }),
    ...(settlement.details === undefined ? {} : { details: stringify(settlement.details) }),
  });
  return receipt;
}

async function settleAttempt(tx: Tx, attempt: AttemptSettlement, receipt: TaskReceipt) {
  await tx.db
    .updateTable('task_attempts')
    .set({
      status: attempt.status,
      finished_at: tx.now,
      error_code: attempt.errorCode ?? null,
      completion_digest: attempt.completionDigest ?? null,
      receipt: stringify(receiptJson(receipt)),
    })
    .where('id', '=', attempt.id)
    .execute();
}

async function deliverTerminal(
  tx: Tx,
  task: Task,
  settlement: Settlement,
  receipt: TaskReceipt,
): Promise<void> {
  if (task.ownerKind !== null) {
    await deliverResult(tx, {
      namespaceId: task.namespaceId,
      taskId: task.id,
      ownerKind: task.ownerKind,
      ownerId: task.ownerId,
      revision: receipt.revision,
      status: receipt.status,
      attemptId: receipt.attemptId,
    });
  }
  await appendResult(tx, {
    namespaceId: task.namespaceId,
    applicationId: task.applicationId,
    streamId: task.resultStreamId,
    type: `task.${receipt.status.toLowerCase()}`,
    source: { kind: 'task', id: task.id },
    revision: receipt.revision,
    fields: outcomeSnapshot(task, settlement, receipt),
  });
}

/** The frozen outcome for the stream: the task as this change leaves it, payload text as is. */
function outcomeSnapshot(task: Task, settlement: Settlement, receipt: TaskReceipt) {
  const set = settlement.set ?? {};
  const result = set.result !== undefined ? set.result : task.result;
  const errorCode = set.error_code !== undefined ? set.error_code : task.errorCode;
  const errorMessage = set.error_message !== undefined ? set.error_message : task.errorMessage;
  return {
    task_id: task.id,
    ...(receipt.attemptId === null ? {} : { attempt_id: receipt.attemptId }),
    revision: receipt.revision.toString(),
    status: receipt.status,
    ...(task.traceKey === null ? {} : { trace_key: task.traceKey }),
    ...(result === null || receipt.status !== 'SUCCEEDED'
      ? {}
      : { result: { kind: 'raw' as const, text: result } }),
    ...(errorCode === null || receipt.status === 'SUCCEEDED'
      ? {}
      : { error: { code: errorCode, message: errorMessage ?? '' } }),
  };
}

/** The receipt as stored on the attempt and sent on the wire. */
export function receiptJson(receipt: TaskReceipt) {
  return {
    task_id: receipt.taskId,
    attempt_id: receipt.attemptId,
    revision: receipt.revision.toString(),
    status: receipt.status,
  };
}
