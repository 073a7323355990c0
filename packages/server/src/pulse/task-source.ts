/**
 * Where a task came from (`GET /tasks/{id}/source`): a direct submit, a schedule's slot (its
 * firing record), or a workflow activation (the owner columns, E1.3). The answer is read-only
 * and names the origin by its public identity (schedule name and slot, activation id).
 */
import type { Micros } from '../store/values.js';
import { toMicros } from '../store/values.js';
import type { Tx } from '../store/with-tx.js';
import type { Task } from './task-record.js';

export type TaskSource =
  | { readonly kind: 'submit' }
  | { readonly kind: 'schedule'; readonly schedule: string | null; readonly slotAt: Micros }
  | { readonly kind: string; readonly ownerId: string | null };

export async function taskSource(tx: Tx, task: Task): Promise<TaskSource> {
  if (task.ownerKind !== null) {
    return { kind: task.ownerKind, ownerId: task.ownerId };
  }
  const firing = await tx.db
    .selectFrom('schedule_firings as f')
    .leftJoin('schedules as s', (join) =>
      join.onRef('s.id', '=', 'f.schedule_id').on('s.namespace_id', '=', task.namespaceId),
    )
    .select(['f.slot_at', 's.name'])
    .where('f.task_id', '=', task.id)
    .where('f.namespace_id', '=', task.namespaceId)
    .executeTakeFirst();
  if (firing === undefined) {
    return { kind: 'submit' };
  }
  // A deleted schedule keeps its firing records: the slot is still known, the name is not.
  return { kind: 'schedule', schedule: firing.name ?? null, slotAt: toMicros(firing.slot_at) };
}
