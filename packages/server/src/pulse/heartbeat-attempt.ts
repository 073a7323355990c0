/**
 * Heartbeat: extend the lease by the lease length, never past the attempt's hard end (the task
 * deadline or the attempt timeout), and tell the worker whether cancellation was requested.
 * A lease extension is not a state change: no revision, no event (they would grow with time,
 * not with work).
 */
import type { Tx } from '../store/with-tx.js';
import type { Micros } from '../store/values.js';
import { DEFAULT_LEASE_US } from './claim-tasks.js';
import type { PermitRef } from './permits.js';
import { lockPermitted, requireLive } from './permits.js';

export interface HeartbeatAnswer {
  readonly leaseUntil: Micros;
  readonly cancelRequested: boolean;
}

export async function heartbeatAttempt(
  tx: Tx,
  ref: PermitRef,
  leaseUs: Micros = DEFAULT_LEASE_US,
): Promise<HeartbeatAnswer> {
  const { task, attempt } = await lockPermitted(tx, ref);
  requireLive(tx, task, attempt);
  const wanted = tx.now + leaseUs;
  const leaseUntil = wanted < attempt.expiresAt ? wanted : attempt.expiresAt;
  await tx.db
    .updateTable('task_attempts')
    .set({ lease_until: leaseUntil })
    .where('id', '=', attempt.id)
    .where('namespace_id', '=', task.namespaceId)
    .execute();
  await tx.db
    .updateTable('tasks')
    .set({ lease_until: leaseUntil, updated_at: tx.now })
    .where('id', '=', task.id)
    .where('namespace_id', '=', task.namespaceId)
    .execute();
  return { leaseUntil, cancelRequested: task.cancelRequested };
}
