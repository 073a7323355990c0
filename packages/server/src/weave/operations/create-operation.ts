/**
 * Creating a bulk operation (docs/design/bulk-operations.md "Create"): one row, one transaction,
 * nothing else written — the server nodes' runners do the work. The walk's upper bound is fixed
 * here as min(filter.created_before, DB time), so instances started after the creation never
 * join. `retry_failed` with no status filter walks the FAILED instances.
 */
import type { Principal } from '../../auth/principal.js';
import type { Tx } from '../../store/with-tx.js';
import { toId } from '../../store/values.js';
import type { InstanceListFilter } from '../instance/list-instances.js';
import { toFilterText } from './operation-filter.js';
import type { OperationAction } from './operation-record.js';

export interface CreateOperationRequest {
  readonly principal: Principal;
  readonly action: OperationAction;
  readonly filter: InstanceListFilter;
  readonly reason?: string | undefined;
}

export async function createOperation(tx: Tx, request: CreateOperationRequest): Promise<string> {
  const filter: InstanceListFilter =
    request.action === 'retry_failed' && request.filter.statuses === undefined
      ? { ...request.filter, statuses: ['FAILED'] }
      : request.filter;
  const before = filter.createdBefore;
  const bound = before !== undefined && before < tx.now ? before : tx.now;
  const inserted = await tx.db
    .insertInto('weave_instance_operations')
    .values({
      namespace_id: request.principal.namespaceId,
      action: request.action,
      filter: toFilterText(filter),
      reason: request.reason ?? null,
      status: 'RUNNING',
      created_before: bound,
      cursor_key: null,
      created_by: request.principal.credentialId,
      error_code: null,
      error_message: null,
      lease_owner: null,
      lease_until: null,
      created_at: tx.now,
      updated_at: tx.now,
      finished_at: null,
    })
    .executeTakeFirstOrThrow();
  const id = inserted.insertId;
  if (id === undefined) {
    throw new Error('the operation insert returned no id');
  }
  return toId(id);
}
