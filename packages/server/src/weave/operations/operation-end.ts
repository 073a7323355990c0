/**
 * The creator's rights, read again on the database clock in every transaction of an operation
 * (batch reads and each instance), and the operation's end: SUCCEEDED when the walk is done,
 * FAILED when the creator's credential is revoked, expired, gone, or lost `workflows:control`.
 */
import { principalOfCredential } from '../../auth/credential-principal.js';
import type { Principal } from '../../auth/principal.js';
import { hasScope } from '../../auth/principal.js';
import type { Tx } from '../../store/with-tx.js';
import type { InstanceOperation } from './operation-record.js';

export type OperationEnd =
  | { readonly status: 'SUCCEEDED' }
  | { readonly status: 'FAILED'; readonly code: string; readonly message: string };

export type CreatorRights =
  { readonly principal: Principal; readonly stop?: undefined } | { readonly stop: OperationEnd };

export async function creatorRights(tx: Tx, operation: InstanceOperation): Promise<CreatorRights> {
  const state = await principalOfCredential(tx, operation.namespaceId, operation.createdBy);
  if (!state.ok) {
    return {
      stop: {
        status: 'FAILED',
        code: 'unauthenticated',
        message: `the credential that created the operation is ${state.reason.replace('_', ' ')}`,
      },
    };
  }
  if (!hasScope(state.principal, 'workflows:control')) {
    return {
      stop: {
        status: 'FAILED',
        code: 'permission_denied',
        message: 'the credential that created the operation lacks the scope workflows:control',
      },
    };
  }
  return { principal: state.principal };
}

/** Ends the operation (the caller holds its row lock and lease); the lease is let go. */
export async function finishOperation(
  tx: Tx,
  operation: InstanceOperation,
  end: OperationEnd,
): Promise<void> {
  await tx.write(
    tx.db
      .updateTable('weave_instance_operations')
      .set({
        status: end.status,
        error_code: end.status === 'FAILED' ? end.code : null,
        error_message: end.status === 'FAILED' ? end.message : null,
        lease_owner: null,
        lease_until: null,
        finished_at: tx.now,
        updated_at: tx.now,
      })
      .where('namespace_id', '=', operation.namespaceId)
      .where('id', '=', operation.id),
  );
}
