/**
 * The one way a task changes state: update the row (revision + 1), then write its raw status
 * event (原始状态事件) with the new revision (DESIGN.md §4: every change bumps `revision` and
 * writes an event). The caller holds the task row lock.
 */
import { stringify } from '@weave/json';
import { insertRows } from '../store/insert-rows.js';
import type { Tx } from '../store/with-tx.js';
import type { Updateable } from 'kysely';
import type { TasksTable } from '../store/schema.js';
import type { TaskState } from './task-record.js';
import type { StoredTaskStatus } from './task-states.js';

export interface TaskChange {
  readonly status: StoredTaskStatus;
  /** Event type, e.g. `task.claimed`, `task.succeeded`. */
  readonly type: string;
  readonly attemptId?: string | null;
  /** Other columns to set with the change. */
  readonly set?: Omit<Updateable<TasksTable>, 'status' | 'revision' | 'updated_at'>;
  /** Small JSON details for the event (never payloads). */
  readonly details?: Record<string, unknown>;
}

/** Update the row and write the event. Returns the new revision. */
export async function changeTask(tx: Tx, task: TaskState, change: TaskChange): Promise<bigint> {
  const revision = await updateTaskRow(tx, task, change);
  await writeTaskEvent(tx, task, { ...change, revision });
  return revision;
}

/** Step one of a change (seed 000 §1 step 1 for results). Returns the new revision. */
export async function updateTaskRow(tx: Tx, task: TaskState, change: TaskChange): Promise<bigint> {
  const revision = task.revision + 1n;
  await tx.write(
    tx.db
      .updateTable('tasks')
      .set({ ...change.set, status: change.status, revision, updated_at: tx.now })
      .where('id', '=', task.id)
      .where('namespace_id', '=', task.namespaceId),
  );
  return revision;
}

/** The raw status event of a change (seed 000 §1 step 3 for results). */
export async function writeTaskEvent(
  tx: Tx,
  task: TaskState,
  change: TaskChange & { readonly revision: bigint },
): Promise<void> {
  await writeTaskEvents(tx, [{ task, change }]);
}

/** Many raw status events in one insert (a batch of settlements). */
export async function writeTaskEvents(
  tx: Tx,
  events: readonly {
    readonly task: TaskState;
    readonly change: TaskChange & { readonly revision: bigint };
  }[],
): Promise<void> {
  if (events.length === 0) {
    return;
  }
  const facts = events.map(({ task, change }) => ({
    namespaceId: task.namespaceId,
    queueId: task.queueId,
    type: change.type,
  }));
  tx.afterCommit(() => tx.observe.taskEvents(facts));
  await tx.write(
    insertRows(
      tx.db,
      'task_events',
      events.map(({ task, change }) => ({
        namespace_id: task.namespaceId,
        task_id: task.id,
        revision: change.revision,
        type: change.type,
        status: change.status,
        attempt_id: change.attemptId ?? null,
        at: tx.now,
        details: change.details === undefined ? null : stringify(change.details),
      })),
    ),
  );
}
