/**
 * The bounded-advance checkpoint (A3.2, E3.11, runtime.md §1.9): when a round runs out of its 32
 * changes, a row says that — and after which `$root` revision — advancing must continue. It
 * holds no snapshot: the next round plans from the persisted rows. After the commit this node's
 * consumer is woken at once (other nodes find the row by their scan).
 */
import { stringify } from '@weave/json';
import { ROOT_STEP_ID } from '@weave/engine';
import type { Tx } from '../../store/with-tx.js';
import { INBOX_WAKE_UP } from '../delivery/deliver-result.js';

export async function insertPendingAdvance(
  tx: Tx,
  at: {
    readonly namespaceId: string;
    readonly instanceId: string;
    readonly rootRowId: string;
    /** `$root`'s revision after the round that ran out of budget. */
    readonly rootRevision: bigint;
    readonly instanceRevision: bigint;
  },
): Promise<void> {
  await tx.write(
    tx.db.insertInto('weave_pending_advances').values({
      namespace_id: at.namespaceId,
      instance_id: at.instanceId,
      root_step_row_id: at.rootRowId,
      root_step_revision: at.rootRevision,
      checkpoint: stringify({
        schema_version: 1,
        root_step_id: ROOT_STEP_ID,
        root_step_revision: at.rootRevision.toString(),
        instance_revision: at.instanceRevision.toString(),
      }),
      state: 'PENDING',
      available_at: tx.now,
      created_at: tx.now,
    }),
  );
  tx.afterCommit(() => tx.wakeUps.notify(INBOX_WAKE_UP));
}
