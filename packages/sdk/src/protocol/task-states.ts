/**
 * Task states as the API shows them (DESIGN.md §4). `RETRY_WAIT` is a pending task waiting for
 * its retry (the server stores it as PENDING with a later `available_at`).
 */
export const TASK_STATUSES = [
  'PENDING',
  'RETRY_WAIT',
  'CLAIMED',
  'RUNNING',
  'SUCCEEDED',
  'FAILED',
  'CANCELLED',
  'NEEDS_REVIEW',
] as const;

export type TaskStatus = (typeof TASK_STATUSES)[number];

export function isTaskStatus(value: string): value is TaskStatus {
  return (TASK_STATUSES as readonly string[]).includes(value);
}
