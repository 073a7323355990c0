/**
 * The step, activation and poll-round rows a runner round changes (runtime.md §5.3): every step
 * row the round moved (its revision + 1, E4.2; `$root` every round), the causes of failed steps,
 * the settled activations, the POLL rounds that finished or come next, and the waits the round
 * closed (runtime.md §4.2).
 */
import type { FailDecision } from '@weave/engine';
import { updateRow } from '../../store/update-row.js';
import type { Tx } from '../../store/with-tx.js';
import type { StepWrite } from '../model/snapshot-rows.js';
import { cancelRounds, closeWaitsOf } from './cancel-leaves.js';
import type { Settlements } from './settle-results.js';

const FINISHED = new Set(['SUCCEEDED', 'FAILED', 'SKIPPED', 'CANCELLED']);

export async function persistRound(
  tx: Tx,
  round: {
    readonly ref: { readonly namespaceId: string; readonly instanceId: string };
    readonly writes: readonly StepWrite[];
    readonly settlements: Settlements;
    readonly failed: readonly FailDecision[];
    /** Settled activations whose remaining waits close (POLLs). */
    readonly closeWaitsOf?: readonly string[];
  },
): Promise<void> {
  const ns = round.ref.namespaceId;
  const errors = new Map(round.settlements.errors);
  for (const fail of round.failed) {
    errors.set(fail.stepId, { code: fail.error.code, message: fail.error.message });
  }
  for (const w of round.writes) {
    const error = errors.get(w.stepId);
    const set = {
      status: w.status,
      revision: w.revision,
      output: w.output,
      case_index: w.caseIndex,
      completed_by: w.completedBy,
      cancel_requested: w.cancelRequested ? 1 : 0,
      ...(error === undefined ? {} : { error_code: error.code, error_message: error.message }),
      ...(FINISHED.has(w.status) ? { finished_at: tx.now } : {}),
      updated_at: tx.now,
    };
    await tx.write(updateRow(tx.db, 'weave_steps', set, ns, w.stepRowId));
  }
  for (const a of round.settlements.activations) {
    const set = {
      status: a.status,
      last_task_revision: a.lastTaskRevision,
      ...(FINISHED.has(a.status) ? { finished_at: tx.now } : {}),
    };
    await tx.write(updateRow(tx.db, 'weave_activations', set, ns, a.id));
  }
  // A composite (or `$root`) that finished ends its activation too; leaves were settled above.
  for (const status of ['SUCCEEDED', 'FAILED', 'CANCELLED'] as const) {
    const rows = round.writes.filter((w) => w.status === status).map((w) => w.stepRowId);
    if (rows.length > 0) {
      await tx.write(
        tx.db
          .updateTable('weave_activations')
          .set({ status, finished_at: tx.now })
          .where('namespace_id', '=', ns)
          .where('step_row_id', 'in', rows)
          .where('status', '=', 'ACTIVE'),
      );
    }
  }
  await persistRounds(tx, round.ref, round.settlements);
  for (const closed of round.settlements.closedWaits) {
    await tx.write(
      tx.db
        .updateTable('weave_waits')
        .set({ state: closed.state, closed_at: tx.now })
        .where('namespace_id', '=', ns)
        .where('id', '=', closed.id),
    );
  }
  // A POLL settled by its query (or its deadline) still has its deadline or final-signal wait.
  await closeWaitsOf(tx, ns, round.closeWaitsOf ?? [], 'CANCELLED');
  await cancelRounds(tx, ns, round.settlements.cancelledRounds);
  // `settlements.cancelTasks` are the caller's to cancel, with any others of its round, in one
  // ascending pass (cancel-leaves.ts `cancelOpenTasks`).
}

async function persistRounds(
  tx: Tx,
  ref: { readonly namespaceId: string; readonly instanceId: string },
  settlements: Settlements,
): Promise<void> {
  for (const done of settlements.roundsDone) {
    await tx.write(
      tx.db
        .updateTable('weave_poll_rounds')
        .set({ state: 'DONE', classification: done.classification, finished_at: tx.now })
        .where('namespace_id', '=', ref.namespaceId)
        .where('id', '=', done.id),
    );
  }
  for (const next of settlements.nextRounds) {
    // The clock creates the round's task when it falls due (runtime.md §4.2).
    await tx.write(
      tx.db.insertInto('weave_poll_rounds').values({
        namespace_id: ref.namespaceId,
        instance_id: ref.instanceId,
        activation_id: next.activationId,
        number: next.number,
        state: 'SCHEDULED',
        due_at: next.dueAt,
        task_id: null,
        classification: null,
        created_at: tx.now,
        finished_at: null,
      }),
    );
  }
}
