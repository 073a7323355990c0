/** The audit log: every change made through the API and every denied request. */
import { insertRows } from '../store/insert-rows.js';
import type { Tx } from '../store/with-tx.js';

export interface AuditEntry {
  readonly namespaceId: string | null;
  readonly credentialId: string | null;
  readonly action: string;
  readonly outcome: 'ok' | 'denied';
  readonly code?: string;
  readonly objectType?: string;
  readonly objectId?: string;
  readonly requestId?: string;
  /** Small JSON text; never keys or business payloads. */
  readonly details?: string;
}

export async function writeAudit(tx: Tx, entry: AuditEntry): Promise<void> {
  await writeAudits(tx, [entry]);
}

/** Many audit rows in one insert (a batch of settlements). */
export async function writeAudits(tx: Tx, entries: readonly AuditEntry[]): Promise<void> {
  if (entries.length === 0) {
    return;
  }
  await tx.write(
    insertRows(
      tx.db,
      'audit_log',
      entries.map((entry) => ({
        namespace_id: entry.namespaceId,
        at: tx.now,
        credential_id: entry.credentialId,
        action: entry.action,
        outcome: entry.outcome,
        code: entry.code ?? null,
        object_type: entry.objectType ?? null,
        object_id: entry.objectId ?? null,
        request_id: entry.requestId ?? null,
        details: entry.details ?? null,
      })),
    ),
  );
}
