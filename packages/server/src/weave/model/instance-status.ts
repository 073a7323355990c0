/**
 * The instance status after any round (docs/design/runtime.md §2.2, A2.8; §4.2 for `ending`),
 * from the post-round step states: Start, the consumer, the pending-advance runner and the clock
 * all derive it here. Pure: no I/O, no clock.
 */
import type { JsonValue } from '@weave/json';
import type { StepState } from '@weave/engine';
import { ROOT_STEP_ID } from '@weave/engine';
import type { InstanceEnding, InstanceStatus } from './states.js';
import { TERMINAL_INSTANCE_STATUSES } from './states.js';

export interface InstanceStatusInput {
  /** Every step after the round (`applyDecisions`, settlements included), `$root` too. */
  readonly steps: ReadonlyMap<string, StepState>;
  /** `weave_instances.ending`: set by the instance deadline (TIMED_OUT) or a cancel (issue 12). */
  readonly ending: InstanceEnding | null;
  /** A pending advance exists after the round (the round returned `more`). */
  readonly pendingAdvance: boolean;
}

export interface InstanceStatusResult {
  readonly status: InstanceStatus;
  readonly terminal: boolean;
  /** `$root`'s output, exactly when SUCCEEDED. */
  readonly output?: JsonValue;
}

/**
 * In order:
 * 1. `ending` set and nothing in flight (no leaf in flight, no pending advance) → `ending`. It
 *    comes before `$root`'s own end: once the deadline has set `ending`, a late success that lets
 *    the planner COMPLETE `$root` still ends TIMED_OUT, and the cancelled leaves that make it FAIL
 *    `$root` do too (§4.2 "the deadline decided first").
 *    With `ending` CANCELLED and work still in flight → CANCELLING.
 * 2. `$root` SUCCEEDED → SUCCEEDED with its output; `$root` FAILED → FAILED.
 * 3. a TASK/POLL ACTIVE, or a pending advance → RUNNING.
 * 4. a NEEDS_REVIEW leaf → NEEDS_REVIEW (an unknown effect holds the instance, E4.6).
 * 5. otherwise only waits are in flight → WAITING (a pure-wait workflow).
 */
export function toInstanceStatus(input: InstanceStatusInput): InstanceStatusResult {
  const root = input.steps.get(ROOT_STEP_ID);
  if (root === undefined) {
    throw new RangeError('the round has no $root step');
  }
  const leaves = [...input.steps.values()].filter((step) => LEAF_KINDS.has(step.kind));
  const inFlight = input.pendingAdvance || leaves.some(isInFlight);
  if (input.ending !== null && !inFlight) {
    return ended(input.ending);
  }
  if (input.ending === 'CANCELLED') {
    // A cancel waits for its in-flight work to settle (E4.6).
    return active('CANCELLING');
  }
  if (root.status === 'SUCCEEDED') {
    return root.output === undefined
      ? ended('SUCCEEDED')
      : { ...ended('SUCCEEDED'), output: root.output };
  }
  if (root.status === 'FAILED') {
    return ended('FAILED');
  }
  if (root.status === 'CANCELLED') {
    // Storage cancels `$root` only while ending an instance (§4.2), which step 1 answered.
    throw new RangeError('$root is CANCELLED but the instance has no ending or work in flight');
  }
  if (input.pendingAdvance || leaves.some(isRunningWork)) {
    return active('RUNNING');
  }
  if (leaves.some((step) => step.status === 'NEEDS_REVIEW')) {
    return active('NEEDS_REVIEW');
  }
  return active('WAITING');
}

/** The step kinds that run work or wait (the others are composites and `$root`). */
export const LEAF_KINDS: ReadonlySet<string> = new Set(['TASK', 'POLL', 'SIGNAL', 'TIMER']);

/** engine.md "Statuses by kind", column "in flight", for leaves. */
function isInFlight(step: StepState): boolean {
  return isRunningWork(step) || step.status === 'NEEDS_REVIEW' || step.status === 'WAITING';
}

function isRunningWork(step: StepState): boolean {
  return (step.kind === 'TASK' || step.kind === 'POLL') && step.status === 'ACTIVE';
}

function ended(status: InstanceStatus): InstanceStatusResult {
  return { status, terminal: (TERMINAL_INSTANCE_STATUSES as readonly string[]).includes(status) };
}

function active(status: InstanceStatus): InstanceStatusResult {
  return { status, terminal: false };
}
