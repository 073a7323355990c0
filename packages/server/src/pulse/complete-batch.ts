/**
 * Many completions in one transaction (API.md `POST /queues/{q}/completions`), so a busy worker
 * pays one commit for a batch instead of one per task (DESIGN.md §5a). Each item is whole or
 * nothing on its own: it runs inside a SAVEPOINT that a refused item (permit_stale, …) rolls
 * back, so a bad item never blocks the others. Items are applied in ascending task id, the lock
 * order of task rows, so two overlapping batches cannot deadlock each other.
 */
import { sql } from 'kysely';
import { isWeaveError } from '../errors.js';
import type { WeaveError } from '../errors.js';
import type { Tx } from '../store/with-tx.js';
import type { CompleteRequest } from './complete-attempt.js';
import { completeAttempt } from './complete-attempt.js';
import type { TaskReceipt } from './settle-task.js';

/** Most completions in one call. */
export const MAX_BATCH_COMPLETIONS = 100;

export type BatchItemResult =
  | { readonly index: number; readonly receipt: TaskReceipt }
  | { readonly index: number; readonly error: WeaveError };

export async function completeBatch(
  tx: Tx,
  items: readonly CompleteRequest[],
): Promise<BatchItemResult[]> {
  const order = items
    .map((item, index) => ({ item, index }))
    .sort((a, b) => compareIds(a.item.taskId, b.item.taskId));
  const results: BatchItemResult[] = [];
  for (const { item, index } of order) {
    await sql`SAVEPOINT completion_item`.execute(tx.db);
    try {
      const receipt = await completeAttempt(tx, item);
      await sql`RELEASE SAVEPOINT completion_item`.execute(tx.db);
      results.push({ index, receipt });
    } catch (e: unknown) {
      // Only refusals are per item; a driver error (deadlock, lost connection) fails the batch.
      if (!isWeaveError(e)) {
        throw e;
      }
      await sql`ROLLBACK TO SAVEPOINT completion_item`.execute(tx.db);
      await sql`RELEASE SAVEPOINT completion_item`.execute(tx.db);
      results.push({ index, error: e });
    }
  }
  return results.sort((a, b) => a.index - b.index);
}

function compareIds(a: string, b: string): number {
  return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
}
