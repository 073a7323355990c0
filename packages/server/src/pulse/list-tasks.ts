/**
 * Reading tasks: one by id, a page by queue and status, and a task's raw status events. Plain
 * reads, no locks. `RETRY_WAIT` is derived (task-states.ts): a PENDING task that has been tried
 * and whose `available_at` is still ahead.
 */
import { notFound } from '../errors.js';
import type { Tx } from '../store/with-tx.js';
import type { Micros } from '../store/values.js';
import { toId, toIdOrNull, toMicros } from '../store/values.js';
import type { Task, TaskWithQueue } from './task-record.js';
import { readTask, toTask } from './task-record.js';
import type { TaskStatus } from './task-states.js';
import type { Page } from '../store/pages.js';
import { readPage } from '../store/pages.js';

export async function getTask(tx: Tx, namespaceId: string, taskId: string): Promise<TaskWithQueue> {
  const found = await readTask(tx, namespaceId, taskId);
  if (found === undefined) {
    throw notFound(`task ${taskId}`, { path: 'task_id' });
  }
  return found;
}

/** The status a caller sees (RETRY_WAIT derived from PENDING). */
export function visibleStatus(task: Task, now: Micros): TaskStatus {
  return task.status === 'PENDING' && task.chargedAttempts > 0 && task.availableAt > now
    ? 'RETRY_WAIT'
    : task.status;
}

export interface TaskListQuery {
  readonly namespaceId: string;
  readonly queueName?: string | undefined;
  readonly status?: TaskStatus | undefined;
  /** Queues the credential may see; null = all. */
  readonly allowedQueues: ReadonlySet<string> | null;
  readonly afterId: string | undefined;
  readonly size: number;
}

export type TaskPage = Page<TaskWithQueue>;

export async function listTasks(tx: Tx, q: TaskListQuery): Promise<TaskPage> {
  let query = tx.db
    .selectFrom('tasks as t')
    .innerJoin('queues as q', (join) =>
      join.onRef('q.id', '=', 't.queue_id').onRef('q.namespace_id', '=', 't.namespace_id'),
    )
    .selectAll('t')
    .select('q.name as queue_name')
    .where('t.namespace_id', '=', q.namespaceId);
  if (q.queueName !== undefined) {
    query = query.where('q.name', '=', q.queueName);
  }
  if (q.allowedQueues !== null) {
    query = query.where('q.name', 'in', [...q.allowedQueues, '']);
  }
  if (q.status === 'RETRY_WAIT') {
    query = query
      .where('t.status', '=', 'PENDING')
      .where('t.charged_attempts', '>', 0)
      .where('t.available_at', '>', tx.now);
  } else if (q.status === 'PENDING') {
    query = query
      .where('t.status', '=', 'PENDING')
      .where((eb) => eb.or([eb('t.charged_attempts', '=', 0), eb('t.available_at', '<=', tx.now)]));
  } else if (q.status !== undefined) {
    query = query.where('t.status', '=', q.status);
  }
  return readPage(query, q, {
    column: 't.id',
    toItem: ({ queue_name: queueName, ...row }) => ({ task: toTask(row), queueName }),
    idOf: (r) => r.task.id,
  });
}

export interface TaskEvent {
  readonly id: string;
  readonly revision: bigint;
  readonly type: string;
  readonly status: string;
  readonly attemptId: string | null;
  readonly at: Micros;
  /** Small JSON text, or null. */
  readonly details: string | null;
}

export async function listTaskEvents(
  tx: Tx,
  namespaceId: string,
  taskId: string,
): Promise<TaskEvent[]> {
  await getTask(tx, namespaceId, taskId);
  const rows = await tx.db
    .selectFrom('task_events')
    .selectAll()
    .where('namespace_id', '=', namespaceId)
    .where('task_id', '=', taskId)
    .orderBy('revision')
    .execute();
  return rows.map((r) => ({
    id: toId(r.id),
    revision: toMicros(r.revision),
    type: r.type,
    status: r.status,
    attemptId: toIdOrNull(r.attempt_id),
    at: toMicros(r.at),
    details: r.details,
  }));
}
