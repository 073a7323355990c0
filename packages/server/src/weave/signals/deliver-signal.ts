/**
 * Delivering a signal to waits (docs/design/signals.md §2, §4): each wait MATCHED and one
 * `signal.received` inbox row per wait, with its frozen snapshot, in the caller's transaction
 * (the instance is locked, or the wait was created in it). The existing consumer applies the
 * row; `INBOX_WAKE_UP` after commit runs it on this node at once.
 */
import type { Tx } from '../../store/with-tx.js';
import type { Micros } from '../../store/values.js';
import { INBOX_WAKE_UP } from '../delivery/deliver-result.js';
import { SIGNAL_RECEIVED, signalEventId, signalSnapshot } from './signal-snapshot.js';
import type { SignalDelivery } from './signal-snapshot.js';

export interface WaitDelivery extends SignalDelivery {
  readonly instanceId: string;
  readonly activationId: string;
}

export async function deliverToWaits(
  tx: Tx,
  at: { readonly namespaceId: string; readonly createdAt: Micros },
  deliveries: readonly WaitDelivery[],
): Promise<void> {
  if (deliveries.length === 0) {
    return;
  }
  await tx.write(
    tx.db
      .updateTable('weave_waits')
      .set({ state: 'MATCHED', closed_at: tx.now })
      .where('namespace_id', '=', at.namespaceId)
      .where(
        'id',
        'in',
        deliveries.map((d) => d.waitId),
      )
      .where('state', '=', 'WAITING'),
  );
  await tx.write(
    tx.db.insertInto('weave_inbox').values(
      deliveries.map((d) => ({
        namespace_id: at.namespaceId,
        instance_id: d.instanceId,
        event_id: signalEventId(d),
        type: SIGNAL_RECEIVED,
        source_task_id: null,
        source_activation_id: d.activationId,
        source_revision: null,
        source_round_id: null,
        source_step_revision: null,
        snapshot: signalSnapshot(d),
        state: 'PENDING',
        outcome: null,
        // E4.5: the consumer orders an instance's rows by this time (the admission time).
        available_at: at.createdAt,
        lease_owner: null,
        lease_until: null,
        error_code: null,
        created_at: at.createdAt,
        processed_at: null,
      })),
    ),
  );
  tx.afterCommit(() => tx.wakeUps.notify(INBOX_WAKE_UP));
}
