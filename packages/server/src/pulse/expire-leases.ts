/**
 * The lease and deadline sweeper (DESIGN.md §4), on the database clock. One call handles at most
 * `limit` tasks of each kind, each under its row lock (SKIP LOCKED: several nodes sweep without
 * waiting on each other or on a worker's call in flight).
 *
 * - Deadline passed: FAILED `deadline_exceeded`; NEEDS_REVIEW (effect uncertain) instead when
 *   a non-idempotent attempt had started. Deadlines go first: a lease never outlives the
 *   deadline, so a task past both is a deadline case.
 * - Lease ended before start: the attempt is VOID and the task PENDING again (no effect
 *   happened; the void attempt is not charged to the retry budget).
 * - Lease ended after start: the effect is uncertain. Idempotent → a retryable failure
 *   `lease_expired` under the frozen policy; otherwise NEEDS_REVIEW.
 */
import type { Tx } from '../store/with-tx.js';
import { decideRetry } from './retry-policy.js';
import type { Settlement } from './settle-task.js';
import { settleTask } from './settle-task.js';
import type { Task } from './task-record.js';
import { toTask } from './task-record.js';

export interface SweepResult {
  /** Queues that got a task back to PENDING now (to wake local claimers). */
  readonly requeuedQueueIds: readonly string[];
  readonly settledCount: number;
}

const SWEEPER = { credentialId: null } as const;

export async function expireLeases(tx: Tx, limit: number): Promise<SweepResult> {
  const queues = new Set<string>();
  let settled = 0;
  const late = await selectDue(tx, 'deadline_at', ['PENDING', 'CLAIMED', 'RUNNING'], limit);
  for (const task of late) {
    await settleTask(tx, task, deadlineSettlement(task));
    settled++;
  }
  const expired = await selectDue(tx, 'lease_until', ['CLAIMED', 'RUNNING'], limit);
  for (const task of expired) {
    const settlement = leaseSettlement(tx, task);
    await settleTask(tx, task, settlement);
    if (settlement.status === 'PENDING' && task.status === 'CLAIMED') {
      queues.add(task.queueId);
    }
    settled++;
  }
  return { requeuedQueueIds: [...queues], settledCount: settled };
}

function selectDue(
  tx: Tx,
  column: 'deadline_at' | 'lease_until',
  statuses: readonly string[],
  limit: number,
): Promise<Task[]> {
  const query = tx.db
    .selectFrom('tasks')
    .selectAll()
    .where('status', 'in', statuses)
    .where(column, '<=', tx.now)
    .limit(limit);
  return tx.dialect
    .forUpdateSkipLocked(query)
    .execute()
    .then((rows) => rows.map(toTask));
}

function attemptOf(task: Task, status: 'VOID' | 'EXPIRED', errorCode: string) {
  return task.currentAttemptId === null
    ? {}
    : {
        attemptId: task.currentAttemptId,
        attempt: { id: task.currentAttemptId, status, errorCode },
      };
}

function deadlineSettlement(task: Task): Settlement {
  const started = task.status === 'RUNNING';
  const code = 'deadline_exceeded';
  const attempt = attemptOf(task, started ? 'EXPIRED' : 'VOID', code);
  const error = { error_code: code, error_message: 'the task deadline passed' };
  if (started && !task.idempotent) {
    return {
      status: 'NEEDS_REVIEW',
      type: 'task.needs_review',
      ...attempt,
      set: { ...error, effect_uncertain: 1 },
      details: { code, effect_uncertain: true },
      actor: SWEEPER,
    };
  }
  return {
    status: 'FAILED',
    type: 'task.failed',
    ...attempt,
    set: error,
    details: { code },
    actor: SWEEPER,
  };
}

function leaseSettlement(tx: Tx, task: Task): Settlement {
  const code = 'lease_expired';
  if (task.status === 'CLAIMED') {
    return {
      status: 'PENDING',
      type: 'task.requeued',
      ...attemptOf(task, 'VOID', code),
      set: { available_at: tx.now },
      details: { code },
      actor: SWEEPER,
    };
  }
  const attempt = attemptOf(task, 'EXPIRED', code);
  const charged = task.chargedAttempts + 1;
  const error = { error_code: code, error_message: 'the lease ended after the attempt started' };
  if (!task.idempotent) {
    return {
      status: 'NEEDS_REVIEW',
      type: 'task.needs_review',
      ...attempt,
      set: { ...error, charged_attempts: charged, effect_uncertain: 1 },
      details: { code, effect_uncertain: true },
      actor: SWEEPER,
    };
  }
  return idempotentRetry(tx, task, { ...attempt, set: { ...error, charged_attempts: charged } });
}

function idempotentRetry(
  tx: Tx,
  task: Task,
  base: Pick<Settlement, 'attemptId' | 'attempt'> & { set: NonNullable<Settlement['set']> },
): Settlement {
  const details = { code: 'lease_expired' };
  if (task.cancelRequested) {
    return { status: 'CANCELLED', type: 'task.cancelled', ...base, details, actor: SWEEPER };
  }
  const decision = decideRetry({
    policy: task.retry,
    chargedAttempts: task.chargedAttempts + 1,
    retryable: true,
    errorCode: 'lease_expired',
    now: tx.now,
    deadlineAt: task.deadlineAt,
  });
  if (decision.kind === 'retry') {
    const set = { ...base.set, available_at: decision.availableAt };
    return {
      status: 'PENDING',
      type: 'task.retry_scheduled',
      ...base,
      set,
      details,
      actor: SWEEPER,
    };
  }
  return { status: 'FAILED', type: 'task.failed', ...base, details, actor: SWEEPER };
}
