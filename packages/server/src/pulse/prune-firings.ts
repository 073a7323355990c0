/**
 * Retention of schedule firing records: a firing row is the idempotency identity of its slot
 * only while the slot can still be fired, and `next_slot_at` never moves back, so a record
 * older than the retention period can go. Deleted oldest first, `limit` per transaction.
 */
import type { Micros } from '../store/values.js';
import type { Tx } from '../store/with-tx.js';

/** Firing records are kept 30 days (`GET /tasks/{id}/source` names the slot until then). */
export const FIRING_RETENTION_US: Micros = 30n * 86_400_000_000n;
export const PRUNE_BATCH = 1_000;

/** Deletes up to `limit` records older than `retentionUs`; returns how many. */
export async function pruneFirings(
  tx: Tx,
  retentionUs: Micros = FIRING_RETENTION_US,
  limit = PRUNE_BATCH,
): Promise<number> {
  const old = await tx.db
    .selectFrom('schedule_firings')
    .select('id')
    .where('created_at', '<', tx.now - retentionUs)
    .orderBy('created_at')
    .limit(limit)
    .execute();
  if (old.length === 0) {
    return 0;
  }
  await tx.db
    .deleteFrom('schedule_firings')
    .where(
      'id',
      'in',
      old.map((r) => r.id),
    )
    .execute();
  return old.length;
}
