/**
 * Task results → leaf settlements (runtime.md §3.2 "Checks per row" and engine.md "What storage
 * itself does"): each inbox row is checked (E2.4: a malformed row is QUARANTINED, never
 * executed; E1.7: a result of an old activation or round is STALE, recorded and never applied)
 * and the rest settle their step. Pure: the rows in, the settlements out.
 */
import { isJsonObject, parse } from '@weave/json';
import type { JsonValue } from '@weave/json';
import { EngineError } from '@weave/engine';
import type { Program, StepState } from '@weave/engine';
import type { Micros } from '../../store/values.js';
import type { Activation, InboxEvent, PollRound, StepRow, Wait } from '../model/rows.js';
import type { WaitPurpose } from '../model/states.js';
import { SIGNAL_RECEIVED } from '../signals/signal-snapshot.js';
import { settleSignalRow } from '../signals/settle-signal.js';

export type RowOutcome =
  | { readonly kind: 'APPLIED' }
  | { readonly kind: 'STALE'; readonly reason: string }
  | { readonly kind: 'QUARANTINED'; readonly code: string };

export interface Settlements {
  readonly outcomes: ReadonlyMap<string, RowOutcome>;
  /** New states of settled leaves, by step id. */
  readonly states: ReadonlyMap<string, StepState>;
  readonly errors: ReadonlyMap<string, { readonly code: string; readonly message: string }>;
  readonly activations: readonly {
    readonly id: string;
    readonly status: string;
    readonly lastTaskRevision: bigint;
  }[];
  /** POLL rounds to schedule (a PENDING classification with rounds and time left). */
  readonly nextRounds: readonly {
    readonly activationId: string;
    readonly number: number;
    readonly dueAt: Micros;
  }[];
  readonly roundsDone: readonly { readonly id: string; readonly classification: string }[];
  /** Due waits closed: FIRED (TIMER) or EXPIRED; `stepId` when they settled their step. */
  readonly closedWaits: readonly ClosedWait[];
  /** Rounds of a POLL whose deadline passed: CANCELLED (and their tasks cancelled). */
  readonly cancelledRounds: readonly string[];
  /** Tasks to cancel: a running query task of a POLL whose deadline passed. */
  readonly cancelTasks: readonly string[];
  /** Activations this round settled for good (not a PENDING POLL): their waits close. */
  readonly settled: ReadonlySet<string>;
}

export interface ClosedWait {
  readonly id: string;
  readonly purpose: WaitPurpose;
  readonly state: 'FIRED' | 'EXPIRED';
  readonly stepId: string | null;
}

/** The codes a wait deadline fails its step with (docs/definitions.md "Failure"). */
export const SIGNAL_TIMEOUT = 'signal_timeout';
export const POLL_DEADLINE = 'poll_deadline';

interface Frozen {
  readonly status: string;
  readonly result?: JsonValue;
  readonly error?: { readonly code: string; readonly message: string };
}

/** E2.5: a row without its frozen source (a field or the snapshot missing) never executes. */
export const LEGACY_RESULT_UNVERIFIED = 'LEGACY_RESULT_UNVERIFIED';
/** E2.4: a snapshot that is not a schema_version 1 object naming the row's own task. */
export const SNAPSHOT_INVALID = 'SNAPSHOT_INVALID';

function hasFrozenSource(row: InboxEvent): boolean {
  return (
    row.snapshot !== null &&
    row.sourceTaskId !== null &&
    row.sourceActivationId !== null &&
    row.sourceRevision !== null &&
    row.sourceRevision > 0n
  );
}

/** E2.4: the snapshot is a schema_version 1 object naming the row's own task. */
function readSnapshot(row: InboxEvent): Frozen | undefined {
  if (row.snapshot === null || row.knownType === null) {
    return undefined;
  }
  let value: JsonValue;
  try {
    value = parse(row.snapshot);
  } catch {
    return undefined;
  }
  if (!isJsonObject(value) || value.get('task_id') !== row.sourceTaskId) {
    return undefined;
  }
  const version = value.get('schema_version');
  const status = value.get('status');
  if (!(isJsonNumberOne(version) && typeof status === 'string')) {
    return undefined;
  }
  const error = value.get('error');
  const code = isJsonObject(error) ? error.get('code') : undefined;
  const message = isJsonObject(error) ? error.get('message') : undefined;
  const result = value.get('result');
  return {
    status,
    ...(result === undefined ? {} : { result }),
    ...(typeof code === 'string'
      ? { error: { code, message: typeof message === 'string' ? message : '' } }
      : {}),
  };
}

function isJsonNumberOne(v: JsonValue | undefined): boolean {
  return (
    typeof v === 'object' && v !== null && 'kind' in v && v.kind === 'number' && v.text === '1'
  );
}

export interface SettleInput {
  readonly program: Program;
  readonly terminal: boolean;
  readonly now: Micros;
  readonly rows: readonly InboxEvent[];
  readonly steps: readonly StepRow[];
  readonly activations: readonly Activation[];
  /** WAITING waits of the instance that are due (DB time), every purpose. */
  readonly dueWaits?: readonly Wait[];
  /** SCHEDULED and RUNNING poll rounds of the instance. */
  readonly openRounds?: readonly PollRound[];
}

export function settleResults(input: SettleInput): Settlements {
  const stepsById = new Map(input.steps.map((s) => [s.id, s]));
  const activations = new Map(input.activations.map((a) => [a.id, a]));
  const out = {
    outcomes: new Map<string, RowOutcome>(),
    states: new Map<string, StepState>(),
    errors: new Map<string, { code: string; message: string }>(),
    activations: [] as { id: string; status: string; lastTaskRevision: bigint }[],
    nextRounds: [] as { activationId: string; number: number; dueAt: Micros }[],
    roundsDone: [] as { id: string; classification: string }[],
    closedWaits: [] as ClosedWait[],
    cancelledRounds: [] as string[],
    cancelTasks: [] as string[],
    settled: new Set<string>(),
  };
  // Activations a row or a wait of this batch already decided (a second one is stale).
  const settledActivations = new Set<string>();
  const signal = {
    terminal: input.terminal,
    stepsById,
    activations,
    openRounds: input.openRounds ?? [],
    settled: settledActivations,
    bySignal: new Set<string>(),
    out,
  };
  for (const row of input.rows) {
    if (row.type === SIGNAL_RECEIVED) {
      out.outcomes.set(row.id, settleSignalRow(signal, row));
      continue;
    }
    const frozen = hasFrozenSource(row) ? readSnapshot(row) : undefined;
    if (frozen === undefined) {
      const code = hasFrozenSource(row) ? SNAPSHOT_INVALID : LEGACY_RESULT_UNVERIFIED;
      out.outcomes.set(row.id, { kind: 'QUARANTINED', code });
      continue;
    }
    const activation = activations.get(row.sourceActivationId ?? '');
    const step = activation === undefined ? undefined : stepsById.get(activation.stepRowId);
    const stale = staleReason(input, row, activation, step, settledActivations);
    if (stale !== undefined || activation === undefined || step === undefined) {
      const late = finalSignalFirst(input, row, signal.bySignal);
      out.outcomes.set(row.id, {
        kind: 'STALE',
        reason: late ? FINAL_SIGNAL_FIRST : (stale ?? 'no_activation'),
      });
      continue;
    }
    settledActivations.add(activation.id);
    settleOne(input, out, { row, frozen, activation, step });
    out.outcomes.set(row.id, { kind: 'APPLIED' });
  }
  closeDueWaits(input, out, { stepsById, activations, settled: settledActivations });
  for (const a of out.activations) {
    if (a.status !== 'ACTIVE') {
      out.settled.add(a.id);
    }
  }
  return out;
}

/**
 * Due waits (runtime.md §4.2), once each, if their activation is still current: a TIMER settles
 * its step SUCCEEDED with output null (engine.md); a SIGNAL's deadline fails it `signal_timeout`;
 * a POLL's deadline fails it `poll_deadline` and cancels its open round and that round's task
 * (E4.5: neither its rounds nor its tasks' retries extend it). A wait that is no longer current
 * is just closed.
 */
function closeDueWaits(
  input: SettleInput,
  out: Out & { closedWaits: ClosedWait[]; cancelledRounds: string[]; cancelTasks: string[] },
  at: {
    stepsById: ReadonlyMap<string, StepRow>;
    activations: ReadonlyMap<string, Activation>;
    settled: Set<string>;
  },
): void {
  for (const wait of input.dueWaits ?? []) {
    const activation = at.activations.get(wait.activationId);
    const step = at.stepsById.get(wait.stepRowId);
    const current =
      !input.terminal &&
      activation !== undefined &&
      step !== undefined &&
      step.currentActivationId === activation.id &&
      (step.status === 'WAITING' || step.status === 'ACTIVE') &&
      !at.settled.has(activation.id);
    const state = wait.purpose === 'TIMER' ? 'FIRED' : 'EXPIRED';
    out.closedWaits.push({
      id: wait.id,
      purpose: wait.purpose,
      state,
      stepId: current ? (step?.stepId ?? null) : null,
    });
    if (!current || step === undefined || activation === undefined) {
      continue;
    }
    at.settled.add(activation.id);
    const finish = (status: 'SUCCEEDED' | 'FAILED', state: StepState) => {
      out.states.set(step.stepId, state);
      out.activations.push({
        id: activation.id,
        status,
        lastTaskRevision: activation.lastTaskRevision,
      });
    };
    if (wait.purpose === 'TIMER') {
      finish('SUCCEEDED', { kind: 'TIMER', status: 'SUCCEEDED', output: null });
    } else if (wait.purpose === 'SIGNAL') {
      out.errors.set(step.stepId, {
        code: SIGNAL_TIMEOUT,
        message: 'no matching signal arrived before the wait deadline',
      });
      finish('FAILED', { kind: 'SIGNAL', status: 'FAILED' });
    } else {
      out.errors.set(step.stepId, {
        code: POLL_DEADLINE,
        message: 'the POLL deadline passed before a final answer',
      });
      finish('FAILED', { kind: 'POLL', status: 'FAILED' });
      for (const round of input.openRounds ?? []) {
        if (round.activationId === activation.id) {
          out.cancelledRounds.push(round.id);
          if (round.state === 'RUNNING' && round.taskId !== null) {
            out.cancelTasks.push(round.taskId);
          }
        }
      }
    }
  }
}

/** The stale reason of a POLL's query result that lost to its final signal (E4.5). */
export const FINAL_SIGNAL_FIRST = 'final_signal_first';

/**
 * E4.5: a query's own answer (not the cancellation the signal caused) for a POLL that its final
 * signal completed, in this batch or an earlier one: recorded as `result.late`.
 */
function finalSignalFirst(
  input: SettleInput,
  row: InboxEvent,
  bySignal: ReadonlySet<string>,
): boolean {
  const activationId = row.sourceActivationId;
  if (activationId === null || row.sourceRoundId === null || row.type === 'task.cancelled') {
    return false;
  }
  return (
    bySignal.has(activationId) ||
    input.steps.some(
      (s) => s.currentActivationId === activationId && s.completedBy === 'FINAL_SIGNAL',
    )
  );
}

/** E1.7: a result of an old activation, an old round or an older revision is never applied. */
function staleReason(
  input: SettleInput,
  row: InboxEvent,
  activation: Activation | undefined,
  step: StepRow | undefined,
  settled: ReadonlySet<string>,
): string | undefined {
  if (input.terminal) {
    return 'instance_ended';
  }
  if (activation === undefined || step === undefined) {
    return 'activation_not_in_flight';
  }
  if (step.currentActivationId !== activation.id || settled.has(activation.id)) {
    return 'activation_not_current';
  }
  if (activation.kind === 'TASK' && activation.taskId !== row.sourceTaskId) {
    return 'task_not_current';
  }
  if (activation.kind === 'POLL' && activation.poll?.currentRoundId !== row.sourceRoundId) {
    return 'round_not_current';
  }
  if ((row.sourceRevision ?? 0n) <= activation.lastTaskRevision) {
    return 'older_revision';
  }
  return undefined;
}

type Out = {
  states: Map<string, StepState>;
  errors: Map<string, { code: string; message: string }>;
  activations: { id: string; status: string; lastTaskRevision: bigint }[];
  nextRounds: { activationId: string; number: number; dueAt: Micros }[];
  roundsDone: { id: string; classification: string }[];
};

function settleOne(
  input: SettleInput,
  out: Out,
  at: { row: InboxEvent; frozen: Frozen; activation: Activation; step: StepRow },
): void {
  const { row, frozen, activation, step } = at;
  const revision = row.sourceRevision ?? 0n;
  const finish = (status: string, state: StepState) => {
    out.states.set(step.stepId, state);
    out.activations.push({ id: activation.id, status, lastTaskRevision: revision });
  };
  const failed = (status: 'FAILED' | 'CANCELLED' | 'NEEDS_REVIEW') => {
    const error = frozen.error ?? { code: status.toLowerCase(), message: '' };
    // A query task ended by its deadline at the POLL's: the POLL's time ran out (E4.5).
    const pollTime = activation.poll !== null && activation.poll.deadlineAt <= input.now;
    out.errors.set(
      step.stepId,
      pollTime && status === 'FAILED' && error.code === 'deadline_exceeded'
        ? { code: POLL_DEADLINE, message: 'the POLL deadline passed before a final answer' }
        : error,
    );
    finish(status, { kind: step.kind, status });
  };
  if (frozen.status !== 'SUCCEEDED') {
    failed(
      frozen.status === 'CANCELLED'
        ? 'CANCELLED'
        : frozen.status === 'NEEDS_REVIEW'
          ? 'NEEDS_REVIEW'
          : 'FAILED',
    );
    if (activation.kind === 'POLL' && row.sourceRoundId !== null) {
      out.roundsDone.push({ id: row.sourceRoundId, classification: frozen.status });
    }
    return;
  }
  const result = frozen.result ?? null;
  if (activation.kind !== 'POLL') {
    finish('SUCCEEDED', { kind: step.kind, status: 'SUCCEEDED', output: result });
    return;
  }
  settlePoll(input, out, { ...at, result, finish });
}

function settlePoll(
  input: SettleInput,
  out: Out,
  at: {
    row: InboxEvent;
    activation: Activation;
    step: StepRow;
    result: JsonValue;
    finish: (status: string, state: StepState) => void;
  },
): void {
  const { row, activation, step, result, finish } = at;
  let classification: string;
  try {
    classification = input.program.classifyPoll(step.stepId, result);
  } catch (e: unknown) {
    // E3.14: an unknown value or type holds the POLL for an operator, with the error recorded.
    const message = e instanceof EngineError ? e.message : 'the query result cannot be classified';
    out.errors.set(step.stepId, { code: 'poll_unclassified', message });
    classification = 'NEEDS_REVIEW';
  }
  out.roundsDone.push({ id: row.sourceRoundId ?? '', classification });
  if (classification === 'SUCCEEDED') {
    finish('SUCCEEDED', {
      kind: 'POLL',
      status: 'SUCCEEDED',
      output: result,
      completedBy: 'QUERY',
    });
  } else if (classification === 'FAILED' || classification === 'NEEDS_REVIEW') {
    out.errors.set(
      step.stepId,
      out.errors.get(step.stepId) ?? { code: 'poll_failed', message: '' },
    );
    finish(classification, { kind: 'POLL', status: classification });
  } else if (step.cancelRequested) {
    // Told to stop (a failing scope, a cancel, the deadline) while its query ran: a PENDING
    // answer ends it CANCELLED, as a cancelled query task would, rather than another round.
    out.errors.set(step.stepId, { code: 'cancelled', message: 'the POLL was cancelled' });
    finish('CANCELLED', { kind: 'POLL', status: 'CANCELLED' });
  } else {
    const poll = activation.poll;
    const due = input.now + (poll?.intervalUs ?? 0n);
    if (poll !== null && poll.usedRounds < poll.maxRounds && due < poll.deadlineAt) {
      out.nextRounds.push({ activationId: activation.id, number: poll.usedRounds + 1, dueAt: due });
      out.activations.push({
        id: activation.id,
        status: 'ACTIVE',
        lastTaskRevision: row.sourceRevision ?? 0n,
      });
    } else {
      const code =
        poll !== null && poll.usedRounds >= poll.maxRounds ? 'poll_max_rounds' : 'poll_deadline';
      out.errors.set(step.stepId, {
        code,
        message: 'the POLL ran out of rounds or time while pending',
      });
      finish('FAILED', { kind: 'POLL', status: 'FAILED' });
    }
  }
}
