import type { JsonValue } from '@weave/json';

/**
 * What a planning round returns: readonly plain objects tagged by `kind`. Storage applies a
 * round's decisions in order, in one transaction, or none of them (docs/design/engine.md
 * "Decisions"). None of them is an execution right: Pulse grants permits when a worker claims.
 */
export interface RetryParameters {
  readonly maxAttempts: number;
  readonly initialIntervalMs: number;
  readonly backoffCoefficient: string;
  readonly maxIntervalMs: number;
  readonly nonRetryableCodes: readonly string[];
}

export interface SignalParameters {
  readonly signalName: string;
  /** Exact bytes of the correlation key, 1–512 UTF-8 bytes. */
  readonly correlation: string;
  readonly payloadVersion: number;
}

export interface ActivateRoot {
  readonly kind: 'ACTIVATE';
  readonly stepId: '$root';
  readonly node: 'ROOT';
}

export interface ActivateTask {
  readonly kind: 'ACTIVATE';
  readonly stepId: string;
  readonly node: 'TASK';
  readonly queue: string;
  readonly input: JsonValue;
  readonly timeoutMs?: number;
  readonly retry: RetryParameters;
  readonly idempotent: boolean;
  readonly traceKey?: string;
  readonly resourceKey?: string;
}

export interface ActivateBranch {
  readonly kind: 'ACTIVATE';
  readonly stepId: string;
  readonly node: 'BRANCH';
  readonly caseIndex: number;
}

export interface ActivateParallel {
  readonly kind: 'ACTIVATE';
  readonly stepId: string;
  readonly node: 'PARALLEL';
}

export interface ActivateSignal extends SignalParameters {
  readonly kind: 'ACTIVATE';
  readonly stepId: string;
  readonly node: 'SIGNAL';
  readonly timeoutMs?: number;
}

export interface ActivateTimer {
  readonly kind: 'ACTIVATE';
  readonly stepId: string;
  readonly node: 'TIMER';
  readonly durationMs: number;
}

export interface ActivatePoll {
  readonly kind: 'ACTIVATE';
  readonly stepId: string;
  readonly node: 'POLL';
  readonly queue: string;
  readonly input: JsonValue;
  readonly intervalMs: number;
  readonly maxRounds: number;
  readonly timeoutMs: number;
  readonly taskTimeoutMs?: number;
  readonly finalSignal?: SignalParameters;
}

export type ActivateDecision =
  | ActivateRoot
  | ActivateTask
  | ActivateBranch
  | ActivateParallel
  | ActivateSignal
  | ActivateTimer
  | ActivatePoll;

/** A composite (BRANCH, PARALLEL) or the root succeeded with the output its children give. */
export interface CompleteDecision {
  readonly kind: 'COMPLETE';
  readonly stepId: string;
  readonly output: JsonValue;
}

/** A step of an unchosen BRANCH case will never run. */
export interface SkipDecision {
  readonly kind: 'SKIP';
  readonly stepId: string;
}

export const FAILURE_CODES = [
  'child_failed',
  'aborted',
  'reference_missing',
  'condition_type_error',
  'input_too_large',
  'output_too_large',
  'invalid_correlation',
  'invalid_task_key',
] as const;
export type FailureCode = (typeof FAILURE_CODES)[number];

export interface StepFailure {
  readonly code: FailureCode;
  readonly message: string;
  /** For `child_failed`: the failed or cancelled child. */
  readonly stepId?: string;
}

/** The step failed: a composite or root whose child failed, or a step whose data broke a rule. */
export interface FailDecision {
  readonly kind: 'FAIL';
  readonly stepId: string;
  readonly error: StepFailure;
}

/** Stop an in-flight leaf because its scope is failing (Step Functions stops sibling branches). */
export interface CancelDecision {
  readonly kind: 'CANCEL';
  readonly stepId: string;
}

export type Decision =
  ActivateDecision | CompleteDecision | SkipDecision | FailDecision | CancelDecision;

export interface PlanResult {
  readonly decisions: readonly Decision[];
  /** The budget ran out with more to do: storage must save a pending advance (E3.11, A3.2). */
  readonly more: boolean;
}
