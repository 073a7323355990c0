/**
 * The consumer transaction of one instance (runtime.md §3.2, seed 000 §2): lock the instance
 * (the per-instance mutex; SKIP LOCKED: another node has it), take its pending inbox rows and
 * its pending advance and what its clock has made due (waits, POLL rounds, the instance
 * deadline: runtime.md §4.2, DB time), settle the leaves these decide, plan one round (≤ 32
 * changes), persist the decisions, ack the rows — all in the caller's one transaction (E4.2). A
 * rollback leaves every row pending, and the same persisted state plans the same round again
 * (E4.3).
 */
import { parse } from '@weave/json';
import { sql } from 'kysely';
import { ROOT_STEP_ID, applyDecisions } from '@weave/engine';
import type { ActivateDecision, Snapshot, StepState } from '@weave/engine';
import { shaped } from '../../store/statement-shapes.js';
import type { Tx } from '../../store/with-tx.js';
import { LEAF_KINDS, toInstanceStatus } from '../model/instance-status.js';
import { TERMINAL_INSTANCE_STATUSES } from '../model/states.js';
import type { InstanceEnding } from '../model/states.js';
import type { Activation, Instance, PollRound, StepRow, Wait } from '../model/rows.js';
import {
  toActivation,
  toInboxEvent,
  toInstance,
  toPollRound,
  toStepRow,
  toWait,
} from '../model/rows.js';
import { toSnapshot, toStepWrites } from '../model/snapshot-rows.js';
import { activateWork } from './activate-work.js';
import {
  cancelOpenTasks,
  cancelRounds,
  executeLeafCancels,
  planLeafCancels,
} from './cancel-leaves.js';
import type { LeafCancels } from './cancel-leaves.js';
import { ackRows, finishInstance } from './finish-round.js';
import type { HistoryEntry } from './history.js';
import { causeOf, roundHistory } from './round-history.js';
import { insertPendingAdvance } from './pending-advance.js';
import { persistRound } from './persist-round.js';
import { pinnedProgram } from './pinned-program.js';
import type { PinnedProgram } from './pinned-program.js';
import { ProgramCache } from './program-cache.js';
import { dueRoundActions, startPollRounds } from './poll-rounds.js';
import { settleResults } from './settle-results.js';
import type { Settlements } from './settle-results.js';
import { SIGNAL_RECEIVED } from '../signals/signal-snapshot.js';
import { rowHistoryType } from './row-history.js';

const ROUND_LIMIT = 32;

/** The history entry of a due wait that settled its step (runtime.md §4.5). */
const WAIT_HISTORY = {
  TIMER: 'timer.fired',
  SIGNAL: 'wait.expired',
  POLL_SIGNAL: 'poll.deadline',
  POLL_DEADLINE: 'poll.deadline',
} as const;
const MAX_ROWS = 256;
/** The activations and POLL rounds a round reads: those still open. */
const OPEN_ACTIVATIONS = ['ACTIVE', 'WAITING', 'NEEDS_REVIEW'] as const;
const OPEN_ROUNDS = ['SCHEDULED', 'RUNNING'] as const;

export interface InstanceRef {
  readonly namespaceId: string;
  readonly instanceId: string;
}

/** What the transaction did; `queues` are the queues that got new tasks (wake their claims). */
export interface Consumed {
  readonly rows: number;
  readonly advanced: boolean;
  readonly queueIds: readonly string[];
}

const NOTHING: Consumed = { rows: 0, advanced: false, queueIds: [] };

/**
 * An operator control that asks for a round now (docs/design/controls.md): the caller has locked
 * the instance and changed its control fields; the round runs even with nothing due, writes the
 * control's history entries with its own revision, and — for a cancel — takes `closing` as the
 * instance's ending, telling every leaf in flight to stop (as the deadline does).
 */
export interface RoundControl {
  readonly entries: readonly Omit<HistoryEntry, 'revision'>[];
  readonly closing?: InstanceEnding;
}

export async function consumeInstance(
  tx: Tx,
  ref: InstanceRef,
  programs: ProgramCache = new ProgramCache(1),
  control?: RoundControl,
): Promise<Consumed> {
  const { namespaceId, instanceId } = ref;
  const [[locked]] = await tx.readAll(
    shaped(tx.db, 'instance to consume', [namespaceId, instanceId], () =>
      tx.dialect.forUpdateSkipLocked(
        tx.db
          .selectFrom('weave_instances')
          .selectAll()
          .where('namespace_id', '=', namespaceId)
          .where('id', '=', instanceId),
      ),
    ),
  );
  if (locked === undefined) {
    return NOTHING;
  }
  const instance = toInstance(locked);
  const ids = [namespaceId, instanceId] as const;
  const [inboxRows, advances, stepRows, activationRows, waitRows, roundRows] = await tx.readAll(
    shaped(tx.db, 'inbox to consume', [...ids, 'PENDING', tx.now, MAX_ROWS], () =>
      tx.db
        .selectFrom('weave_inbox')
        .selectAll()
        .where('namespace_id', '=', namespaceId)
        .where('instance_id', '=', instanceId)
        .where('state', '=', 'PENDING')
        // `+ 0`: SQLite would otherwise read every pending row of every instance through
        // ix_weave_inbox_scan (state, available_at) and sort them, instead of this instance's rows
        // through ix_weave_inbox_instance (docs/design/hot-path.md §9).
        .where(sql<bigint>`available_at + 0`, '<=', tx.now)
        // E4.5: by reliable admission time, then id (a POLL's final signal vs its final query).
        .orderBy('created_at')
        .orderBy('id')
        .limit(MAX_ROWS),
    ),
    shaped(tx.db, 'advances to consume', [...ids], () =>
      tx.db
        .selectFrom('weave_pending_advances')
        .select('id')
        .where('namespace_id', '=', namespaceId)
        .where('instance_id', '=', instanceId),
    ),
    shaped(tx.db, 'steps to consume', [...ids], () =>
      tx.db
        .selectFrom('weave_steps')
        .selectAll()
        .where('namespace_id', '=', namespaceId)
        .where('instance_id', '=', instanceId),
    ),
    shaped(tx.db, 'activations to consume', [...ids, ...OPEN_ACTIVATIONS], () =>
      tx.db
        .selectFrom('weave_activations')
        .selectAll()
        .where('namespace_id', '=', namespaceId)
        .where('instance_id', '=', instanceId)
        .where('status', 'in', [...OPEN_ACTIVATIONS]),
    ),
    shaped(tx.db, 'waits to consume', [...ids, 'WAITING', tx.now], () =>
      tx.db
        .selectFrom('weave_waits')
        .selectAll()
        .where('namespace_id', '=', namespaceId)
        .where('instance_id', '=', instanceId)
        .where('state', '=', 'WAITING')
        .where('due_at', '<=', tx.now),
    ),
    shaped(tx.db, 'rounds to consume', [...ids, ...OPEN_ROUNDS], () =>
      tx.db
        .selectFrom('weave_poll_rounds')
        .selectAll()
        .where('namespace_id', '=', namespaceId)
        .where('instance_id', '=', instanceId)
        .where('state', 'in', [...OPEN_ROUNDS]),
    ),
  );
  const terminal = (TERMINAL_INSTANCE_STATUSES as readonly string[]).includes(instance.status);
  const openRounds = roundRows.map(toPollRound);
  const clock = {
    deadline: !terminal && instance.ending === null && instance.deadlineAt <= tx.now,
    waits: waitRows.map(toWait),
    // A paused instance starts no round: its due rounds wait for the resume (E4.4).
    rounds: instance.paused
      ? []
      : openRounds.filter((r) => r.state === 'SCHEDULED' && r.dueAt <= tx.now),
  };
  if (
    control === undefined &&
    inboxRows.length === 0 &&
    advances.length === 0 &&
    clock.waits.length === 0 &&
    clock.rounds.length === 0 &&
    !clock.deadline
  ) {
    return NOTHING;
  }
  const program = await pinnedProgram(tx, instance, programs);
  if (
    control === undefined &&
    program.disabled &&
    inboxRows.length === 0 &&
    advances.length === 0 &&
    !clock.deadline
  ) {
    // A5.2: a disabled application's waits and rounds wait for it; its deadline does not.
    return NOTHING;
  }
  const steps = stepRows.map(toStepRow).sort((a, b) => a.position - b.position);
  const activations = activationRows.map(toActivation);
  const settlements = settleResults({
    program: program.program,
    terminal,
    now: tx.now,
    rows: inboxRows.map(toInboxEvent),
    steps,
    activations,
    dueWaits: program.disabled ? [] : clock.waits,
    openRounds,
  });
  reportFiredTimers(tx, namespaceId, clock.waits, settlements.closedWaits);
  if (advances.length > 0) {
    await tx.write(
      tx.db
        .deleteFrom('weave_pending_advances')
        .where('namespace_id', '=', namespaceId)
        .where('instance_id', '=', instanceId),
    );
  }
  const revision = instance.revision + 1n;
  const entries: HistoryEntry[] = [
    ...(control?.entries ?? []).map((entry) => ({ ...entry, revision })),
    ...rowHistory(inboxRows.map(toInboxEvent), settlements, revision),
    ...settlements.closedWaits.flatMap((w) =>
      w.stepId === null ? [] : [{ type: WAIT_HISTORY[w.purpose], revision, stepId: w.stepId }],
    ),
    ...leafHistory(settlements, revision),
  ];
  if (terminal) {
    await persistRound(tx, { ref, writes: [], settlements, failed: [] });
    await cancelOpenTasks(tx, namespaceId, settlements.cancelTasks);
    await ackRows(tx, namespaceId, settlements);
    await finishInstance(tx, instance, {
      revision,
      entries,
      activated: [],
      workflow: program.workflow,
    });
    return { rows: inboxRows.length, advanced: false, queueIds: [] };
  }
  return planAndPersist(tx, {
    instance,
    program,
    steps,
    activations,
    openRounds,
    dueRounds: clock.rounds,
    // The deadline decides first: a cancel arriving after it finds the instance TIMED_OUT.
    closing: clock.deadline ? 'TIMED_OUT' : (control?.closing ?? null),
    settlements,
    revision,
    entries,
    rows: inboxRows.length,
  });
}

const LEAF_HISTORY: Partial<Record<StepState['status'], string>> = {
  SUCCEEDED: 'step.completed',
  NEEDS_REVIEW: 'step.needs_review',
  CANCELLED: 'step.cancelled',
  FAILED: 'step.failed',
};

/** The leaves the round settled: `step.completed` / `.failed` (code) / `.needs_review` / `.cancelled`. */
function leafHistory(settlements: Settlements, revision: bigint): HistoryEntry[] {
  return [...settlements.states].map(([stepId, state]) => {
    const error = settlements.errors.get(stepId);
    return {
      type: LEAF_HISTORY[state.status] ?? 'step.failed',
      revision,
      stepId,
      ...(error === undefined || state.status === 'SUCCEEDED'
        ? {}
        : { details: { code: error.code, message: error.message } }),
    };
  });
}

function rowHistory(
  rows: readonly ReturnType<typeof toInboxEvent>[],
  settlements: Settlements,
  revision: bigint,
): HistoryEntry[] {
  return rows.map((row) => {
    const outcome = settlements.outcomes.get(row.id);
    const type = rowHistoryType(row.type, outcome);
    const reason =
      outcome?.kind === 'STALE'
        ? outcome.reason
        : outcome?.kind === 'QUARANTINED'
          ? outcome.code
          : undefined;
    return {
      type,
      revision,
      details: {
        ...(row.type === SIGNAL_RECEIVED
          ? { signal_id: row.eventId.split('.')[1] ?? '' }
          : { task_id: row.sourceTaskId ?? '' }),
        event: row.type,
        ...(reason === undefined ? {} : { reason }),
      },
    };
  });
}

interface Round {
  readonly instance: Instance;
  readonly program: PinnedProgram;
  readonly steps: readonly StepRow[];
  readonly activations: readonly Activation[];
  readonly openRounds: readonly PollRound[];
  /** SCHEDULED rounds whose time has come. */
  readonly dueRounds: readonly PollRound[];
  /**
   * The ending this round sets: TIMED_OUT when the instance deadline passed in it, CANCELLED for
   * a cancel control; every leaf in flight is told to stop.
   */
  readonly closing: InstanceEnding | null;
  readonly settlements: Settlements;
  readonly revision: bigint;
  readonly entries: HistoryEntry[];
  readonly rows: number;
}

/** Settled leaves on top of the rows: the snapshot the round plans from. */
function settledSnapshot(round: Round, ending: InstanceEnding | null): Snapshot {
  const { instance } = round;
  const base = toSnapshot({
    input: parse(instance.input),
    allowNew: ending === null && !instance.paused && !round.program.disabled,
    rows: round.steps,
  });
  const steps = new Map<string, StepState>(base.steps);
  for (const [id, state] of round.settlements.states) {
    steps.set(id, state);
  }
  return { ...base, steps };
}

/** Every leaf still in flight after the round (the instance deadline cancels them all). */
function inFlightLeaves(after: Snapshot): string[] {
  return [...after.steps]
    .filter(([, s]) => LEAF_KINDS.has(s.kind) && (s.status === 'ACTIVE' || s.status === 'WAITING'))
    .map(([id]) => id);
}

/** `after` with the cancels applied: settled leaves CANCELLED, the others cancel-requested. */
function withCancels(after: Snapshot, ids: readonly string[], cancels: LeafCancels): Snapshot {
  const steps = new Map(after.steps);
  const now = new Set(cancels.cancelledSteps);
  for (const id of ids) {
    const state = steps.get(id);
    if (state !== undefined) {
      steps.set(
        id,
        now.has(id)
          ? { kind: state.kind, status: 'CANCELLED' }
          : { ...state, cancelRequested: true },
      );
    }
  }
  return { ...after, steps };
}

/** TIMED_OUT or CANCELLED: `$root` and the composites still open end CANCELLED (runtime.md §4.2). */
function closeComposites(after: Snapshot): Snapshot {
  const steps = new Map(after.steps);
  for (const [id, state] of steps) {
    if (!LEAF_KINDS.has(state.kind) && state.status === 'ACTIVE') {
      steps.set(id, { kind: state.kind, status: 'CANCELLED' });
    }
  }
  return { ...after, steps };
}

/** The cause an ending instance records (no step caused it). */
const ENDING_CAUSE: Record<InstanceEnding, { code: string; message: string; stepId: null }> = {
  TIMED_OUT: {
    code: 'deadline_exceeded',
    message: 'the instance deadline passed before it finished',
    stepId: null,
  },
  CANCELLED: { code: 'cancelled', message: 'the instance was cancelled', stepId: null },
};

async function planAndPersist(tx: Tx, round: Round): Promise<Consumed> {
  const { instance, program, settlements } = round;
  const ns = instance.namespaceId;
  const ending: InstanceEnding | null = instance.ending ?? round.closing;
  const snapshot = settledSnapshot(round, ending);
  const { decisions, more } = program.program.plan(snapshot, ROUND_LIMIT);
  const planned = applyDecisions(snapshot, decisions);
  // The failing scope's CANCELs (§4.3), and at the deadline every leaf in flight (§4.2).
  const cancelIds = [
    ...new Set([
      ...decisions.flatMap((d) => (d.kind === 'CANCEL' ? [d.stepId] : [])),
      ...(round.closing !== null ? inFlightLeaves(planned) : []),
    ]),
  ];
  const cancels = planLeafCancels(cancelIds, {
    steps: round.steps,
    activations: round.activations,
    openRounds: round.openRounds,
    settled: settlements.settled,
    doneRounds: new Set(settlements.roundsDone.map((r) => r.id)),
  });
  // A POLL cancelled now schedules no next round.
  const cancelled = new Set(cancels.cancelledActivations);
  const settled: Settlements = {
    ...settlements,
    nextRounds: settlements.nextRounds.filter((r) => !cancelled.has(r.activationId)),
  };
  let after = withCancels(planned, cancelIds, cancels);
  // A leaf cancelled now must let the planner fail its scope: one more round (a durable row).
  const followUp = more || (ending === null && cancels.cancelledSteps.length > 0);
  const status = toInstanceStatus({ steps: after.steps, ending, pendingAdvance: followUp });
  if (status.terminal && status.status === ending) {
    after = closeComposites(after);
  }
  const ref = { namespaceId: ns, instanceId: instance.id };
  const settledPolls = round.activations
    .filter((a) => a.kind === 'POLL' && settlements.settled.has(a.id))
    .map((a) => a.id);
  await persistRound(tx, {
    ref,
    writes: toStepWrites(round.steps, after),
    settlements: settled,
    failed: decisions.flatMap((d) => (d.kind === 'FAIL' ? [d] : [])),
    closeWaitsOf: settledPolls,
  });
  // The POLL deadlines' query tasks are cancelled with the leaves', all in ascending id.
  await executeLeafCancels(tx, ns, {
    ...cancels,
    tasks: [...settled.cancelTasks, ...cancels.tasks],
  });
  const dueRounds = dueRoundActions({
    dueRounds: round.dueRounds,
    steps: round.steps,
    activations: round.activations,
    settled: new Set([...settlements.settled, ...cancels.cancelledActivations]),
    allowNew: snapshot.allowNew,
  });
  await cancelRounds(tx, ns, dueRounds.cancel);
  const polls = await startPollRounds(
    tx,
    {
      namespaceId: ns,
      deadlineAt: instance.deadlineAt,
      program: program.program,
      queues: program.queues,
      revision: round.revision,
    },
    dueRounds.start,
  );
  const activated = await activateWork(
    tx,
    {
      ...ref,
      deadlineAt: instance.deadlineAt,
      steps: new Map(
        round.steps.map((s) => [s.stepId, { id: s.id, activationCount: s.activationCount }]),
      ),
      queues: program.queues,
    },
    decisions.filter((d): d is ActivateDecision => d.kind === 'ACTIVATE'),
  );
  if (followUp) {
    await insertAdvance(tx, round);
  }
  await ackRows(tx, ns, settlements);
  const leaves = [...settlements.errors].map(([stepId, e]) => ({ ...e, stepId }));
  // Steps that failed in an earlier round (a failure whose sibling was still running, E4.6).
  const earlier = round.steps.flatMap((s) =>
    s.errorCode === null
      ? []
      : [{ code: s.errorCode, message: s.errorMessage ?? '', stepId: s.stepId }],
  );
  const failure =
    status.status === 'FAILED'
      ? causeOf(decisions, leaves, earlier)
      : ending !== null && status.status === ending
        ? ENDING_CAUSE[ending]
        : undefined;
  await finishInstance(tx, instance, {
    revision: round.revision,
    entries: [
      ...round.entries,
      ...(round.closing === 'TIMED_OUT'
        ? [{ type: 'instance.deadline', revision: round.revision }]
        : []),
      ...polls.entries,
      ...roundHistory(decisions, status, round.revision),
      ...cancels.cancelledSteps.map((stepId) => ({
        type: 'step.cancelled',
        revision: round.revision,
        stepId,
      })),
    ],
    activated,
    status,
    failure,
    workflow: program.workflow,
    ...(round.closing === null ? {} : { ending: round.closing }),
  });
  const queueIds = [
    ...polls.queueIds,
    ...decisions.flatMap((d) =>
      d.kind === 'ACTIVATE' && (d.node === 'TASK' || d.node === 'POLL')
        ? [program.queues.get(d.queue)?.id ?? '']
        : [],
    ),
  ];
  return { rows: round.rows, advanced: true, queueIds };
}

async function insertAdvance(tx: Tx, round: Round): Promise<void> {
  const root = round.steps.find((s) => s.stepId === ROOT_STEP_ID);
  if (root === undefined) {
    throw new Error('the instance has no $root row');
  }
  // Every applied round bumps `$root`'s revision (toStepWrites): the checkpoint names the new one.
  await insertPendingAdvance(tx, {
    namespaceId: round.instance.namespaceId,
    instanceId: round.instance.id,
    rootRowId: root.id,
    rootRevision: root.revision + 1n,
    instanceRevision: round.revision,
  });
}

/** Timer lateness for the metrics: the clock fired each TIMER at `tx.now`, due at `due_at`. */
function reportFiredTimers(
  tx: Tx,
  namespaceId: string,
  waits: readonly Wait[],
  closed: readonly { readonly id: string; readonly purpose: string }[],
): void {
  const timers = new Set(closed.filter((w) => w.purpose === 'TIMER').map((w) => w.id));
  const facts = waits
    .filter((w) => timers.has(w.id))
    .map((w) => ({ namespaceId, latenessUs: tx.now > w.dueAt ? tx.now - w.dueAt : 0n }));
  if (facts.length > 0) {
    tx.afterCommit(() => tx.observe.timersFired(facts));
  }
}
