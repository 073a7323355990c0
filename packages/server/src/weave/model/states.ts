/**
 * The state values of the Weave runtime tables (docs/design/runtime.md §1), as `as const` arrays
 * with their unions (STYLE.md §6). Step statuses and kinds are the engine's (`STEP_STATUSES`,
 * `SnapshotStepKind`); these are the ones storage adds around them.
 */

import { instances } from '@weave/sdk/protocol';

const { ACTIVATION_STATUSES, POLL_ROUND_STATES, WAIT_PURPOSES, WAIT_STATES } = instances;

/** RUNNING, WAITING, CANCELLING, NEEDS_REVIEW count against the active-instance limit (A4.3). */
export const ACTIVE_INSTANCE_STATUSES = [
  'RUNNING',
  'WAITING',
  'CANCELLING',
  'NEEDS_REVIEW',
] as const;
export const TERMINAL_INSTANCE_STATUSES = [
  'SUCCEEDED',
  'FAILED',
  'CANCELLED',
  'TIMED_OUT',
] as const;
export const INSTANCE_STATUSES = [
  ...ACTIVE_INSTANCE_STATUSES,
  ...TERMINAL_INSTANCE_STATUSES,
] as const;
export type ActiveInstanceStatus = (typeof ACTIVE_INSTANCE_STATUSES)[number];
export type TerminalInstanceStatus = (typeof TERMINAL_INSTANCE_STATUSES)[number];
export type InstanceStatus = (typeof INSTANCE_STATUSES)[number];

/** `weave_instances.ending`: the terminal status taken once in-flight work settles. */
export const INSTANCE_ENDINGS = ['TIMED_OUT', 'CANCELLED'] as const;
export type InstanceEnding = (typeof INSTANCE_ENDINGS)[number];

export const GATE_STATES = ['OPEN', 'HELD', 'CLOSING', 'CLOSED'] as const;
export type GateState = (typeof GATE_STATES)[number];

// The activation, wait and poll-round states are part of the wire contract (the step detail
// view shows them): @weave/sdk/protocol holds them. SUPERSEDED: an older activation replaced by
// operator recovery (issue 12).
export { ACTIVATION_STATUSES, POLL_ROUND_STATES, WAIT_PURPOSES, WAIT_STATES };
export type ActivationStatus = (typeof ACTIVATION_STATUSES)[number];

export type WaitPurpose = (typeof WAIT_PURPOSES)[number];

export type WaitState = (typeof WAIT_STATES)[number];

export type PollRoundState = (typeof POLL_ROUND_STATES)[number];

export const INBOX_EVENT_TYPES = [
  'task.succeeded',
  'task.failed',
  'task.cancelled',
  'task.needs_review',
] as const;
export type InboxEventType = (typeof INBOX_EVENT_TYPES)[number];

export const INBOX_STATES = ['PENDING', 'PROCESSED', 'QUARANTINED'] as const;
export type InboxState = (typeof INBOX_STATES)[number];

export const INBOX_OUTCOMES = ['APPLIED', 'STALE'] as const;
export type InboxOutcome = (typeof INBOX_OUTCOMES)[number];

/** Done rows are deleted; the column keeps the scan index the same shape as the inbox's. */
export const PENDING_ADVANCE_STATES = ['PENDING'] as const;
export type PendingAdvanceState = (typeof PENDING_ADVANCE_STATES)[number];

/**
 * `value` as one of `values`, or a `RangeError` naming the column: a stored state outside its set
 * is a corrupt row (500), never guessed at (like `toInt` for an out-of-range integer).
 */
export function toState<const T extends string>(
  values: readonly T[],
  value: string,
  column: string,
): T {
  if (!(values as readonly string[]).includes(value)) {
    throw new RangeError(`${column} '${value}' is not one of ${values.join(', ')}`);
  }
  return value as T;
}
