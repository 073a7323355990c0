/**
 * Cancelling in-flight leaves (runtime.md §4.3 step 2, §4.2 "instance deadline"): the planner's
 * CANCEL decisions in a failing scope, and every in-flight leaf when the instance deadline passes.
 *
 * - A leaf with a task in flight (TASK, or a POLL whose round runs a query task) gets its Pulse
 *   task cancelled: PENDING/CLAIMED end CANCELLED at once through the result transaction (their
 *   inbox row is written in this same transaction and settles the step in the next round),
 *   RUNNING is told at its next heartbeat.
 * - A leaf with nothing running (SIGNAL, TIMER, a POLL between rounds) is CANCELLED now: its
 *   waits and scheduled round are closed and the step settles in this same round.
 * NEEDS_REVIEW leaves are left to the operator (E4.6).
 */
import { WeaveError } from '../../errors.js';
import { cancelTask } from '../../pulse/cancel-task.js';
import { inNamespaces } from '../../store/namespace-filter.js';
import { compareIds } from '../../store/values.js';
import type { Tx } from '../../store/with-tx.js';
import type { Activation, PollRound, StepRow } from '../model/rows.js';

export interface LeafCancels {
  /** Steps that settle CANCELLED in this round (nothing of theirs runs). */
  readonly cancelledSteps: readonly string[];
  /** Their activations (CANCELLED) — their open waits are closed too. */
  readonly cancelledActivations: readonly string[];
  /** Scheduled or running rounds of cancelled POLLs. */
  readonly cancelledRounds: readonly string[];
  /** Tasks in flight to cancel through Pulse. */
  readonly tasks: readonly string[];
}

export const NO_CANCELS: LeafCancels = {
  cancelledSteps: [],
  cancelledActivations: [],
  cancelledRounds: [],
  tasks: [],
};

/** Which leaves settle now and which tasks are cancelled. Pure. */
export function planLeafCancels(
  stepIds: Iterable<string>,
  at: {
    readonly steps: readonly StepRow[];
    readonly activations: readonly Activation[];
    readonly openRounds: readonly PollRound[];
    /** Activations this round already settled (a result or a due wait): nothing to cancel. */
    readonly settled: ReadonlySet<string>;
    /** Rounds this round finished (a PENDING result): no longer running. */
    readonly doneRounds: ReadonlySet<string>;
  },
): LeafCancels {
  const byStep = new Map(at.steps.map((s) => [s.stepId, s]));
  const activations = new Map(at.activations.map((a) => [a.id, a]));
  const out = {
    cancelledSteps: [] as string[],
    cancelledActivations: [] as string[],
    cancelledRounds: [] as string[],
    tasks: [] as string[],
  };
  for (const stepId of stepIds) {
    const step = byStep.get(stepId);
    const activation = activations.get(step?.currentActivationId ?? '');
    if (step === undefined || activation === undefined || at.settled.has(activation.id)) {
      continue;
    }
    if (activation.status === 'NEEDS_REVIEW') {
      continue;
    }
    if (activation.kind === 'TASK') {
      if (activation.taskId !== null) {
        out.tasks.push(activation.taskId);
      }
      continue;
    }
    const rounds = at.openRounds.filter(
      (r) => r.activationId === activation.id && !at.doneRounds.has(r.id),
    );
    const running = rounds.find((r) => r.state === 'RUNNING' && r.taskId !== null);
    if (activation.kind === 'POLL' && running?.taskId != null) {
      out.tasks.push(running.taskId);
      continue;
    }
    out.cancelledSteps.push(stepId);
    out.cancelledActivations.push(activation.id);
    out.cancelledRounds.push(...rounds.map((r) => r.id));
  }
  return out;
}

/** Closes what `planLeafCancels` settled and cancels the tasks (one statement per row kind). */
export async function executeLeafCancels(
  tx: Tx,
  namespaceId: string,
  cancels: LeafCancels,
): Promise<void> {
  if (cancels.cancelledActivations.length > 0) {
    await tx.write(
      tx.db
        .updateTable('weave_activations')
        .set({ status: 'CANCELLED', finished_at: tx.now })
        .where(inNamespaces([namespaceId]))
        .where('id', 'in', [...cancels.cancelledActivations]),
    );
    await closeWaitsOf(tx, namespaceId, cancels.cancelledActivations, 'CANCELLED');
  }
  await cancelRounds(tx, namespaceId, cancels.cancelledRounds);
  await cancelOpenTasks(tx, namespaceId, cancels.tasks);
}

/**
 * Task rows are locked in ascending id (runtime.md §1), as a worker's batch completion locks
 * them: cancelled in any other order, two such transactions could deadlock on MariaDB.
 */
export async function cancelOpenTasks(
  tx: Tx,
  namespaceId: string,
  taskIds: readonly string[],
): Promise<void> {
  for (const taskId of [...new Set(taskIds)].sort(compareIds)) {
    await cancelOpenTask(tx, namespaceId, taskId);
  }
}

/** Every still-WAITING wait of these activations (index `(namespace_id, activation_id)`). */
export async function closeWaitsOf(
  tx: Tx,
  namespaceId: string,
  activationIds: readonly string[],
  state: 'CANCELLED' | 'EXPIRED',
): Promise<void> {
  if (activationIds.length === 0) {
    return;
  }
  await tx.write(
    tx.db
      .updateTable('weave_waits')
      .set({ state, closed_at: tx.now })
      .where('namespace_id', '=', namespaceId)
      .where('activation_id', 'in', [...activationIds])
      .where('state', '=', 'WAITING'),
  );
}

export async function cancelRounds(
  tx: Tx,
  namespaceId: string,
  roundIds: readonly string[],
): Promise<void> {
  if (roundIds.length === 0) {
    return;
  }
  await tx.write(
    tx.db
      .updateTable('weave_poll_rounds')
      .set({ state: 'CANCELLED', finished_at: tx.now })
      .where(inNamespaces([namespaceId]))
      .where('id', 'in', [...roundIds])
      .where('state', 'in', ['SCHEDULED', 'RUNNING']),
  );
}

/**
 * Cancels a task unless it has already ended: its result transaction may have committed after
 * this round read the inbox (it never locks the instance, E1.9); that result is the next round's.
 */
async function cancelOpenTask(tx: Tx, namespaceId: string, taskId: string): Promise<void> {
  try {
    await cancelTask(tx, { namespaceId, taskId, credentialId: null });
  } catch (e: unknown) {
    if (!(e instanceof WeaveError && e.code === 'invalid_state')) {
      throw e;
    }
  }
}
