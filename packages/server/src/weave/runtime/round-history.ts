/**
 * History entries and the failure cause of a planning round, for Start and every runner round
 * (runtime.md §4.5): one entry per decision, `instance.<status>` when the round ends the
 * instance, and the cause a FAILED instance reports (Deliver 7).
 */
import { ROOT_STEP_ID } from '@weave/engine';
import type { Decision, FailDecision } from '@weave/engine';
import type { InstanceStatusResult } from '../model/instance-status.js';
import type { HistoryEntry } from './history.js';

export interface Cause {
  readonly code: string;
  readonly message: string;
  readonly stepId: string;
}

/**
 * The cause a FAILED instance reports (Deliver 7): the failure of the step whose data broke a
 * rule, else the leaf found by following `child_failed` down from `$root` — through this round's
 * FAIL decisions to a leaf this round settled (`leaves`) or one that failed in an earlier round
 * (`earlier`, from the step rows: a failure whose running sibling settled later, E4.6) — else
 * the leaf this round settled, never the `child_failed` of the composites above it unless
 * nothing else is known.
 */
export function causeOf(
  decisions: readonly Decision[],
  leaves: readonly Cause[] = [],
  earlier: readonly Cause[] = [],
): Cause | undefined {
  const fails = decisions.filter((d): d is FailDecision => d.kind === 'FAIL');
  const own = fails.find((d) => d.error.code !== 'child_failed' && d.error.code !== 'aborted');
  const [leaf] = leaves;
  const cause = own ?? fails[fails.length - 1];
  if (own === undefined) {
    const found = followFailure(fails, [...leaves, ...earlier]);
    if (found !== undefined) {
      return found;
    }
  }
  if (own === undefined && leaf !== undefined) {
    return leaf;
  }
  return cause === undefined
    ? undefined
    : { code: cause.error.code, message: cause.error.message, stepId: cause.stepId };
}

/** From `$root`'s FAIL down its `child_failed` chain to a step failed outside this round. */
function followFailure(fails: readonly FailDecision[], known: readonly Cause[]): Cause | undefined {
  const failing = new Map(fails.map((d) => [d.stepId, d]));
  const settled = new Map(known.map((c) => [c.stepId, c]));
  let at = failing.get(ROOT_STEP_ID);
  for (let hop = 0; at !== undefined && hop <= fails.length; hop++) {
    const child = at.error.code === 'child_failed' ? at.error.stepId : undefined;
    if (child === undefined) {
      return undefined;
    }
    at = failing.get(child);
    if (at === undefined) {
      return settled.get(child);
    }
  }
  return undefined;
}

/** `instance.admitted` at revision 1, then one entry per decision at 2 (A2.9), then the end. */
export function roundHistory(
  decisions: readonly Decision[],
  status: InstanceStatusResult,
  revision: bigint,
): HistoryEntry[] {
  return [
    ...decisions.map((d) => historyOfDecision(d, revision)),
    ...(status.terminal ? [{ type: `instance.${status.status.toLowerCase()}`, revision }] : []),
  ];
}

function historyOfDecision(d: Decision, revision: bigint): HistoryEntry {
  const type =
    d.kind === 'ACTIVATE'
      ? 'step.activated'
      : d.kind === 'COMPLETE'
        ? 'step.completed'
        : d.kind === 'SKIP'
          ? 'step.skipped'
          : d.kind === 'FAIL'
            ? 'step.failed'
            : 'step.cancel_requested';
  const details =
    d.kind === 'FAIL'
      ? { code: d.error.code, message: d.error.message }
      : d.kind === 'ACTIVATE' && d.node === 'BRANCH'
        ? { case_index: d.caseIndex }
        : undefined;
  return { type, revision, stepId: d.stepId, ...(details === undefined ? {} : { details }) };
}
