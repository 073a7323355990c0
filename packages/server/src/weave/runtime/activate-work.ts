/**
 * What the ACTIVATE decisions of a round create (docs/design/engine.md "Decisions",
 * runtime.md §2.2): one activation per activated step; for a TASK its Pulse task; for a POLL its
 * first round and that round's query task; for a SIGNAL or TIMER, and a POLL's final signal or
 * deadline, a wait row. Start and every runner round call this with the instance locked.
 *
 * Statements: one multi-row insert per kind (activations, rounds, tasks through Pulse, waits)
 * and deferred updates linking them; durations are milliseconds in the decisions and
 * microseconds of DB time here (`tx.now`). Deadlines never pass the instance's (A1.8).
 */
import type { Insertable } from 'kysely';
import { stringify } from '@weave/json';
import type {
  ActivateDecision,
  ActivatePoll,
  ActivateSignal,
  ActivateTask,
  RetryParameters,
  SignalParameters,
} from '@weave/engine';
import { DEFAULT_RETRY_POLICY } from '../../pulse/retry-policy.js';
import type { RetryPolicy } from '../../pulse/retry-policy.js';
import type { OwnedTask } from '../../pulse/submit-owned.js';
import { submitOwnedTasks } from '../../pulse/submit-owned.js';
import { OWNER_ACTIVATION } from '../delivery/deliver-result.js';
import type { WeaveWaitsTable } from '../../store/schema.js';
import { insertRows } from '../../store/insert-rows.js';
import { updateRow } from '../../store/update-row.js';
import type { DbInt, Micros } from '../../store/values.js';
import { toId } from '../../store/values.js';
import type { Tx } from '../../store/with-tx.js';
import { takeBufferedSignals } from '../signals/take-buffered.js';
import type { NewSignalWait } from '../signals/take-buffered.js';

/** A queue the instance's version uses, read (and locked) by the caller. */
export interface RoundQueue {
  readonly id: string;
  readonly name: string;
  readonly applicationId: string;
  readonly capacity: number;
}

export interface RoundContext {
  readonly namespaceId: string;
  readonly instanceId: string;
  /** The instance deadline: no task or wait of the instance outlives it (A1.8, A4.5). */
  readonly deadlineAt: Micros;
  /** The step rows by step id: their row id and how many activations they had. */
  readonly steps: ReadonlyMap<string, { readonly id: string; readonly activationCount: number }>;
  readonly queues: ReadonlyMap<string, RoundQueue>;
  /**
   * A POLL retried by an operator keeps its rounds and deadline (E4.5, A5.3): the new
   * activation continues the old one's count and ends at its deadline. By step id.
   */
  readonly carried?: ReadonlyMap<string, CarriedPoll>;
}

/** What a retried POLL's new activation inherits from the old one. */
export interface CarriedPoll {
  readonly usedRounds: number;
  readonly deadlineAt: Micros;
}

/** An activation created by the round, for the history and the views. */
export interface Activated {
  readonly stepId: string;
  readonly activationId: string;
  readonly taskId: string | null;
  readonly roundId: string | null;
  /** A buffered signal its new wait took (docs/design/signals.md §4). */
  readonly bufferedSignalId?: string;
}

const US_PER_MS = 1000n;

/** The earlier of two instants. */
export function earlier(a: Micros, b: Micros): Micros {
  return a < b ? a : b;
}

/** now + `ms`, never past the instance deadline; the instance deadline when `ms` is absent. */
function dueWithin(tx: Tx, ctx: RoundContext, ms: number | undefined): Micros {
  return ms === undefined
    ? ctx.deadlineAt
    : earlier(tx.now + BigInt(ms) * US_PER_MS, ctx.deadlineAt);
}

/** A POLL's deadline: min(now + timeout, instance deadline), or the one a retry carries. */
function pollDeadline(tx: Tx, ctx: RoundContext, poll: ActivatePoll): Micros {
  return ctx.carried?.get(poll.stepId)?.deadlineAt ?? dueWithin(tx, ctx, poll.timeoutMs);
}

/** The number of a POLL activation's first round: 1, or one more than a retry carries. */
function firstRound(ctx: RoundContext, poll: ActivatePoll): number {
  return (ctx.carried?.get(poll.stepId)?.usedRounds ?? 0) + 1;
}

function toRetryPolicy(retry: RetryParameters): RetryPolicy {
  return {
    maxAttempts: retry.maxAttempts,
    initialIntervalUs: BigInt(retry.initialIntervalMs) * US_PER_MS,
    backoffCoefficient: retry.backoffCoefficient,
    maxIntervalUs: BigInt(retry.maxIntervalMs) * US_PER_MS,
    nonRetryableCodes: retry.nonRetryableCodes,
  };
}

function stepOf(ctx: RoundContext, stepId: string) {
  const step = ctx.steps.get(stepId);
  if (step === undefined) {
    throw new Error(`the round activates ${stepId}, which has no step row`);
  }
  return step;
}

function queueOf(ctx: RoundContext, name: string): RoundQueue {
  const queue = ctx.queues.get(name);
  if (queue === undefined) {
    throw new Error(`the round uses queue ${name}, which the caller did not lock`);
  }
  return queue;
}

export async function activateWork(
  tx: Tx,
  ctx: RoundContext,
  decisions: readonly ActivateDecision[],
): Promise<Activated[]> {
  if (decisions.length === 0) {
    return [];
  }
  const activationIds = await insertActivations(tx, ctx, decisions);
  const polls = decisions.filter((d): d is ActivatePoll => d.node === 'POLL');
  const roundIds = await insertFirstRounds(tx, ctx, polls, activationIds);
  const tasks = await submitTasks(tx, ctx, decisions, { activationIds, roundIds });
  await linkRows(tx, ctx, decisions, { activationIds, roundIds, tasks });
  const signalWaits = await insertWaits(tx, ctx, decisions, activationIds);
  const buffered = await takeBufferedSignals(tx, ctx.namespaceId, signalWaits);
  return decisions.map((d) => {
    const signalId = buffered.get(d.stepId);
    return {
      stepId: d.stepId,
      activationId: idOf(activationIds, d.stepId),
      taskId: tasks.get(d.stepId) ?? null,
      roundId: roundIds.get(d.stepId) ?? null,
      ...(signalId === undefined ? {} : { bufferedSignalId: signalId }),
    };
  });
}

function idOf(ids: ReadonlyMap<string, string>, stepId: string): string {
  const id = ids.get(stepId);
  if (id === undefined) {
    throw new Error(`no activation row came back for ${stepId}`);
  }
  return id;
}

/** One insert for every activation of the round; ids by step id. */
async function insertActivations(
  tx: Tx,
  ctx: RoundContext,
  decisions: readonly ActivateDecision[],
): Promise<Map<string, string>> {
  const rows = decisions.map((d) => {
    const step = stepOf(ctx, d.stepId);
    const poll = d.node === 'POLL' ? d : undefined;
    return {
      namespace_id: ctx.namespaceId,
      instance_id: ctx.instanceId,
      step_row_id: step.id,
      step_id: d.stepId,
      number: step.activationCount + 1,
      kind: d.node,
      status: d.node === 'SIGNAL' || d.node === 'TIMER' ? 'WAITING' : 'ACTIVE',
      task_id: null,
      input: d.node === 'TASK' || d.node === 'POLL' ? stringify(d.input) : null,
      poll_interval_us: poll === undefined ? null : BigInt(poll.intervalMs) * US_PER_MS,
      poll_max_rounds: poll?.maxRounds ?? null,
      poll_used_rounds: poll === undefined ? null : firstRound(ctx, poll),
      poll_deadline_at: poll === undefined ? null : pollDeadline(tx, ctx, poll),
      poll_task_timeout_us:
        poll?.taskTimeoutMs === undefined ? null : BigInt(poll.taskTimeoutMs) * US_PER_MS,
      current_round_id: null,
      created_at: tx.now,
      finished_at: null,
    };
  });
  const query = insertRows<'weave_activations', { id: DbInt; step_id: string }>(
    tx.db,
    'weave_activations',
    rows,
    ['id', 'step_id'],
  );
  // RETURNING order is not promised: match by step id (a step is activated once per round).
  const { rows: inserted } = await tx.db.executeQuery(query.compile());
  return new Map(inserted.map((r) => [r.step_id, toId(r.id)]));
}

async function insertFirstRounds(
  tx: Tx,
  ctx: RoundContext,
  polls: readonly ActivatePoll[],
  activationIds: ReadonlyMap<string, string>,
): Promise<Map<string, string>> {
  if (polls.length === 0) {
    return new Map();
  }
  const query = tx.db
    .insertInto('weave_poll_rounds')
    .values(
      polls.map((p) => ({
        namespace_id: ctx.namespaceId,
        instance_id: ctx.instanceId,
        activation_id: idOf(activationIds, p.stepId),
        number: firstRound(ctx, p),
        state: 'RUNNING',
        due_at: tx.now,
        task_id: null,
        classification: null,
        created_at: tx.now,
        finished_at: null,
      })),
    )
    .returning(['id', 'activation_id']);
  const { rows } = await tx.db.executeQuery(query.compile());
  const stepByActivation = new Map(polls.map((p) => [idOf(activationIds, p.stepId), p.stepId]));
  return new Map(rows.map((r) => [stepByActivation.get(toId(r.activation_id)) ?? '', toId(r.id)]));
}

/** The TASKs' tasks and the POLLs' first query tasks, in one Pulse submit; task ids by step. */
async function submitTasks(
  tx: Tx,
  ctx: RoundContext,
  decisions: readonly ActivateDecision[],
  ids: { activationIds: ReadonlyMap<string, string>; roundIds: ReadonlyMap<string, string> },
): Promise<Map<string, string>> {
  const work = decisions.filter(
    (d): d is ActivateTask | ActivatePoll => d.node === 'TASK' || d.node === 'POLL',
  );
  const specs = work.map((d): OwnedTask => {
    const queue = queueOf(ctx, d.queue);
    const common = {
      namespaceId: ctx.namespaceId,
      applicationId: queue.applicationId,
      queueId: queue.id,
      queueName: queue.name,
      capacity: queue.capacity,
      input: stringify(d.input),
      priority: 0,
      resultStreamId: null,
    };
    if (d.node === 'TASK') {
      return {
        ...common,
        idempotent: d.idempotent,
        deadlineAt: dueWithin(tx, ctx, d.timeoutMs),
        retry: toRetryPolicy(d.retry),
        traceKey: d.traceKey,
        resourceKey: d.resourceKey,
        owner: { kind: OWNER_ACTIVATION, id: idOf(ids.activationIds, d.stepId) },
      };
    }
    const deadline = pollDeadline(tx, ctx, d);
    return {
      ...common,
      // A query has no side effects: an uncertain attempt may run again (E4.5).
      idempotent: true,
      deadlineAt:
        d.taskTimeoutMs === undefined
          ? deadline
          : earlier(tx.now + BigInt(d.taskTimeoutMs) * US_PER_MS, deadline),
      retry: DEFAULT_RETRY_POLICY,
      // Owned by the POLL's activation, named by its round (E1.3).
      owner: { kind: OWNER_ACTIVATION, id: idOf(ids.activationIds, d.stepId) },
    };
  });
  const tasks = await submitOwnedTasks(tx, ctx.namespaceId, specs);
  return new Map(work.map((d, i) => [d.stepId, tasks[i]?.id ?? '']));
}

/** Steps point at their new activation; activations and rounds at their task. */
async function linkRows(
  tx: Tx,
  ctx: RoundContext,
  decisions: readonly ActivateDecision[],
  ids: {
    activationIds: ReadonlyMap<string, string>;
    roundIds: ReadonlyMap<string, string>;
    tasks: ReadonlyMap<string, string>;
  },
): Promise<void> {
  for (const d of decisions) {
    const step = stepOf(ctx, d.stepId);
    const activationId = idOf(ids.activationIds, d.stepId);
    const started = {
      current_activation_id: activationId,
      activation_count: step.activationCount + 1,
      started_at: tx.now,
    };
    await tx.write(updateRow(tx.db, 'weave_steps', started, ctx.namespaceId, step.id));
    const taskId = ids.tasks.get(d.stepId);
    const roundId = ids.roundIds.get(d.stepId);
    if (d.node === 'TASK' && taskId !== undefined) {
      const linked = { task_id: taskId };
      await tx.write(updateRow(tx.db, 'weave_activations', linked, ctx.namespaceId, activationId));
    }
    if (d.node === 'POLL' && roundId !== undefined) {
      await tx.write(
        tx.db
          .updateTable('weave_activations')
          .set({ current_round_id: roundId })
          .where('namespace_id', '=', ctx.namespaceId)
          .where('id', '=', activationId),
      );
      await tx.write(
        tx.db
          .updateTable('weave_poll_rounds')
          .set({ task_id: taskId ?? null })
          .where('namespace_id', '=', ctx.namespaceId)
          .where('id', '=', roundId),
      );
    }
  }
}

const encoder = new TextEncoder();

function signalColumns(signal: SignalParameters): SignalColumns {
  return {
    signal_name: signal.signalName,
    payload_version: signal.payloadVersion,
    // Exact bytes (A4.4): the correlation key as UTF-8, compared byte for byte.
    correlation_key: encoder.encode(signal.correlation),
  };
}

interface SignalColumns {
  readonly signal_name: string | null;
  readonly payload_version: number | null;
  readonly correlation_key: Uint8Array | null;
}

const NO_SIGNAL: SignalColumns = {
  signal_name: null,
  payload_version: null,
  correlation_key: null,
};

/**
 * TIMER and SIGNAL waits, and each POLL's final-signal or deadline wait (A2.4–A2.6). The signal
 * waits come back with their ids (they may take a buffered signal at once).
 */
async function insertWaits(
  tx: Tx,
  ctx: RoundContext,
  decisions: readonly ActivateDecision[],
  activationIds: ReadonlyMap<string, string>,
): Promise<NewSignalWait[]> {
  const rows = decisions.flatMap((d): Insertable<WeaveWaitsTable>[] => {
    const base = {
      namespace_id: ctx.namespaceId,
      instance_id: ctx.instanceId,
      activation_id: idOf(activationIds, d.stepId),
      step_row_id: stepOf(ctx, d.stepId).id,
      state: 'WAITING',
      created_at: tx.now,
      closed_at: null,
    };
    if (d.node === 'TIMER') {
      const due = tx.now + BigInt(d.durationMs) * US_PER_MS;
      return [{ ...base, ...NO_SIGNAL, purpose: 'TIMER', due_at: due }];
    }
    if (d.node === 'SIGNAL') {
      const signal: ActivateSignal = d;
      return [
        {
          ...base,
          ...signalColumns(signal),
          purpose: 'SIGNAL',
          due_at: dueWithin(tx, ctx, d.timeoutMs),
        },
      ];
    }
    if (d.node === 'POLL') {
      const due = pollDeadline(tx, ctx, d);
      return d.finalSignal === undefined
        ? [{ ...base, ...NO_SIGNAL, purpose: 'POLL_DEADLINE', due_at: due }]
        : [{ ...base, ...signalColumns(d.finalSignal), purpose: 'POLL_SIGNAL', due_at: due }];
    }
    return [];
  });
  const signals = rows.filter((r) => r.signal_name != null && r.correlation_key != null);
  if (signals.length === 0) {
    if (rows.length > 0) {
      await tx.write(tx.db.insertInto('weave_waits').values(rows));
    }
    return [];
  }
  const query = tx.db.insertInto('weave_waits').values(rows).returning(['id', 'activation_id']);
  const { rows: inserted } = await tx.db.executeQuery(query.compile());
  // RETURNING order is not promised: match by activation (one signal wait per activation).
  const waitIds = new Map(inserted.map((r) => [toId(r.activation_id), toId(r.id)]));
  const stepByActivation = new Map(decisions.map((d) => [idOf(activationIds, d.stepId), d.stepId]));
  return signals.map((r) => {
    const activationId = toId(r.activation_id);
    return {
      waitId: waitIds.get(activationId) ?? '',
      instanceId: ctx.instanceId,
      activationId,
      stepId: stepByActivation.get(activationId) ?? '',
      name: r.signal_name ?? '',
      correlation: r.correlation_key as Uint8Array,
      payloadVersion: Number(r.payload_version),
    };
  });
}
