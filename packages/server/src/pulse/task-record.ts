/**
 * Task and attempt rows mapped once (STYLE.md §3), and the two ways to read a task: locked for a
 * change (`lockTask`, task row only) or plain for a view (`readTask`, joined with its queue).
 */
import { notFound } from '../errors.js';
import type { Tx } from '../store/with-tx.js';
import type { Micros } from '../store/values.js';
import { toBool, toId, toIdOrNull, toInt, toMicros, toMicrosOrNull } from '../store/values.js';
import type { Selectable } from 'kysely';
import type { TaskAttemptsTable, TasksTable } from '../store/schema.js';
import type { RetryPolicy } from './retry-policy.js';
import type { AttemptStatus, StoredTaskStatus } from './task-states.js';

export interface Task {
  readonly id: string;
  readonly namespaceId: string;
  readonly applicationId: string;
  readonly queueId: string;
  readonly status: StoredTaskStatus;
  readonly revision: bigint;
  /** JSON text, as stored (never re-parsed on the way out). */
  readonly input: string;
  readonly result: string | null;
  readonly errorCode: string | null;
  readonly errorMessage: string | null;
  readonly idempotent: boolean;
  readonly priority: number;
  readonly traceKey: string | null;
  readonly resourceKey: string | null;
  readonly deadlineAt: Micros;
  readonly attemptTimeoutUs: Micros | null;
  readonly retry: RetryPolicy;
  readonly availableAt: Micros;
  readonly attemptCount: number;
  readonly chargedAttempts: number;
  readonly currentAttemptId: string | null;
  readonly generation: bigint;
  readonly leaseOwner: string | null;
  readonly leaseUntil: Micros | null;
  readonly cancelRequested: boolean;
  readonly effectUncertain: boolean;
  readonly ownerKind: string | null;
  readonly ownerId: string | null;
  /** Orbit stream for its result; null = the application's default stream. */
  readonly resultStreamId: string | null;
  readonly createdAt: Micros;
  readonly updatedAt: Micros;
  readonly finishedAt: Micros | null;
}

/**
 * A task without its input: what changing its state reads (settling, events, resources, permits).
 * A completion's locking read leaves the input out: up to 256 KiB per task that no outcome reads.
 */
export type TaskState = Omit<Task, 'input'>;

export function toTask(row: Selectable<TasksTable>): Task {
  return { ...toTaskState(row), input: row.input };
}

/** Every column of `tasks` but `input`: a locking read for a change selects these. */
export const TASK_STATE_COLUMNS = [
  'id',
  'namespace_id',
  'application_id',
  'queue_id',
  'status',
  'revision',
  'result',
  'error_code',
  'error_message',
  'idempotent',
  'priority',
  'trace_key',
  'resource_key',
  'deadline_at',
  'attempt_timeout_us',
  'retry_max_attempts',
  'retry_initial_interval_us',
  'retry_backoff_coefficient',
  'retry_max_interval_us',
  'retry_non_retryable_codes',
  'available_at',
  'attempt_count',
  'charged_attempts',
  'current_attempt_id',
  'generation',
  'lease_owner',
  'lease_until',
  'cancel_requested',
  'effect_uncertain',
  'owner_kind',
  'owner_id',
  'result_stream_id',
  'created_at',
  'updated_at',
  'finished_at',
] as const satisfies readonly Exclude<keyof TasksTable, 'input'>[];

export function toTaskState(row: Omit<Selectable<TasksTable>, 'input'>): TaskState {
  return {
    id: toId(row.id),
    namespaceId: toId(row.namespace_id),
    applicationId: toId(row.application_id),
    queueId: toId(row.queue_id),
    status: row.status as StoredTaskStatus,
    revision: toMicros(row.revision),
    result: row.result,
    errorCode: row.error_code,
    errorMessage: row.error_message,
    idempotent: toBool(row.idempotent),
    priority: toInt(row.priority),
    traceKey: row.trace_key,
    resourceKey: row.resource_key,
    deadlineAt: toMicros(row.deadline_at),
    attemptTimeoutUs: toMicrosOrNull(row.attempt_timeout_us),
    retry: {
      maxAttempts: toInt(row.retry_max_attempts),
      initialIntervalUs: toMicros(row.retry_initial_interval_us),
      backoffCoefficient: row.retry_backoff_coefficient,
      maxIntervalUs: toMicros(row.retry_max_interval_us),
      nonRetryableCodes: row.retry_non_retryable_codes.split(' ').filter((c) => c !== ''),
    },
    availableAt: toMicros(row.available_at),
    attemptCount: toInt(row.attempt_count),
    chargedAttempts: toInt(row.charged_attempts),
    currentAttemptId: toIdOrNull(row.current_attempt_id),
    generation: toMicros(row.generation),
    leaseOwner: row.lease_owner,
    leaseUntil: toMicrosOrNull(row.lease_until),
    cancelRequested: toBool(row.cancel_requested),
    effectUncertain: toBool(row.effect_uncertain),
    ownerKind: row.owner_kind,
    ownerId: toIdOrNull(row.owner_id),
    resultStreamId: toIdOrNull(row.result_stream_id),
    createdAt: toMicros(row.created_at),
    updatedAt: toMicros(row.updated_at),
    finishedAt: toMicrosOrNull(row.finished_at),
  };
}

export interface Attempt {
  readonly id: string;
  readonly taskId: string;
  readonly attemptNumber: number;
  readonly generation: bigint;
  readonly workerId: string;
  readonly permitHash: Buffer;
  readonly status: AttemptStatus;
  readonly startedAt: Micros | null;
  readonly leaseUntil: Micros;
  readonly expiresAt: Micros;
  readonly completionDigest: string | null;
  readonly receipt: string | null;
}

export function toAttempt(row: Selectable<TaskAttemptsTable>): Attempt {
  return {
    id: toId(row.id),
    taskId: toId(row.task_id),
    attemptNumber: toInt(row.attempt_number),
    generation: toMicros(row.generation),
    workerId: row.worker_id,
    permitHash: Buffer.from(row.permit_hash),
    status: row.status as AttemptStatus,
    startedAt: toMicrosOrNull(row.started_at),
    leaseUntil: toMicros(row.lease_until),
    expiresAt: toMicros(row.expires_at),
    completionDigest: row.completion_digest,
    receipt: row.receipt,
  };
}

const ID_PATTERN = /^[1-9][0-9]{0,18}$/;

/** Lock one task row of the namespace (FOR UPDATE; SQLite's write lock is already held). */
export async function lockTask(tx: Tx, namespaceId: string, taskId: string): Promise<Task> {
  if (!ID_PATTERN.test(taskId)) {
    throw notFound(`task ${taskId}`, { path: 'task_id' });
  }
  const query = tx.db
    .selectFrom('tasks')
    .selectAll()
    .where('id', '=', taskId)
    .where('namespace_id', '=', namespaceId);
  const row = await tx.dialect.forUpdate(query).executeTakeFirst();
  if (row === undefined) {
    throw notFound(`task ${taskId}`, { path: 'task_id' });
  }
  return toTask(row);
}

export async function findAttempt(
  tx: Tx,
  namespaceId: string,
  attemptId: string,
): Promise<Attempt | undefined> {
  if (!ID_PATTERN.test(attemptId)) {
    return undefined;
  }
  const row = await tx.db
    .selectFrom('task_attempts')
    .selectAll()
    .where('id', '=', attemptId)
    .where('namespace_id', '=', namespaceId)
    .executeTakeFirst();
  return row && toAttempt(row);
}

export interface TaskWithQueue {
  readonly task: Task;
  readonly queueName: string;
}

/** A plain read for views (no lock). `undefined` when absent or in another namespace. */
export async function readTask(
  tx: Tx,
  namespaceId: string,
  taskId: string,
): Promise<TaskWithQueue | undefined> {
  if (!ID_PATTERN.test(taskId)) {
    return undefined;
  }
  const row = await tx.db
    .selectFrom('tasks as t')
    .innerJoin('queues as q', (join) =>
      join.onRef('q.id', '=', 't.queue_id').onRef('q.namespace_id', '=', 't.namespace_id'),
    )
    .selectAll('t')
    .select('q.name as queue_name')
    .where('t.id', '=', taskId)
    .where('t.namespace_id', '=', namespaceId)
    .executeTakeFirst();
  if (row === undefined) {
    return undefined;
  }
  const { queue_name: queueName, ...task } = row;
  return { task: toTask(task), queueName };
}
