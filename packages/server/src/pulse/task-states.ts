/**
 * Task and attempt states (DESIGN.md §4). `RETRY_WAIT` is not stored: a task waiting for its
 * retry is `PENDING` with `available_at` in the future, so the claim query reads one status on
 * one index range (docs/design/pulse.md "Claim query"); views derive `RETRY_WAIT` from it.
 */
import { instances } from '@weave/sdk/protocol';
import type { TaskStatus } from '@weave/sdk/protocol';

// The states as the API shows them are part of the wire contract.
export { TASK_STATUSES, isTaskStatus } from '@weave/sdk/protocol';
export type { TaskStatus };

/** What the `status` column holds. */
export type StoredTaskStatus = Exclude<TaskStatus, 'RETRY_WAIT'>;

/** Counted against the application quota (max active tasks). */
export const ACTIVE_STATUSES: readonly StoredTaskStatus[] = ['PENDING', 'CLAIMED', 'RUNNING'];

export const TERMINAL_STATUSES: readonly StoredTaskStatus[] = [
  'SUCCEEDED',
  'FAILED',
  'CANCELLED',
  'NEEDS_REVIEW',
];

export function isTerminal(status: StoredTaskStatus): boolean {
  return TERMINAL_STATUSES.includes(status);
}

/**
 * CLAIMED/RUNNING hold a live permit; the others are settled. VOID: lease ended before start
 * (no effect). EXPIRED: lease ended after start (effect uncertain).
 */
// Attempt states are on the wire too (the step detail view): @weave/sdk/protocol holds them.
export const ATTEMPT_STATUSES = instances.ATTEMPT_STATUSES;

export type AttemptStatus = (typeof ATTEMPT_STATUSES)[number];
