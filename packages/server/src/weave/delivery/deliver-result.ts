/**
 * Weave's step of the result transaction, seed 000 §1 steps 4–5 (runtime.md §3.1): for a
 * workflow task (`owner_kind = workflow_activation`, E1.3) a read-only ownership check of
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
import { readNow } from '../../store/with-tx.js';
import { insertRows } from '../../store/insert-rows.js';
import { shaped } from '../../store/statement-shapes.js';

/**
 * The owner of every workflow task (`tasks.owner_kind`, E1.3): `owner_id` is its activation. A
 * TASK activation names its task in `task_id`; a POLL activation's query tasks are named by its
 * rounds (`weave_poll_rounds.task_id`).
 */
export const OWNER_ACTIVATION = 'workflow_activation';
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

/**
 * Reads only (E1.9): activation, step, instance, gate and the version of the same digest, and for
 * a POLL activation the round that names this task — one statement, each table on the namespace.
 */
async function checkOwner(tx: Tx, result: TaskResultForWorkflow): Promise<Owner> {
  if (result.ownerKind !== OWNER_ACTIVATION) {
    lost(result, `unknown owner ${result.ownerKind}`);
  }
  if (result.ownerId === null) {
    lost(result, 'no owner id');
  }
  const ns = result.namespaceId;
  const ownerId = result.ownerId;
  // Kysely binds the joins' values first (step, instance, gate, version, round), then the WHERE's.
  const [rows] = await tx.readAll(
    shaped(tx.db, 'owner of task', [ns, ns, ns, ns, ns, result.taskId, ns, ownerId], () =>
      ownerQuery(tx, ns, result.taskId, ownerId),
    ),
  );
  const row = rows[0];
  if (row === undefined || row.digest !== row.version_digest) {
    lost(result, 'no activation, step, instance, gate or version of the same digest');
  }
  const roundId = row.round_id === null ? null : toId(row.round_id);
  if (row.kind === 'POLL' ? roundId === null : toId(row.task_id ?? 0) !== result.taskId) {
    lost(result, 'the activation does not own this task');
  }
  return {
    instanceId: toId(row.instance_id),
    activationId: result.ownerId,
    roundId,
    stepRevision: BigInt(row.revision),
  };
}

/** The one read of `checkOwner`: activation, step, instance, gate, version and POLL round. */
function ownerQuery(tx: Tx, ns: string, taskId: string, ownerId: string) {
  return tx.db
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
    .leftJoin('weave_poll_rounds as r', (j) =>
      j
        .onRef('r.activation_id', '=', 'a.id')
        .on('r.namespace_id', '=', ns)
        .on('r.task_id', '=', taskId),
    )
    .select([
      'a.instance_id',
      'a.kind',
      'a.task_id',
      's.revision',
      'i.digest',
      'v.digest as version_digest',
      'r.id as round_id',
    ])
    .where('a.namespace_id', '=', ns)
    .where('a.id', '=', ownerId);
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
  // E4.5 (signals.md §3): a POLL query's admission time is read now, under its task's lock, which
  // a final signal also takes before it reads its own: the two times are in lock order.
  const admittedAt = owner.roundId === null ? tx.now : await readNow(tx.db, tx.dialect);
  await tx.write(
    insertRows(tx.db, 'weave_inbox', [
      {
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
        available_at: admittedAt,
        lease_owner: null,
        lease_until: null,
        error_code: null,
        created_at: admittedAt,
        processed_at: null,
      },
    ]),
  );
  tx.afterCommit(() => tx.wakeUps.notify(INBOX_WAKE_UP));
}
