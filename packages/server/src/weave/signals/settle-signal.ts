/**
 * A `signal.received` inbox row → its leaf (docs/design/signals.md §5): checked like a task
 * result (E2.4: a row without its source activation or with a snapshot that is not a
 * schema_version 1 signal is QUARANTINED, never executed), then applied if its activation is
 * current and still open — a SIGNAL step SUCCEEDS with the payload; a POLL SUCCEEDS with
 * `completed_by = FINAL_SIGNAL` and the payload, its open round CANCELLED and that round's query
 * task cancelled, as the POLL deadline does. A signal whose activation was already decided (the
 * POLL's final query came first, E4.5) is STALE: `signal.late` in the history, never applied.
 * Pure: called by settle-results.ts with the round's accumulators.
 */
import type { StepState } from '@weave/engine';
import type { Micros } from '../../store/values.js';
import type { Activation, InboxEvent, PollRound, StepRow } from '../model/rows.js';
import { readSignalSnapshot } from './signal-snapshot.js';

export type SignalRowOutcome =
  | { readonly kind: 'APPLIED' }
  | { readonly kind: 'STALE'; readonly reason: string }
  | { readonly kind: 'QUARANTINED'; readonly code: string };

export interface SignalSettleState {
  readonly terminal: boolean;
  readonly stepsById: ReadonlyMap<string, StepRow>;
  readonly activations: ReadonlyMap<string, Activation>;
  readonly openRounds: readonly PollRound[];
  /** Activations decided earlier in this batch (a result, a signal). */
  readonly settled: Set<string>;
  /** Activations a signal decided in this batch (a later query result is `result.late`). */
  readonly bySignal: Set<string>;
  readonly out: {
    readonly states: Map<string, StepState>;
    readonly activations: { id: string; status: string; lastTaskRevision: bigint }[];
    readonly nextRounds: { activationId: string; number: number; dueAt: Micros }[];
    readonly roundsDone: { id: string; classification: string }[];
    readonly cancelledRounds: string[];
    readonly cancelTasks: string[];
  };
}

export function settleSignalRow(at: SignalSettleState, row: InboxEvent): SignalRowOutcome {
  if (row.sourceActivationId === null || row.snapshot === null) {
    return { kind: 'QUARANTINED', code: 'LEGACY_RESULT_UNVERIFIED' };
  }
  const frozen = readSignalSnapshot(row.snapshot, row.eventId);
  if (frozen === undefined) {
    return { kind: 'QUARANTINED', code: 'SNAPSHOT_INVALID' };
  }
  const activation = at.activations.get(row.sourceActivationId);
  const step = activation === undefined ? undefined : at.stepsById.get(activation.stepRowId);
  const reason = staleReason(at, activation, step);
  if (reason !== undefined || activation === undefined || step === undefined) {
    return { kind: 'STALE', reason: reason ?? 'activation_not_current' };
  }
  at.settled.add(activation.id);
  at.bySignal.add(activation.id);
  const { out } = at;
  // A PENDING query earlier in this batch kept the POLL open: its revision is the one to keep.
  const earlier = out.activations.filter((a) => a.id === activation.id).at(-1);
  out.activations.push({
    id: activation.id,
    status: 'SUCCEEDED',
    lastTaskRevision: earlier?.lastTaskRevision ?? activation.lastTaskRevision,
  });
  if (activation.kind === 'SIGNAL') {
    out.states.set(step.stepId, { kind: 'SIGNAL', status: 'SUCCEEDED', output: frozen.payload });
    return { kind: 'APPLIED' };
  }
  out.states.set(step.stepId, {
    kind: 'POLL',
    status: 'SUCCEEDED',
    output: frozen.payload,
    completedBy: 'FINAL_SIGNAL',
  });
  closePoll(at, activation.id);
  return { kind: 'APPLIED' };
}

function staleReason(
  at: SignalSettleState,
  activation: Activation | undefined,
  step: StepRow | undefined,
): string | undefined {
  if (at.terminal) {
    return 'instance_ended';
  }
  if (activation === undefined || step === undefined) {
    return 'activation_not_current';
  }
  if (activation.kind !== 'SIGNAL' && activation.kind !== 'POLL') {
    return 'activation_not_current';
  }
  if (step.currentActivationId !== activation.id) {
    return 'activation_not_current';
  }
  if (
    at.out.states.has(step.stepId) ||
    (at.settled.has(activation.id) && !isPending(at, activation))
  ) {
    return activation.kind === 'POLL' ? 'query_result_first' : 'activation_not_current';
  }
  if (step.status !== 'WAITING' && step.status !== 'ACTIVE') {
    return 'activation_not_current';
  }
  return undefined;
}

/** A POLL whose query in this batch was PENDING is still open (its next round is only planned). */
function isPending(at: SignalSettleState, activation: Activation): boolean {
  return at.out.nextRounds.some((r) => r.activationId === activation.id);
}

/** The POLL's next planned round is dropped, its open round and running query cancelled. */
function closePoll(at: SignalSettleState, activationId: string): void {
  const { out } = at;
  for (let i = out.nextRounds.length - 1; i >= 0; i--) {
    if (out.nextRounds[i]?.activationId === activationId) {
      out.nextRounds.splice(i, 1);
    }
  }
  const done = new Set(out.roundsDone.map((r) => r.id));
  for (const round of at.openRounds) {
    if (round.activationId !== activationId || done.has(round.id)) {
      continue;
    }
    out.cancelledRounds.push(round.id);
    if (round.state === 'RUNNING' && round.taskId !== null) {
      out.cancelTasks.push(round.taskId);
    }
  }
}
