/**
 * The consumer transaction of one instance (runtime.md §3.2, seed 000 §2): lock the instance
 * (the per-instance mutex; SKIP LOCKED: another node has it), take its pending inbox rows and
 * its pending advance, settle the leaves the results decide, plan one round (≤ 32 changes),
 * persist the decisions, ack the rows — all in the caller's one transaction (E4.2). A rollback
 * leaves every row pending, and the same persisted state plans the same round again (E4.3).
 */
import { parse, stringify } from '@weave/json';
import { ROOT_STEP_ID, applyDecisions, compile } from '@weave/engine';
import type { ActivateDecision, CancelDecision, Snapshot, StepState } from '@weave/engine';
import { cancelTask } from '../../pulse/cancel-task.js';
import type { Tx } from '../../store/with-tx.js';
import { toInstanceStatus } from '../model/instance-status.js';
import { TERMINAL_INSTANCE_STATUSES } from '../model/states.js';
import type { Activation, Instance, StepRow } from '../model/rows.js';
import { toActivation, toInboxEvent, toInstance, toStepRow, toWait } from '../model/rows.js';
import { toSnapshot, toStepWrites } from '../model/snapshot-rows.js';
import { activateWork } from './activate-work.js';
import type { Activated } from './activate-work.js';
import { writeHistory } from './history.js';
import type { HistoryEntry } from './history.js';
import { appendInstanceOutcome } from './instance-outcome.js';
import { causeOf, roundHistory } from './round-history.js';
import { insertPendingAdvance } from './pending-advance.js';
import { persistRound } from './persist-round.js';
import { settleResults } from './settle-results.js';
import type { Settlements } from './settle-results.js';
import { readVersionQueues } from './version-queues.js';

const ROUND_LIMIT = 32;
const MAX_ROWS = 256;

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

export async function consumeInstance(tx: Tx, ref: InstanceRef): Promise<Consumed> {
  const { namespaceId, instanceId } = ref;
  const locked = await tx.dialect
    .forUpdateSkipLocked(
      tx.db
        .selectFrom('weave_instances')
        .selectAll()
        .where('namespace_id', '=', namespaceId)
        .where('id', '=', instanceId),
    )
    .executeTakeFirst();
  if (locked === undefined) {
    return NOTHING;
  }
  const instance = toInstance(locked);
  const [inboxRows, advances, stepRows, activationRows, timerRows] = await tx.readAll(
    tx.db
      .selectFrom('weave_inbox')
      .selectAll()
      .where('namespace_id', '=', namespaceId)
      .where('instance_id', '=', instanceId)
      .where('state', '=', 'PENDING')
      .orderBy('id')
      .limit(MAX_ROWS),
    tx.db
      .selectFrom('weave_pending_advances')
      .select('id')
      .where('namespace_id', '=', namespaceId)
      .where('instance_id', '=', instanceId),
    tx.db
      .selectFrom('weave_steps')
      .selectAll()
      .where('namespace_id', '=', namespaceId)
      .where('instance_id', '=', instanceId),
    tx.db
      .selectFrom('weave_activations')
      .selectAll()
      .where('namespace_id', '=', namespaceId)
      .where('instance_id', '=', instanceId)
      .where('status', 'in', ['ACTIVE', 'WAITING', 'NEEDS_REVIEW']),
    tx.db
      .selectFrom('weave_waits')
      .selectAll()
      .where('namespace_id', '=', namespaceId)
      .where('instance_id', '=', instanceId)
      .where('purpose', '=', 'TIMER')
      .where('state', '=', 'WAITING')
      .where('due_at', '<=', tx.now),
  );
  if (inboxRows.length === 0 && advances.length === 0 && timerRows.length === 0) {
    return NOTHING;
  }
  const program = await programOf(tx, instance);
  const steps = stepRows.map(toStepRow).sort((a, b) => a.position - b.position);
  const terminal = (TERMINAL_INSTANCE_STATUSES as readonly string[]).includes(instance.status);
  const settlements = settleResults({
    program: program.program,
    terminal,
    now: tx.now,
    rows: inboxRows.map(toInboxEvent),
    steps,
    activations: activationRows.map(toActivation),
    dueTimers: timerRows.map(toWait),
  });
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
    ...rowHistory(inboxRows.map(toInboxEvent), settlements, revision),
    ...settlements.firedWaits.map((w) => ({
      type: 'timer.fired',
      revision,
      ...(w.stepId === null ? {} : { stepId: w.stepId }),
    })),
  ];
  if (terminal) {
    await persistRound(tx, { ref, writes: [], settlements, failed: [] });
    await ackRows(tx, ref, settlements);
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
    activations: activationRows.map(toActivation),
    settlements,
    revision,
    entries,
    rows: inboxRows.length,
  });
}

async function programOf(tx: Tx, instance: Instance) {
  const ns = instance.namespaceId;
  const version = await tx.db
    .selectFrom('weave_definition_versions as v')
    .innerJoin('weave_definitions as d', (j) =>
      j.onRef('d.id', '=', 'v.definition_id').on('d.namespace_id', '=', ns),
    )
    .select(['v.source', 'v.digest', 'v.queues', 'd.name'])
    .where('v.namespace_id', '=', ns)
    .where('v.id', '=', instance.versionId)
    .executeTakeFirstOrThrow();
  const compiled = compile(parse(version.source));
  if (!compiled.ok || version.digest !== instance.digest) {
    throw new Error(`instance ${instance.id} has lost its pinned version`);
  }
  const names = parse(version.queues);
  const queues = await readVersionQueues(
    tx,
    instance.namespaceId,
    Array.isArray(names) ? names.filter((n): n is string => typeof n === 'string') : [],
  );
  return { program: compiled.program, queues, workflow: version.name };
}

function rowHistory(
  rows: readonly ReturnType<typeof toInboxEvent>[],
  settlements: Settlements,
  revision: bigint,
): HistoryEntry[] {
  return rows.map((row) => {
    const outcome = settlements.outcomes.get(row.id);
    const type =
      outcome?.kind === 'APPLIED'
        ? 'result.applied'
        : outcome?.kind === 'QUARANTINED'
          ? 'result.quarantined'
          : 'result.stale_ignored';
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
        task_id: row.sourceTaskId ?? '',
        event: row.type,
        ...(reason === undefined ? {} : { reason }),
      },
    };
  });
}

interface Round {
  readonly instance: Instance;
  readonly program: Awaited<ReturnType<typeof programOf>>;
  readonly steps: readonly StepRow[];
  readonly activations: readonly Activation[];
  readonly settlements: Settlements;
  readonly revision: bigint;
  readonly entries: HistoryEntry[];
  readonly rows: number;
}

/** Settled leaves on top of the rows: the snapshot the round plans from. */
function settledSnapshot(round: Round): Snapshot {
  const { instance } = round;
  const base = toSnapshot({
    input: parse(instance.input),
    allowNew: instance.ending === null && !instance.paused,
    rows: round.steps,
  });
  const steps = new Map<string, StepState>(base.steps);
  for (const [id, state] of round.settlements.states) {
    steps.set(id, state);
  }
  return { ...base, steps };
}

async function planAndPersist(tx: Tx, round: Round): Promise<Consumed> {
  const { instance, program } = round;
  const snapshot = settledSnapshot(round);
  const { decisions, more } = program.program.plan(snapshot, ROUND_LIMIT);
  const after = applyDecisions(snapshot, decisions);
  const status = toInstanceStatus({
    steps: after.steps,
    ending: instance.ending,
    pendingAdvance: more,
  });
  const ref = { namespaceId: instance.namespaceId, instanceId: instance.id };
  await persistRound(tx, {
    ref,
    writes: toStepWrites(round.steps, after),
    settlements: round.settlements,
    failed: decisions.flatMap((d) => (d.kind === 'FAIL' ? [d] : [])),
  });
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
  await cancelLeaves(
    tx,
    round,
    decisions.filter((d): d is CancelDecision => d.kind === 'CANCEL'),
  );
  if (more) {
    await insertAdvance(tx, round);
  }
  await ackRows(tx, ref, round.settlements);
  const leaves = [...round.settlements.errors].map(([stepId, e]) => ({ ...e, stepId }));
  // Steps that failed in an earlier round (a failure whose sibling was still running, E4.6).
  const earlier = round.steps.flatMap((s) =>
    s.errorCode === null
      ? []
      : [{ code: s.errorCode, message: s.errorMessage ?? '', stepId: s.stepId }],
  );
  const failure = status.status === 'FAILED' ? causeOf(decisions, leaves, earlier) : undefined;
  await finishInstance(tx, instance, {
    revision: round.revision,
    entries: [...round.entries, ...roundHistory(decisions, status, round.revision)],
    activated,
    status,
    failure,
    workflow: program.workflow,
  });
  const queueIds = decisions.flatMap((d) =>
    d.kind === 'ACTIVATE' && (d.node === 'TASK' || d.node === 'POLL')
      ? [program.queues.get(d.queue)?.id ?? '']
      : [],
  );
  return { rows: round.rows, advanced: true, queueIds };
}

/** CANCEL: a leaf's Pulse task is cancelled (pending at once, running at its next heartbeat). */
async function cancelLeaves(
  tx: Tx,
  round: Round,
  cancels: readonly CancelDecision[],
): Promise<void> {
  const byStep = new Map(round.steps.map((s) => [s.stepId, s]));
  for (const cancel of cancels) {
    const step = byStep.get(cancel.stepId);
    const activation = round.activations.find((a) => a.id === step?.currentActivationId);
    if (activation?.taskId != null) {
      await cancelTask(tx, {
        namespaceId: round.instance.namespaceId,
        taskId: activation.taskId,
        credentialId: null,
      });
    }
  }
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

async function ackRows(
  tx: Tx,
  ref: { namespaceId: string; instanceId: string },
  settlements: Settlements,
): Promise<void> {
  for (const [id, outcome] of settlements.outcomes) {
    await tx.write(
      tx.db
        .updateTable('weave_inbox')
        .set({
          state: outcome.kind === 'QUARANTINED' ? 'QUARANTINED' : 'PROCESSED',
          outcome: outcome.kind === 'QUARANTINED' ? null : outcome.kind,
          error_code: outcome.kind === 'QUARANTINED' ? outcome.code : null,
          processed_at: tx.now,
        })
        .where('namespace_id', '=', ref.namespaceId)
        .where('id', '=', id),
    );
  }
}

async function finishInstance(
  tx: Tx,
  instance: Instance,
  done: {
    workflow: string;
    revision: bigint;
    entries: readonly HistoryEntry[];
    activated: readonly Activated[];
    status?: ReturnType<typeof toInstanceStatus>;
    failure?: { code: string; message: string; stepId: string } | undefined;
  },
): Promise<void> {
  const ref = { namespaceId: instance.namespaceId, instanceId: instance.id };
  await writeHistory(
    tx,
    { ...ref, firstSeq: instance.historySeq + 1n },
    done.entries,
    done.activated,
  );
  const status = done.status;
  const output = status?.output === undefined ? null : stringify(status.output);
  await tx.write(
    tx.db
      .updateTable('weave_instances')
      .set({
        revision: done.revision,
        history_seq: instance.historySeq + BigInt(done.entries.length),
        updated_at: tx.now,
        ...(status === undefined ? {} : { status: status.status }),
        ...(status?.terminal === true ? { finished_at: tx.now, output } : {}),
        ...(done.failure === undefined
          ? {}
          : {
              error_code: done.failure.code,
              error_message: done.failure.message,
              error_step_id: done.failure.stepId,
            }),
      })
      .where('namespace_id', '=', instance.namespaceId)
      .where('id', '=', instance.id),
  );
  if (status?.terminal === true) {
    await tx.write(
      tx.db
        .updateTable('weave_gates')
        .set({ state: 'CLOSED', reason: status.status.toLowerCase(), updated_at: tx.now })
        .where('namespace_id', '=', instance.namespaceId)
        .where('instance_id', '=', instance.id),
    );
    await appendInstanceOutcome(tx, {
      namespaceId: instance.namespaceId,
      applicationId: instance.applicationId,
      resultStreamId: instance.resultStreamId,
      instanceId: instance.id,
      workflow: done.workflow,
      version: instance.version,
      revision: done.revision,
      status: status.status,
      output,
      error:
        done.failure === undefined
          ? null
          : { code: done.failure.code, message: done.failure.message },
    });
  }
}
