/**
 * Tasks of a queue by stored status (`GET /queues/{q}`), one GROUP BY over the prefix
 * `(queue_id, status)` of `ix_tasks_claim`. PENDING includes tasks waiting for a retry.
 */
import type { Tx } from '../store/with-tx.js';
import { toInt } from '../store/values.js';
import type { StoredTaskStatus } from './task-states.js';
import { TASK_STATUSES } from './task-states.js';

export type QueueCounts = Readonly<Record<StoredTaskStatus, number>>;

export async function countQueueTasks(
  tx: Tx,
  queue: { readonly namespaceId: string; readonly id: string },
): Promise<QueueCounts> {
  const rows = await tx.db
    .selectFrom('tasks')
    .select(['status', (eb) => eb.fn.countAll().as('n')])
    .where('queue_id', '=', queue.id)
    .where('namespace_id', '=', queue.namespaceId)
    .groupBy('status')
    .execute();
  const counts = Object.fromEntries(
    TASK_STATUSES.filter((s) => s !== 'RETRY_WAIT').map((s) => [s, 0]),
  ) as Record<StoredTaskStatus, number>;
  for (const row of rows) {
    if (row.status in counts) {
      counts[row.status as StoredTaskStatus] = toInt(row.n);
    }
  }
  return counts;
}
