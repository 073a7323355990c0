/**
 * Resource keys (issue 4 §2): at most one task per namespace + resource key is CLAIMED or
 * RUNNING at a time (stricter than "one RUNNING": a claimed task may start at any moment).
 *
 * The holder is a row of `task_resources` keyed by (namespace, resource key), inserted when the
 * claim takes the task and deleted when the task leaves CLAIMED/RUNNING (settle-task.ts). The
 * primary key makes it hold across nodes: a second claimer's insert waits for the first
 * transaction and then finds the key taken, so it skips that task. Lock order: after the task
 * row (claim and settle both lock the task first).
 */
import type { Tx } from '../store/with-tx.js';
import type { TaskState } from './task-record.js';

/** true when the task now holds its resource (or has none). */
export async function acquireResource(tx: Tx, task: TaskState): Promise<boolean> {
  if (task.resourceKey === null) {
    return true;
  }
  const result = await tx.db
    .insertInto('task_resources')
    .orIgnore()
    .values({
      namespace_id: task.namespaceId,
      resource_key: task.resourceKey,
      task_id: task.id,
      acquired_at: tx.now,
    })
    .executeTakeFirst();
  return (result.numInsertedOrUpdatedRows ?? 0n) > 0n;
}

export async function releaseResource(tx: Tx, task: TaskState): Promise<void> {
  if (task.resourceKey === null) {
    return;
  }
  await tx.db
    .deleteFrom('task_resources')
    .where('namespace_id', '=', task.namespaceId)
    .where('resource_key', '=', task.resourceKey)
    .where('task_id', '=', task.id)
    .execute();
}
