/**
 * History entries and the failure cause of a planning round, for Start and every runner round
 * (runtime.md §4.5): one entry per decision, `instance.<status>` when the round ends the
 * instance, and the cause a FAILED instance reports (Deliver 7).
 */
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
 * rule, else the leaf the round settled as failed (a task's own code and message), never the
 * `child_failed` of the composites above it unless nothing else is known.
 */
export function causeOf(
  decisions: readonly Decision[],
  leaves: readonly Cause[] = [],
): Cause | undefined {
  const fails = decisions.filter((d): d is FailDecision => d.kind === 'FAIL');
  const own = fails.find((d) => d.error.code !== 'child_failed' && d.error.code !== 'aborted');
  const [leaf] = leaves;
  const cause = own ?? fails[fails.length - 1];
  if (own === undefined && leaf !== undefined) {
    return leaf;
  }
  return cause === undefined
    ? undefined
    : { code: cause.error.code, message: cause.error.message, stepId: cause.stepId };
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
