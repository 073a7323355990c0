/**
 * Idempotency receipts: (namespace, operation, key) → the frozen request digest and the original
 * response. A replay returns the original status and body; the same key with another request is
 * `idempotency_conflict`. Only successful responses are kept: a failed request wrote nothing, so
 * retrying it with the same key (say after a 429) runs it again.
 *
 * Concurrency: the placeholder row is inserted before the work. A second transaction with the
 * same key blocks on that unique-key insert until the first commits, then sees the duplicate and
 * replays the committed receipt (READ COMMITTED). SQLite serialises writers anyway.
 */
import { WeaveError } from '../errors.js';
import type { Tx } from './with-tx.js';
import { toInt } from './values.js';

export interface ReceiptKey {
  readonly namespaceId: string;
  readonly operation: string;
  readonly key: string;
  /** sha256 hex of the canonical request. */
  readonly digest: string;
}

export interface StoredResponse {
  readonly status: number;
  readonly body: string;
}

export type ReceiptClaim =
  { readonly kind: 'new' } | { readonly kind: 'replay'; readonly response: StoredResponse };

export async function claimReceipt(tx: Tx, key: ReceiptKey): Promise<ReceiptClaim> {
  const existing = await findReceipt(tx, key);
  if (existing !== undefined) {
    return existing;
  }
  try {
    await tx.db
      .insertInto('receipts')
      .values({
        namespace_id: key.namespaceId,
        operation: key.operation,
        idempotency_key: key.key,
        request_digest: key.digest,
        status_code: 0,
        response: '',
        created_at: tx.now,
      })
      .execute();
    return { kind: 'new' };
  } catch (e: unknown) {
    if (!tx.dialect.isUniqueViolation(e)) {
      throw e;
    }
    const raced = await findReceipt(tx, key);
    if (raced === undefined) {
      throw e;
    }
    return raced;
  }
}

async function findReceipt(tx: Tx, key: ReceiptKey): Promise<ReceiptClaim | undefined> {
  const row = await tx.db
    .selectFrom('receipts')
    .select(['request_digest', 'status_code', 'response'])
    .where('namespace_id', '=', key.namespaceId)
    .where('operation', '=', key.operation)
    .where('idempotency_key', '=', key.key)
    .executeTakeFirst();
  if (row === undefined) {
    return undefined;
  }
  if (row.request_digest !== key.digest) {
    throw new WeaveError(
      'idempotency_conflict',
      'the Idempotency-Key was already used with a different request',
      { details: { path: 'Idempotency-Key', operation: key.operation } },
    );
  }
  return { kind: 'replay', response: { status: toInt(row.status_code), body: row.response } };
}

export async function completeReceipt(
  tx: Tx,
  key: ReceiptKey,
  response: StoredResponse,
): Promise<void> {
  await tx.db
    .updateTable('receipts')
    .set({ status_code: response.status, response: response.body })
    .where('namespace_id', '=', key.namespaceId)
    .where('operation', '=', key.operation)
    .where('idempotency_key', '=', key.key)
    .execute();
}
