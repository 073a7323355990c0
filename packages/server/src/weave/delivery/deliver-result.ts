/**
 * Weave's step of the result transaction, seed 000 §1 steps 4–5 (runtime.md §3.1): for a
 * workflow task (`owner_kind` = activation or poll round, E1.3) a read-only ownership check of
 * activation, step, instance, gate and version (E1.4, E1.9), then the `weave_inbox` row with its
 * frozen `schema_version = 1` snapshot (E2.1, E2.2). A lost association refuses the task result:
 * the whole result transaction rolls back (E2.8). Whether the activation is still current is not
 * the producer's to decide (E1.7): the consumer checks it. Plain tasks never get here (E1.2).
 *
 * This folder imports nothing of pulse (pulse calls in here; see ARCHITECTURE.md).
 */
import { stringify, utf8ByteLength } from '@weave/json';
import { WeaveError } from '../../errors.js';
import { toId } from '../../store/values.js';
import type { Tx } from '../../store/with-tx.js';

/** Task owners (`tasks.owner_kind`, E1.3). */
export const OWNER_ACTIVATION = 'workflow_activation';
export const OWNER_POLL_ROUND = 'workflow_poll_round';
/** The frozen snapshot's bound (seed 000 §2, E2.2). */
export const MAX_SNAPSHOT_BYTES = 512 * 1024;
/** Wakes this node's inbox consumer after a result commits (`tx.wakeUps`). */
export const INBOX_WAKE_UP = 'weave.inbox';

export interface TaskResultForWorkflow {
  readonly namespaceId: string;
  readonly taskId: string;
  readonly queueId: string;
  readonly ownerKind: string;
  readonly ownerId: string | null;
  readonly revision: bigint;
  readonly status: string;
  readonly attemptId: string | null;
  readonly effectUncertain: boolean;
  /** The result JSON text (SUCCEEDED), embedded raw. */
  readonly result: string | null;
  readonly error: { readonly code: string; readonly message: string } | null;
}

interface Owner {
  readonly instanceId: string;
  readonly activationId: string;
  readonly roundId: string | null;
  readonly stepRevision: bigint;
}

function lost(result: TaskResultForWorkflow, why: string): never {
  throw new WeaveError('internal', `workflow association lost: ${why}`, {
    details: { task_id: result.taskId },
  });
}

/** The activation a task belongs to: its owner, or its poll round's activation. */
async function activationOf(tx: Tx, result: TaskResultForWorkflow, ownerId: string) {
  if (result.ownerKind === OWNER_ACTIVATION) {
    return { activationId: ownerId, roundId: null };
  }
  if (result.ownerKind !== OWNER_POLL_ROUND) {
    lost(result, `unknown owner ${result.ownerKind}`);
  }
  const round = await tx.db
    .selectFrom('weave_poll_rounds')
    .select(['activation_id', 'task_id'])
    .where('namespace_id', '=', result.namespaceId)
    .where('id', '=', ownerId)
    .executeTakeFirst();
  if (round === undefined || toId(round.task_id ?? 0) !== result.taskId) {
    lost(result, 'the poll round does not own this task');
  }
  return { activationId: toId(round.activation_id), roundId: ownerId };
}

/** Reads only (E1.9): activation, step, instance, gate and the version of the same digest. */
async function checkOwner(tx: Tx, result: TaskResultForWorkflow): Promise<Owner> {
  if (result.ownerId === null) {
    lost(result, 'no owner id');
  }
  const { activationId, roundId } = await activationOf(tx, result, result.ownerId);
  const ns = result.namespaceId;
  const row = await tx.db
    .selectFrom('weave_activations as a')
    .innerJoin('weave_steps as s', (j) =>
      j
        .onRef('s.id', '=', 'a.step_row_id')
        .onRef('s.instance_id', '=', 'a.instance_id')
        .on('s.namespace_id', '=', ns),
    )
    .innerJoin('weave_instances as i', (j) =>
      j.onRef('i.id', '=', 'a.instance_id').on('i.namespace_id', '=', ns),
    )
    .innerJoin('weave_gates as g', (j) =>
      j.onRef('g.instance_id', '=', 'i.id').on('g.namespace_id', '=', ns),
    )
    .innerJoin('weave_definition_versions as v', (j) =>
      j
        .onRef('v.id', '=', 'i.version_id')
        .onRef('v.definition_id', '=', 'i.definition_id')
        .on('v.namespace_id', '=', ns),
    )
    .select(['a.instance_id', 'a.task_id', 's.revision', 'i.digest', 'v.digest as version_digest'])
    .where('a.namespace_id', '=', ns)
    .where('a.id', '=', activationId)
    .executeTakeFirst();
  if (row === undefined || row.digest !== row.version_digest) {
    lost(result, 'no activation, step, instance, gate or version of the same digest');
  }
  if (roundId === null && toId(row.task_id ?? 0) !== result.taskId) {
    lost(result, 'the activation does not own this task');
  }
  return {
    instanceId: toId(row.instance_id),
    activationId,
    roundId,
    stepRevision: BigInt(row.revision),
  };
}

export async function deliverResult(tx: Tx, result: TaskResultForWorkflow): Promise<void> {
  const owner = await checkOwner(tx, result);
  const snapshot = stringify({
    schema_version: 1,
    task_id: result.taskId,
    queue_id: result.queueId,
    status: result.status,
    revision: result.revision.toString(),
    attempt_id: result.attemptId,
    effect_uncertain: result.effectUncertain,
    ...(result.result === null ? {} : { result: { kind: 'raw', text: result.result } }),
    ...(result.error === null ? {} : { error: result.error }),
  });
  if (utf8ByteLength(snapshot) > MAX_SNAPSHOT_BYTES) {
    lost(result, 'the frozen snapshot is over 512 KiB');
  }
  await tx.write(
    tx.db.insertInto('weave_inbox').values({
      namespace_id: result.namespaceId,
      instance_id: owner.instanceId,
      event_id: `task.${result.taskId}.${result.revision}`,
      type: `task.${result.status.toLowerCase()}`,
      source_task_id: result.taskId,
      source_activation_id: owner.activationId,
      source_revision: result.revision,
      source_round_id: owner.roundId,
      source_step_revision: owner.stepRevision,
      snapshot,
      state: 'PENDING',
      outcome: null,
      available_at: tx.now,
      lease_owner: null,
      lease_until: null,
      error_code: null,
      created_at: tx.now,
      processed_at: null,
    }),
  );
  tx.afterCommit(() => tx.wakeUps.notify(INBOX_WAKE_UP));
}
