/**
 * History (runtime.md §4.5): an instance's events after a seq, in seq order, read on the unique
 * key `(namespace_id, instance_id, seq)` (no sort). The cursor is the last seq of the page.
 */
import type { Tx } from '../../store/with-tx.js';
import type { HistoryEvent } from '../model/rows.js';
import { toHistoryEvent } from '../model/rows.js';

export interface HistoryRead {
  readonly events: readonly HistoryEvent[];
  /** The last seq of the page; `after` when the page is empty. */
  readonly nextAfter: bigint;
}

export async function readHistory(
  tx: Tx,
  at: { readonly namespaceId: string; readonly instanceId: string },
  page: { readonly after: bigint; readonly limit: number },
): Promise<HistoryRead> {
  const rows = await tx.db
    .selectFrom('weave_history')
    .selectAll()
    .where('namespace_id', '=', at.namespaceId)
    .where('instance_id', '=', at.instanceId)
    .where('seq', '>', page.after)
    .orderBy('seq')
    .limit(page.limit)
    .execute();
  const events = rows.map(toHistoryEvent);
  return { events, nextAfter: events[events.length - 1]?.seq ?? page.after };
}
