/** Reading bulk operations (`GET /instance-operations[/{id}]`): non-locking, namespace-scoped. */
import { notFound } from '../../errors.js';
import type { Page } from '../../store/pages.js';
import { readPage } from '../../store/pages.js';
import type { Tx } from '../../store/with-tx.js';
import type { InstanceOperation } from './operation-record.js';
import { toOperation } from './operation-record.js';

export async function readOperation(
  tx: Tx,
  namespaceId: string,
  operationId: string,
): Promise<InstanceOperation> {
  const row = /^[0-9]{1,19}$/.test(operationId)
    ? await tx.db
        .selectFrom('weave_instance_operations')
        .selectAll()
        .where('namespace_id', '=', namespaceId)
        .where('id', '=', operationId)
        .executeTakeFirst()
    : undefined;
  if (row === undefined) {
    throw notFound(`instance operation ${operationId}`, { path: '$.operation' });
  }
  return toOperation(row);
}

/** Newest first, by id (index `(namespace_id, id)`). */
export function listOperations(
  tx: Tx,
  namespaceId: string,
  page: { readonly afterId: string | undefined; readonly size: number },
): Promise<Page<InstanceOperation>> {
  return readPage(
    tx.db
      .selectFrom('weave_instance_operations')
      .selectAll()
      .where('namespace_id', '=', namespaceId),
    page,
    { column: 'id', toItem: toOperation, idOf: (op) => op.id, descending: true },
  );
}
