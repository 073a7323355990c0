import type { JsonValue } from '@weave/json';
import type { StepKind } from './model.js';

/**
 * The planner's input: what storage read, in the same transaction, from the instance row and
 * its step rows (docs/design/engine.md "Snapshot"). It holds data only; every rule about which
 * combinations are consistent is checked by `plan`, which rejects the whole round otherwise.
 */
export const STEP_STATUSES = [
  'PENDING',
  'ACTIVE',
  'WAITING',
  'SUCCEEDED',
  'FAILED',
  'SKIPPED',
  'NEEDS_REVIEW',
  'CANCELLED',
] as const;
export type StepStatus = (typeof STEP_STATUSES)[number];

/** How a SUCCEEDED POLL ended: a query result the classifier called SUCCEEDED, or its final signal. */
export const POLL_COMPLETIONS = ['QUERY', 'FINAL_SIGNAL'] as const;
export type PollCompletion = (typeof POLL_COMPLETIONS)[number];

/** `ROOT` is the kind of the hidden `$root` step. */
export type SnapshotStepKind = StepKind | 'ROOT';

export interface StepState {
  /** The kind storage saved on the row; must equal the definition's (a mismatch rejects). */
  readonly kind: SnapshotStepKind;
  readonly status: StepStatus;
  /** The saved SUCCEEDED projection: present exactly when `status` is SUCCEEDED. */
  readonly output?: JsonValue;
  /** BRANCH only: the case chosen at activation (cases.length = default); kept for good. */
  readonly caseIndex?: number;
  /** POLL only, and only when SUCCEEDED. */
  readonly completedBy?: PollCompletion;
  /** An ACTIVE/WAITING leaf whose CANCEL decision storage has applied. */
  readonly cancelRequested?: boolean;
}

export interface Snapshot {
  /** The instance input as validated at Start. */
  readonly input: JsonValue;
  /** The pause gate: false while storage forbids new business work (E3.10, E4.4). */
  readonly allowNew: boolean;
  /** Every static step by id, plus `$root`. */
  readonly steps: ReadonlyMap<string, StepState>;
}
