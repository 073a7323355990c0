/**
 * Operator recovery of one step (issue 12 Deliver 3, seed 000 §4 item 6, E4.5, E4.6, A5.3;
 * docs/runtime.md "Recovery"): retry a FAILED / NEEDS_REVIEW TASK or POLL as a new activation
 * (optionally with a corrected input), resolve a TASK / POLL / SIGNAL with an operator-given
 * output, or fail a NEEDS_REVIEW one. One transaction, the caller's:
 *
 * 1. lock the instance (`FOR UPDATE`; runtime.md §1 lock order: instance → its rows → task rows
 *    → quota → instance bound), check `expected_revision`, the status (active, or FAILED), the
 *    instance deadline (never extended, E4.5) and the pinned version (digest, A3.4);
 * 2. `program.reopen` (pure) gives the snapshot to persist: the step, its reopened scopes and
 *    the cancelled siblings that run again; every refusal happens before the first write;
 * 3. persist: step rows, the old activation (SUPERSEDED when it was still NEEDS_REVIEW, else it
 *    keeps its terminal status — it stays in the history and the step detail), for a retry the
 *    new activation and its task (a POLL keeps its used rounds, round budget and deadline), the
 *    instance row (a FAILED instance is RUNNING again: cause, output and `finished_at` cleared,
 *    gate OPEN, the namespace's active bound forgotten), history, and a pending advance when
 *    the planner has more to do — the inbox consumer plans that round right after the commit.
 */
import type { JsonValue } from '@weave/json';
import { parse } from '@weave/json';
import { EngineError, ROOT_STEP_ID } from '@weave/engine';
import type { Program, Recovery, Reopened } from '@weave/engine';
import { sql } from 'kysely';
import { WeaveError, notFound } from '../../errors.js';
import { reviewTask } from '../../pulse/review-task.js';
import { inNamespaces } from '../../store/namespace-filter.js';
import type { Tx } from '../../store/with-tx.js';
import { toInstanceStatus } from '../model/instance-status.js';
import { TERMINAL_INSTANCE_STATUSES } from '../model/states.js';
import type { Activation, Instance, StepRow } from '../model/rows.js';
import { toActivation, toInstance, toStepRow } from '../model/rows.js';
import { toSnapshot, toStepWrites } from '../model/snapshot-rows.js';
import { activateWork } from '../runtime/activate-work.js';
import type { Activated, CarriedPoll } from '../runtime/activate-work.js';
import { closeWaitsOf } from '../runtime/cancel-leaves.js';
import { writeHistory } from '../runtime/history.js';
import type { HistoryEntry } from '../runtime/history.js';
import { insertPendingAdvance } from '../runtime/pending-advance.js';
import { ProgramCache } from '../runtime/program-cache.js';
import { pinnedProgram } from '../runtime/pinned-program.js';

export type RecoveryAction =
  | { readonly action: 'retry'; readonly input?: JsonValue }
  | { readonly action: 'resolve'; readonly output: JsonValue }
  | {
      readonly action: 'fail';
      readonly error: { readonly code: string; readonly message: string };
    };

export interface RecoveryRequest {
  readonly namespaceId: string;
  readonly instanceId: string;
  readonly stepId: string;
  readonly recovery: RecoveryAction;
  readonly reason: string;
  readonly expectedRevision?: bigint;
}

export interface Recovered {
  readonly instanceId: string;
  readonly stepId: string;
  readonly revision: bigint;
  /** The retry's new activation and task. */
  readonly activationId: string | null;
  readonly taskId: string | null;
  /** Queues that got a task (wake their claimers after the commit). */
  readonly queueIds: readonly string[];
}

/** Statuses recovery works from: the active ones, and FAILED (a failed instance is recovered). */
const RECOVERABLE = new Set(['RUNNING', 'WAITING', 'NEEDS_REVIEW', 'FAILED']);
const TERMINAL: ReadonlySet<string> = new Set(TERMINAL_INSTANCE_STATUSES);
const UNKNOWN_BOUND = 9_223_372_036_854_775_807n;
const HISTORY_TYPE = {
  retry: 'step.retried',
  resolve: 'step.resolved',
  fail: 'step.failed_by_operator',
} as const;

export async function recoverStep(
  tx: Tx,
  request: RecoveryRequest,
  programs: ProgramCache = new ProgramCache(1),
): Promise<Recovered> {
  const ns = request.namespaceId;
  const instance = await lockInstance(tx, ns, request.instanceId);
  checkInstance(tx, instance, request);
  const version = await pinnedProgram(tx, instance, programs);
  const [stepRows, activationRows] = await tx.readAll(
    tx.db
      .selectFrom('weave_steps')
      .selectAll()
      .where('namespace_id', '=', ns)
      .where('instance_id', '=', instance.id),
    tx.db
      .selectFrom('weave_activations')
      .selectAll()
      .where('namespace_id', '=', ns)
      .where('instance_id', '=', instance.id)
      .where('step_id', '=', request.stepId)
      .orderBy('number', 'desc')
      .limit(1),
  );
  const steps = stepRows.map(toStepRow).sort((a, b) => a.position - b.position);
  const target = steps.find((s) => s.stepId === request.stepId && s.stepId !== ROOT_STEP_ID);
  if (target === undefined) {
    throw notFound(`step ${request.stepId} of instance ${instance.id}`, { path: '$.step' });
  }
  checkEndingStep(instance, target);
  const old = activationRows.map(toActivation).find((a) => a.id === target.currentActivationId);
  const terminal = instance.status === 'FAILED';
  const snapshot = toSnapshot({
    input: parse(instance.input),
    allowNew: !instance.paused && instance.ending === null && !version.disabled,
    rows: steps,
  });
  const reopened = reopen(version.program, snapshot, request);
  const carried = carriedPoll(tx, target, old, request);
  const revision = instance.revision + 1n;

  await writeSteps(tx, ns, steps, reopened, request);
  await settleOldActivation(tx, ns, old, request);
  const activated = await activateWork(
    tx,
    {
      namespaceId: ns,
      instanceId: instance.id,
      deadlineAt: instance.deadlineAt,
      steps: new Map(
        steps.map((s) => [s.stepId, { id: s.id, activationCount: s.activationCount }]),
      ),
      queues: version.queues,
      ...(carried === undefined ? {} : { carried: new Map([[target.stepId, carried]]) }),
    },
    reopened.activation === undefined ? [] : [reopened.activation],
  );
  // The planner's next round (reopened PENDING steps, COMPLETEs, the failure path of a fail)
  // runs in the consumer right after the commit, from the rows persisted here.
  // An ending instance always gets that round: it ends the instance (cause, gate, stream).
  const next =
    instance.ending !== null || version.program.plan(reopened.snapshot, 1).decisions.length > 0;
  const root = steps.find((s) => s.stepId === ROOT_STEP_ID);
  if (root === undefined) {
    throw new Error(`instance ${instance.id} has no $root row`);
  }
  if (next) {
    await upsertAdvance(tx, instance, root, revision);
  }
  const status = toInstanceStatus({
    steps: reopened.snapshot.steps,
    ending: instance.ending,
    pendingAdvance: next,
  });
  const entries = historyOf(request, reopened, activated, { revision, terminal });
  await writeHistory(
    tx,
    { namespaceId: ns, instanceId: instance.id, firstSeq: instance.historySeq + 1n },
    entries,
    activated,
  );
  await tx.write(
    tx.db
      .updateTable('weave_instances')
      .set({
        revision,
        history_seq: instance.historySeq + BigInt(entries.length),
        status: status.status,
        updated_at: tx.now,
        ...(terminal
          ? {
              finished_at: null,
              output: null,
              error_code: null,
              error_message: null,
              error_step_id: null,
            }
          : {}),
      })
      .where('namespace_id', '=', ns)
      .where('id', '=', instance.id),
  );
  if (terminal) {
    await reopenGate(tx, instance);
  }
  const work = activated[0];
  return {
    instanceId: instance.id,
    stepId: target.stepId,
    revision,
    activationId: work?.activationId ?? null,
    taskId: work?.taskId ?? null,
    queueIds:
      reopened.activation === undefined || reopened.activation.node === 'SIGNAL'
        ? []
        : [version.queues.get(reopened.activation.queue)?.id ?? ''],
  };
}

async function lockInstance(tx: Tx, ns: string, instanceId: string): Promise<Instance> {
  const row = /^[0-9]{1,19}$/.test(instanceId)
    ? await tx.dialect
        .forUpdate(
          tx.db
            .selectFrom('weave_instances')
            .selectAll()
            .where('namespace_id', '=', ns)
            .where('id', '=', instanceId),
        )
        .executeTakeFirst()
    : undefined;
  if (row === undefined) {
    throw notFound(`instance ${instanceId}`, { path: '$.instance' });
  }
  return toInstance(row);
}

function checkInstance(tx: Tx, instance: Instance, request: RecoveryRequest): void {
  if (request.expectedRevision !== undefined && request.expectedRevision !== instance.revision) {
    throw new WeaveError(
      'revision_mismatch',
      `instance ${instance.id} is at revision ${instance.revision}, not ${request.expectedRevision}`,
      { details: { path: '$.expected_revision', revision: instance.revision.toString() } },
    );
  }
  if (settlesEnding(instance, request)) {
    // The step's own status is checked once it is read (checkEndingStep).
    return;
  }
  // E4.5, A5.3: recovery keeps the original deadline; past it nothing is recovered.
  if (instance.deadlineAt <= tx.now) {
    throw new WeaveError('invalid_state', `instance ${instance.id} is past its deadline`, {
      details: { status: instance.status, reason: 'deadline_passed' },
    });
  }
  if (!RECOVERABLE.has(instance.status) || instance.ending !== null) {
    throw new WeaveError(
      'invalid_state',
      `instance ${instance.id} is ${instance.ending ?? instance.status}: only an active or FAILED instance is recovered`,
      { details: { status: instance.status, reason: 'instance_status' } },
    );
  }
}

/**
 * E4.6: an ending instance (cancelled, or past its deadline) waits for every effect to be known,
 * and a NEEDS_REVIEW step's is not: the operator's resolve or fail settles it, as a result would,
 * and the instance then ends as its ending says. Nothing new starts (no retry), no scope reopens
 * (a NEEDS_REVIEW step's scopes are not failed), and no deadline moves.
 */
function settlesEnding(instance: Instance, request: RecoveryRequest): boolean {
  return (
    instance.ending !== null &&
    !TERMINAL.has(instance.status) &&
    request.recovery.action !== 'retry'
  );
}

function checkEndingStep(instance: Instance, target: StepRow): void {
  if (instance.ending !== null && target.status !== 'NEEDS_REVIEW') {
    throw new WeaveError(
      'invalid_state',
      `instance ${instance.id} is ending (${instance.ending}): only a NEEDS_REVIEW step is resolved or failed, and "${target.stepId}" is ${target.status}`,
      { details: { status: instance.status, reason: 'instance_ending' } },
    );
  }
}

function toEngineRecovery(action: RecoveryAction): Recovery {
  switch (action.action) {
    case 'retry':
      return action.input === undefined
        ? { action: 'retry' }
        : { action: 'retry', input: action.input };
    case 'resolve':
      return { action: 'resolve', output: action.output };
    case 'fail':
      return { action: 'fail' };
  }
}

/** The engine's answer, its refusals as the API's errors (409, or 400/413 with the body path). */
function reopen(
  program: Program,
  snapshot: Parameters<Program['reopen']>[0],
  request: RecoveryRequest,
): Reopened {
  try {
    return program.reopen(snapshot, request.stepId, toEngineRecovery(request.recovery));
  } catch (error: unknown) {
    if (!(error instanceof EngineError)) {
      throw error;
    }
    const details = { step_id: error.details.stepId ?? request.stepId };
    switch (error.code) {
      case 'recovery_not_allowed':
      case 'recovery_blocked':
        throw new WeaveError('invalid_state', error.message, {
          details: { ...details, reason: error.code },
          cause: error,
        });
      case 'recovery_invalid_input':
      case 'recovery_invalid_output':
        throw new WeaveError(
          error.details.limit === undefined ? 'invalid_argument' : 'payload_too_large',
          `${error.details.path} ${error.message}`,
          {
            details: {
              ...details,
              path: error.details.path,
              ...(error.details.limit === undefined ? {} : { limit: error.details.limit }),
            },
            cause: error,
          },
        );
      default:
        throw error;
    }
  }
}

/** A retried POLL continues its old activation's rounds and deadline (E4.5, A5.3). */
function carriedPoll(
  tx: Tx,
  target: StepRow,
  old: Activation | undefined,
  request: RecoveryRequest,
): CarriedPoll | undefined {
  if (request.recovery.action !== 'retry' || target.kind !== 'POLL' || old?.poll == null) {
    return undefined;
  }
  const poll = old.poll;
  if (poll.usedRounds >= poll.maxRounds || poll.deadlineAt <= tx.now) {
    throw new WeaveError(
      'invalid_state',
      `POLL ${target.stepId} has ${poll.usedRounds >= poll.maxRounds ? `used all ${poll.maxRounds} rounds` : 'passed its deadline'}: a retry keeps its rounds and deadline`,
      {
        details: {
          step_id: target.stepId,
          reason: poll.usedRounds >= poll.maxRounds ? 'poll_rounds_used' : 'poll_deadline_passed',
        },
      },
    );
  }
  return { usedRounds: poll.usedRounds, deadlineAt: poll.deadlineAt };
}

const FINISHED = new Set(['SUCCEEDED', 'FAILED', 'SKIPPED', 'CANCELLED']);

/** The step rows `reopen` changed; causes cleared where a step is open again. */
async function writeSteps(
  tx: Tx,
  ns: string,
  rows: readonly StepRow[],
  reopened: Reopened,
  request: RecoveryRequest,
): Promise<void> {
  const failure = request.recovery.action === 'fail' ? request.recovery.error : undefined;
  for (const w of toStepWrites(rows, reopened.snapshot)) {
    const open = !FINISHED.has(w.status);
    const cause =
      w.stepId === request.stepId && failure !== undefined
        ? { error_code: failure.code, error_message: failure.message }
        : w.status === 'FAILED'
          ? {}
          : { error_code: null, error_message: null };
    await tx.write(
      tx.db
        .updateTable('weave_steps')
        .set({
          status: w.status,
          revision: w.revision,
          output: w.output,
          case_index: w.caseIndex,
          completed_by: w.completedBy,
          cancel_requested: w.cancelRequested ? 1 : 0,
          ...cause,
          finished_at: open ? null : tx.now,
          updated_at: tx.now,
        })
        .where('namespace_id', '=', ns)
        .where('id', '=', w.stepRowId),
    );
  }
  // Composites and `$root` reopened: their activation is running again.
  const reopenedRows = rows
    .filter((r) => reopened.reopened.includes(r.stepId))
    .flatMap((r) => (r.currentActivationId === null ? [] : [r.currentActivationId]));
  if (reopenedRows.length > 0) {
    await tx.write(
      tx.db
        .updateTable('weave_activations')
        .set({ status: 'ACTIVE', finished_at: null })
        .where(inNamespaces([ns]))
        .where('id', 'in', reopenedRows),
    );
  }
}

/**
 * The step's last activation stays in the history and the step detail: a NEEDS_REVIEW one is
 * SUPERSEDED by a retry or takes the operator's outcome; a FAILED one keeps its status.
 */
async function settleOldActivation(
  tx: Tx,
  ns: string,
  old: Activation | undefined,
  request: RecoveryRequest,
): Promise<void> {
  if (old === undefined) {
    return;
  }
  const action = request.recovery;
  if (old.status === 'NEEDS_REVIEW') {
    await settleReviewTask(tx, ns, old, request);
    const status =
      action.action === 'retry'
        ? 'SUPERSEDED'
        : action.action === 'resolve'
          ? 'SUCCEEDED'
          : 'FAILED';
    await tx.write(
      tx.db
        .updateTable('weave_activations')
        .set({ status, finished_at: tx.now })
        .where('namespace_id', '=', ns)
        .where('id', '=', old.id),
    );
  }
  // A POLL's deadline or final-signal wait must not fire for the old activation.
  await closeWaitsOf(tx, ns, [old.id], 'CANCELLED');
}

/**
 * The old activation's Pulse task, still NEEDS_REVIEW, is settled with the operator's decision
 * (a retry supersedes it): it no longer holds a slot of the application's quota, and its result
 * reaches the inbox as the result of an activation that is no longer current — recorded as
 * stale, never applied (E1.7).
 */
async function settleReviewTask(
  tx: Tx,
  ns: string,
  old: Activation,
  request: RecoveryRequest,
): Promise<void> {
  if (old.kind !== 'TASK' || old.taskId === null) {
    return;
  }
  const task = await tx.db
    .selectFrom('tasks')
    .select('status')
    .where('namespace_id', '=', ns)
    .where('id', '=', old.taskId)
    .executeTakeFirst();
  if (task?.status !== 'NEEDS_REVIEW') {
    return;
  }
  const action = request.recovery;
  await reviewTask(tx, {
    namespaceId: ns,
    taskId: old.taskId,
    review:
      action.action === 'resolve'
        ? { action: 'succeed', output: action.output }
        : action.action === 'fail'
          ? { action: 'fail', error: action.error }
          : {
              action: 'fail',
              error: { code: 'superseded', message: 'retried as a new activation by an operator' },
            },
    reason: request.reason,
    credentialId: null,
  });
}

async function upsertAdvance(
  tx: Tx,
  instance: Instance,
  root: StepRow,
  revision: bigint,
): Promise<void> {
  const existing = await tx.db
    .selectFrom('weave_pending_advances')
    .select('id')
    .where('namespace_id', '=', instance.namespaceId)
    .where('instance_id', '=', instance.id)
    .executeTakeFirst();
  if (existing !== undefined) {
    return;
  }
  // Every write of the steps bumps `$root`'s revision once (toStepWrites).
  await insertPendingAdvance(tx, {
    namespaceId: instance.namespaceId,
    instanceId: instance.id,
    rootRowId: root.id,
    rootRevision: root.revision + 1n,
    instanceRevision: revision,
  });
}

/** A FAILED instance is active again: gate OPEN, and the namespace's bound no longer known. */
async function reopenGate(tx: Tx, instance: Instance): Promise<void> {
  await tx.write(
    tx.db
      .updateTable('weave_gates')
      .set({ state: 'OPEN', reason: null, updated_at: tx.now })
      .where('namespace_id', '=', instance.namespaceId)
      .where('instance_id', '=', instance.id),
  );
  // runtime.md §1.2: a path back into the active set forgets the bound (Start counts next).
  // Taken last, after the quota rows: no transaction holding the bound waits for an instance.
  await tx.write(
    tx.db
      .updateTable('weave_instance_bounds')
      .set({ active_bound: sql.raw(UNKNOWN_BOUND.toString()), updated_at: tx.now })
      .where('namespace_id', '=', instance.namespaceId),
  );
}

function historyOf(
  request: RecoveryRequest,
  reopened: Reopened,
  activated: readonly Activated[],
  at: { readonly revision: bigint; readonly terminal: boolean },
): HistoryEntry[] {
  const { revision } = at;
  const action = request.recovery;
  const details: Record<string, string | number> = { reason: request.reason };
  if (action.action === 'retry') {
    details.input = action.input === undefined ? 'definition' : 'operator';
  }
  if (action.action === 'fail') {
    details.code = action.error.code;
  }
  return [
    ...(at.terminal
      ? [{ type: 'instance.recovered', revision, details: { reason: request.reason } }]
      : []),
    { type: HISTORY_TYPE[action.action], revision, stepId: request.stepId, details },
    ...reopened.reopened.map((stepId) => ({ type: 'step.reopened', revision, stepId })),
    ...reopened.reset.map((stepId) => ({ type: 'step.reset', revision, stepId })),
    ...activated.map((a) => ({ type: 'step.activated', revision, stepId: a.stepId })),
  ];
}
