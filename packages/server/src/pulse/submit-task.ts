/**
 * Submit: validate limits, admit under the application quota lock, insert the task with its
 * retry policy frozen, and write its first raw status event. Idempotency-Key replays are handled
 * by the request's receipt (store/receipts.ts) around this call; a 429 rolls back, so the same
 * key succeeds once there is room.
 */
import { utf8ByteLength } from '@weave/json';
import type { Compilable, Selectable } from 'kysely';
import { WeaveError, invalidArgument, notFound } from '../errors.js';
import { resolveResultStream } from '../orbit/streams.js';
import type { TasksTable } from '../store/schema.js';
import { shaped } from '../store/statement-shapes.js';
import type { Tx } from '../store/with-tx.js';
import type { Micros } from '../store/values.js';
import { toBool, toId, toInt } from '../store/values.js';
import { admitTask, lockQuotaOfQueue } from './admission.js';
import type { HandOffReservation } from './claim-hand-off.js';
import type { QueueRef } from './claim-tasks.js';
import type { RetryPolicy } from './retry-policy.js';
import type { Task, TaskWithQueue } from './task-record.js';
import { toTask } from './task-record.js';

/** Input JSON text limit (issue 4 §2, default 256 KiB). */
export const MAX_INPUT_BYTES = 256 * 1024;
/** Deadline of a task submitted with neither `timeout` nor `deadline_at`: one day. */
export const DEFAULT_TIMEOUT_US = 24n * 3600n * 1_000_000n;

export interface SubmitInput {
  readonly namespaceId: string;
  readonly queueName: string;
  /** JSON text written by @weave/json. */
  readonly input: string;
  readonly idempotent: boolean;
  readonly priority: number;
  readonly timeoutUs?: Micros | undefined;
  readonly deadlineAt?: Micros | undefined;
  readonly attemptTimeoutUs?: Micros | undefined;
  readonly retry: RetryPolicy;
  readonly traceKey?: string | undefined;
  readonly resourceKey?: string | undefined;
  /** Orbit stream for the result (one of the queue's application); default stream if absent. */
  readonly resultStream?: string | undefined;
}

export interface SubmitOptions {
  /**
   * Long-polls to hand the new task to (the node's `ClaimHandOff.reserve`, pulse/claim-hand-off.ts),
   * asked once the task is admitted: their scan travels in the packet of the task's insert.
   */
  readonly handOff?: (queue: QueueRef) => HandOffReservation | undefined;
}

/** The submitted task; `handedOff`: tasks claimed for parked long-polls in this transaction. */
export type Submitted = TaskWithQueue & { readonly handedOff: number };

export async function submitTask(
  tx: Tx,
  input: SubmitInput,
  options: SubmitOptions = {},
): Promise<Submitted> {
  const bytes = utf8ByteLength(input.input);
  if (bytes > MAX_INPUT_BYTES) {
    throw new WeaveError('payload_too_large', `$.input is ${bytes} bytes, over the limit`, {
      details: { path: '$.input', limit: MAX_INPUT_BYTES },
    });
  }
  const deadlineAt = resolveDeadline(tx.now, input);
  // The queue and its application's quota row (locked: admission's lock) in one packet.
  const [[queue], [quota]] = await tx.readAll(
    shaped(tx.db, 'queue to submit to', [input.namespaceId, input.queueName], () =>
      tx.db
        .selectFrom('queues')
        .select(['id', 'application_id', 'capacity', 'paused'])
        .where('namespace_id', '=', input.namespaceId)
        .where('name', '=', input.queueName),
    ),
    lockQuotaOfQueue(tx, input.namespaceId, input.queueName),
  );
  if (queue === undefined) {
    throw notFound(`queue ${input.queueName}`, { path: 'queue' });
  }
  await admitTask(
    tx,
    {
      namespaceId: input.namespaceId,
      applicationId: toId(queue.application_id),
      queueId: toId(queue.id),
      queueName: input.queueName,
      capacity: toInt(queue.capacity),
    },
    // The same application, unless the queue was dropped and made again between the two reads:
    // then admission reads its own.
    quota !== undefined && toId(quota.application_id) === toId(queue.application_id)
      ? quota
      : undefined,
  );
  const resultStreamId =
    input.resultStream === undefined
      ? null
      : await resolveResultStream(
          tx,
          input.namespaceId,
          toId(queue.application_id),
          input.resultStream,
        );
  const reserved = options.handOff?.({ namespaceId: input.namespaceId, id: toId(queue.id) });
  const { task, scanned } = await insertTask(tx, input, {
    queue,
    deadlineAt,
    resultStreamId,
    scan: reserved?.scan,
  });
  const handedOff =
    reserved === undefined ? 0 : await reserved.claim(scanned, toBool(queue.paused));
  return { task, queueName: input.queueName, handedOff };
}

/** `min(now + timeout, deadline_at)`; one day from now when neither is given. */
export function resolveDeadline(
  now: Micros,
  input: Pick<SubmitInput, 'timeoutUs' | 'deadlineAt'>,
): Micros {
  const byTimeout = input.timeoutUs === undefined ? undefined : now + input.timeoutUs;
  const candidates = [byTimeout, input.deadlineAt].filter((v): v is Micros => v !== undefined);
  const deadline =
    candidates.length === 0
      ? now + DEFAULT_TIMEOUT_US
      : candidates.reduce((a, b) => (a < b ? a : b));
  if (deadline <= now) {
    throw invalidArgument('$.deadline_at', 'must be in the future (database clock)');
  }
  return deadline;
}

/** What a new task row holds, whoever submits it (a client, a schedule, a workflow round). */
export interface NewTask {
  readonly namespaceId: string;
  readonly applicationId: string;
  readonly queueId: string;
  /** JSON text written by @weave/json. */
  readonly input: string;
  readonly idempotent: boolean;
  readonly priority: number;
  readonly deadlineAt: Micros;
  readonly attemptTimeoutUs?: Micros | undefined;
  readonly retry: RetryPolicy;
  readonly traceKey?: string | undefined;
  readonly resourceKey?: string | undefined;
  readonly resultStreamId: string | null;
  /** The workflow activation that owns the task (a TASK's or a POLL's, E1.3); none for plain tasks. */
  readonly owner?: { readonly kind: string; readonly id: string } | undefined;
}

/** The `tasks` row of a new task: PENDING, revision 1, available now, its retry policy frozen. */
export function newTaskRow(tx: Tx, task: NewTask) {
  return {
    namespace_id: task.namespaceId,
    application_id: task.applicationId,
    queue_id: task.queueId,
    status: 'PENDING' as const,
    input: task.input,
    idempotent: task.idempotent ? 1 : 0,
    priority: task.priority,
    trace_key: task.traceKey ?? null,
    resource_key: task.resourceKey ?? null,
    result_stream_id: task.resultStreamId,
    deadline_at: task.deadlineAt,
    attempt_timeout_us: task.attemptTimeoutUs ?? null,
    retry_max_attempts: task.retry.maxAttempts,
    retry_initial_interval_us: task.retry.initialIntervalUs,
    retry_backoff_coefficient: task.retry.backoffCoefficient,
    retry_max_interval_us: task.retry.maxIntervalUs,
    retry_non_retryable_codes: task.retry.nonRetryableCodes.join(' '),
    owner_kind: task.owner?.kind ?? null,
    owner_id: task.owner?.id ?? null,
    available_at: tx.now,
    created_at: tx.now,
    updated_at: tx.now,
  };
}

async function insertTask(
  tx: Tx,
  input: SubmitInput,
  at: {
    queue: { id: unknown; application_id: unknown };
    deadlineAt: Micros;
    resultStreamId: string | null;
    /** A read to send in the insert's packet, after it (a hand-off's claim scan). */
    scan?: Compilable<Selectable<TasksTable>> | undefined;
  },
): Promise<{ task: Task; scanned: Selectable<TasksTable>[] }> {
  const query = tx.db
    .insertInto('tasks')
    .values(
      newTaskRow(tx, {
        ...input,
        applicationId: toId(at.queue.application_id as string),
        queueId: toId(at.queue.id as string),
        deadlineAt: at.deadlineAt,
        resultStreamId: at.resultStreamId,
      }),
    )
    .returningAll();
  // The row as stored, defaults included, in the insert's own round trip (RETURNING: SQLite
  // ≥ 3.35, MariaDB ≥ 10.5; through the driver because Kysely's MySQL adapter drops RETURNING
  // rows), with the scan after it in the same packet: the scan sees the new row.
  const [rows, scanned] =
    at.scan === undefined
      ? [(await tx.db.executeQuery(query.compile())).rows, []]
      : await tx.readAll(query, at.scan);
  const [row] = rows;
  if (row === undefined) {
    throw new Error('the task insert returned no row');
  }
  const task = toTask(row);
  await writeSubmitEvents(tx, input.namespaceId, [task.id]);
  return { task, scanned };
}

/** Revision 1 of every task: its first raw status event (one insert for many tasks). */
export async function writeSubmitEvents(
  tx: Tx,
  namespaceId: string,
  ids: readonly string[],
): Promise<void> {
  await tx.write(
    tx.db.insertInto('task_events').values(
      ids.map((id) => ({
        namespace_id: namespaceId,
        task_id: id,
        revision: 1,
        type: 'task.submitted',
        status: 'PENDING',
        at: tx.now,
      })),
    ),
  );
}
