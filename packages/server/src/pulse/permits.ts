/**
 * Execution permits (执行许可): a random token handed to the worker once, stored only as its
 * SHA-256. Every worker call presents it; it is valid while the attempt is the task's current
 * one, the generation matches, the attempt is live (CLAIMED/RUNNING) and the lease has not
 * ended on the database clock (DESIGN.md §4). Anything else is `permit_stale` and changes nothing.
 */
import { hash, randomFillSync, timingSafeEqual } from 'node:crypto';
import { WeaveError } from '../errors.js';
import type { Tx } from '../store/with-tx.js';
import type { Attempt, Task, TaskState } from './task-record.js';
import { findAttempt, lockTask } from './task-record.js';

/** 256 bits: guessing a live permit is not a strategy. */
const PERMIT_BYTES = 32;

/**
 * Random bytes are drawn from the CSPRNG 128 permits at a time, as Node's `randomUUID` does: one
 * `randomBytes` call costs ~8 µs here, 4–5 % of a node's busy time in a drain when made per
 * claimed task. Every byte is handed out once.
 */
const POOL = Buffer.alloc(PERMIT_BYTES * 128);
let poolUsed = POOL.length;

export function createPermit(): { token: string; hash: Buffer } {
  if (poolUsed === POOL.length) {
    randomFillSync(POOL);
    poolUsed = 0;
  }
  const token = POOL.toString('base64url', poolUsed, poolUsed + PERMIT_BYTES);
  poolUsed += PERMIT_BYTES;
  return { token, hash: hashPermit(token) };
}

export function hashPermit(token: string): Buffer {
  return hash('sha256', token, 'buffer');
}

export interface PermitRef {
  readonly namespaceId: string;
  readonly taskId: string;
  readonly attemptId: string;
  readonly permit: string;
}

export function permitStale(reason: string, extra: Record<string, unknown> = {}): WeaveError {
  return new WeaveError('permit_stale', `the permit is not current (${reason})`, {
    details: { reason, ...extra },
  });
}

/**
 * Locks the task row (lock order: task rows, DESIGN.md §3) and returns it with the attempt the
 * token belongs to. A token of another attempt or task is `foreign`; liveness is checked by
 * `requireLive`, so a settled attempt can still answer an identical re-report (seed 000 §1).
 */
export async function lockPermitted(
  tx: Tx,
  ref: PermitRef,
): Promise<{ task: Task; attempt: Attempt }> {
  const task = await lockTask(tx, ref.namespaceId, ref.taskId);
  const attempt = await findAttempt(tx, ref.namespaceId, ref.attemptId);
  return { task, attempt: requireOwnPermit(task, attempt, ref.permit) };
}

/**
 * The token must be the one of this attempt (constant-time) and the attempt must belong to the
 * task, else `foreign`. Pure: batch completions read their rows in one query and check here.
 */
export function requireOwnPermit(
  task: TaskState,
  attempt: Attempt | undefined,
  token: string,
): Attempt {
  if (attempt === undefined || attempt.taskId !== task.id) {
    throw permitStale('foreign');
  }
  const given = hashPermit(token);
  if (given.length !== attempt.permitHash.length || !timingSafeEqual(given, attempt.permitHash)) {
    throw permitStale('foreign');
  }
  return attempt;
}

export function requireLive(tx: Tx, task: TaskState, attempt: Attempt): void {
  if (task.currentAttemptId !== attempt.id || task.generation !== attempt.generation) {
    throw permitStale('superseded');
  }
  if (attempt.status !== 'CLAIMED' && attempt.status !== 'RUNNING') {
    throw permitStale('settled', { attempt_status: attempt.status });
  }
  // Authorization ends at the lease end and, whatever the lease says, at the hard end (deadline).
  if (attempt.leaseUntil <= tx.now || attempt.expiresAt <= tx.now) {
    throw permitStale('expired');
  }
}
