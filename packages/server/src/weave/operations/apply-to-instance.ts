/**
 * One instance of a bulk operation, in its own transaction (docs/design/bulk-operations.md
 * "One instance"). Lock order: the operation row (`FOR UPDATE`: the fence — the runner still
 * holds the lease at its generation, so a node that lost the operation writes nothing) → the
 * instance and what its control takes (runtime.md §1: instance → its rows → task rows → stream
 * row) → the item row → the audit row. Every writer of an operation's items holds its row lock,
 * so the item check under that lock is exact: an instance already recorded is passed over
 * without being counted again. The action runs in a savepoint: a refusal (`invalid_state` →
 * SKIPPED, any other code → FAILED) undoes only its own writes, and the item, the counters and
 * the cursor commit with the instance's control or not at all — that is what makes it exactly
 * once per instance across crashes and takeovers.
 */
import { stringify } from '@weave/json';
import { writeAudit } from '../../auth/audit.js';
import type { Principal } from '../../auth/principal.js';
import { WeaveError, toError } from '../../errors.js';
import type { Tx } from '../../store/with-tx.js';
import { controlInstance } from '../control/control-instance.js';
import { readInstance, requireInstanceQueues } from '../instance/read-instance.js';
import { recoverStep } from '../recovery/recover-step.js';
import { creatorRights, finishOperation } from './operation-end.js';
import type { InstanceOperation, ItemOutcome } from './operation-record.js';

/** Who runs the operation: the lease it must still hold. */
export interface LeaseHold {
  readonly owner: string;
  readonly generation: bigint;
  readonly leaseUs: bigint;
}

export interface InstanceStep {
  readonly operation: InstanceOperation;
  readonly instanceId: string;
  /** The walk's key of this instance (`<created_at>.<id>`): the cursor after it. */
  readonly key: string;
  readonly hold: LeaseHold;
}

export type InstanceStepResult =
  | { readonly kind: 'lost' }
  /** The creator's credential no longer allows it: the operation ended FAILED in this transaction. */
  | { readonly kind: 'stopped' }
  | {
      readonly kind: 'recorded';
      readonly outcome: ItemOutcome | 'ALREADY_RECORDED';
      readonly queueIds: readonly string[];
    };

const COUNTER: Record<ItemOutcome, 'done_count' | 'failed_count' | 'skipped_count'> = {
  CHANGED: 'done_count',
  UNCHANGED: 'done_count',
  SKIPPED: 'skipped_count',
  FAILED: 'failed_count',
};

/** The operation row locked, if this runner still holds it (same owner and generation). */
export async function lockHeldOperation(
  tx: Tx,
  operation: InstanceOperation,
  hold: LeaseHold,
): Promise<boolean> {
  const row = await tx.dialect
    .forUpdate(
      tx.db
        .selectFrom('weave_instance_operations')
        .select(['status', 'lease_owner', 'generation'])
        .where('namespace_id', '=', operation.namespaceId)
        .where('id', '=', operation.id),
    )
    .executeTakeFirst();
  return (
    row !== undefined &&
    row.status === 'RUNNING' &&
    row.lease_owner === hold.owner &&
    BigInt(row.generation) === hold.generation
  );
}

export async function applyToInstance(tx: Tx, step: InstanceStep): Promise<InstanceStepResult> {
  const { operation, hold } = step;
  const ns = operation.namespaceId;
  if (!(await lockHeldOperation(tx, operation, hold))) {
    return { kind: 'lost' };
  }
  const rights = await creatorRights(tx, operation);
  if (rights.stop !== undefined) {
    await finishOperation(tx, operation, rights.stop);
    return { kind: 'stopped' };
  }
  const recorded = await tx.db
    .selectFrom('weave_instance_operation_items')
    .select('id')
    .where('namespace_id', '=', ns)
    .where('operation_id', '=', operation.id)
    .where('instance_id', '=', step.instanceId)
    .executeTakeFirst();
  let outcome: ItemOutcome | 'ALREADY_RECORDED' = 'ALREADY_RECORDED';
  let queueIds: readonly string[] = [];
  if (recorded === undefined) {
    const acted = await act(tx, { ...step, principal: rights.principal });
    outcome = acted.outcome;
    queueIds = acted.queueIds;
    await tx.write(
      tx.db.insertInto('weave_instance_operation_items').values({
        namespace_id: ns,
        operation_id: operation.id,
        instance_id: step.instanceId,
        outcome: acted.outcome,
        error_code: acted.error?.code ?? null,
        error_message: acted.error?.message.slice(0, 512) ?? null,
        created_at: tx.now,
      }),
    );
  }
  await tx.write(
    tx.db
      .updateTable('weave_instance_operations')
      .set((eb) => ({
        ...(outcome === 'ALREADY_RECORDED'
          ? {}
          : {
              matched_count: eb('matched_count', '+', 1),
              [COUNTER[outcome]]: eb(COUNTER[outcome], '+', 1),
            }),
        cursor_key: step.key,
        lease_until: tx.now + hold.leaseUs,
        updated_at: tx.now,
      }))
      .where('namespace_id', '=', ns)
      .where('id', '=', operation.id),
  );
  return { kind: 'recorded', outcome, queueIds };
}

/** The step with the creator's rights as read in this transaction. */
interface Acting extends InstanceStep {
  readonly principal: Principal;
}

interface Acted {
  readonly outcome: ItemOutcome;
  readonly queueIds: readonly string[];
  readonly error?: { readonly code: string; readonly message: string };
}

/** The action in a savepoint; a refusal is a value (its writes undone), a retryable error is rethrown. */
async function act(tx: Tx, step: Acting): Promise<Acted> {
  try {
    return await tx.savepoint(() => runAction(tx, step));
  } catch (e: unknown) {
    if (tx.dialect.retryableReason(e) !== undefined || tx.dialect.isConnectionError(e)) {
      throw e;
    }
    const error = toError(e);
    const code = e instanceof WeaveError ? e.code : 'internal';
    return {
      outcome: code === 'invalid_state' ? 'SKIPPED' : 'FAILED',
      queueIds: [],
      error: { code, message: error.message },
    };
  }
}

async function runAction(tx: Tx, step: Acting): Promise<Acted> {
  const { operation, principal, instanceId } = step;
  const reason = operation.reason ?? undefined;
  if (operation.action !== 'retry_failed') {
    const done = await controlInstance(tx, {
      principal,
      instanceId,
      action: operation.action,
      reason,
    });
    if (done.changed) {
      await audit(tx, step, `workflow.${operation.action}`);
    }
    return { outcome: done.changed ? 'CHANGED' : 'UNCHANGED', queueIds: done.queueIds };
  }
  // The instance lock first (recoverStep takes it again, re-entrant), then its failing step.
  await tx.dialect
    .forUpdate(
      tx.db
        .selectFrom('weave_instances')
        .select('id')
        .where('namespace_id', '=', principal.namespaceId)
        .where('id', '=', instanceId),
    )
    .execute();
  const read = await readInstance(tx, principal.namespaceId, instanceId);
  requireInstanceQueues(principal, read);
  const stepId = read.instance.errorStepId;
  if (read.instance.status !== 'FAILED' || stepId === null) {
    throw new WeaveError(
      'invalid_state',
      `instance ${instanceId} has no failed step to retry (it is ${read.instance.status})`,
      { details: { status: read.instance.status } },
    );
  }
  const done = await recoverStep(tx, {
    namespaceId: principal.namespaceId,
    instanceId,
    stepId,
    recovery: { action: 'retry' },
    reason: reason ?? `instance operation ${operation.id}`,
  });
  await audit(tx, step, 'instance.step_retry', { step_id: stepId });
  return { outcome: 'CHANGED', queueIds: done.queueIds };
}

function audit(
  tx: Tx,
  step: Acting,
  action: string,
  extra: Record<string, string> = {},
): Promise<void> {
  return writeAudit(tx, {
    namespaceId: step.principal.namespaceId,
    credentialId: step.principal.credentialId,
    action,
    outcome: 'ok',
    objectType: 'instance',
    objectId: step.instanceId,
    requestId: `instance-operation-${step.operation.id}`,
    details: stringify({
      operation_id: step.operation.id,
      ...(step.operation.reason === null ? {} : { reason: step.operation.reason }),
      ...extra,
    }),
  });
}
