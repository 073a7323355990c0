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
import { insertRows } from '../store/insert-rows.js';
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

/**
 * The `tasks` row of a new task as stored, but for its id: PENDING, revision 1, available now,
 * its retry policy frozen, every column given (no default of the table is relied on), so a row
 * inserted with an id of this process's (`tx.newIds`) is known without reading it back.
 */
export function newTaskRow(tx: Tx, task: NewTask): Omit<Selectable<TasksTable>, 'id'> {
  return {
    namespace_id: task.namespaceId,
    application_id: task.applicationId,
    queue_id: task.queueId,
    status: 'PENDING',
    revision: 1,
    input: task.input,
    result: null,
    error_code: null,
    error_message: null,
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
    available_at: tx.now,
    attempt_count: 0,
    charged_attempts: 0,
    current_attempt_id: null,
    generation: 0,
    lease_owner: null,
    lease_until: null,
    cancel_requested: 0,
    effect_uncertain: 0,
    owner_kind: task.owner?.kind ?? null,
    owner_id: task.owner?.id ?? null,
    created_at: tx.now,
    updated_at: tx.now,
    finished_at: null,
  };
}

/**
 * New task rows. MariaDB: with ids from this process's blocks, the insert sent with the next
 * statement that needs an answer (`scan`, if given, or the COMMIT); the tasks in the order of
 * `rows`. SQLite: RETURNING, whose order is not promised (a caller of several rows matches them
 * itself). `scan`: a read that must see the new rows (a hand-off's claim scan), its rows returned.
 */
export async function insertTaskRows(
  tx: Tx,
  rows: readonly Omit<Selectable<TasksTable>, 'id'>[],
  scan?: Compilable<Selectable<TasksTable>>,
): Promise<{ tasks: Task[]; scanned: Selectable<TasksTable>[] }> {
  const ids = await tx.newIds('tasks', rows.length);
  if (ids !== undefined) {
    const stored = rows.map((row, i) => ({ ...row, id: ids[i] as string }));
    await tx.write(insertRows(tx.db, 'tasks', stored));
    const scanned = scan === undefined ? [] : (await tx.readAll(scan))[0];
    return { tasks: stored.map(toTask), scanned };
  }
  // The rows as stored, in the insert's own statement (RETURNING: SQLite ≥ 3.35), with the scan
  // after it: the scan sees the new rows. Every column is named, so the statement is compiled
  // once per shape as MariaDB's insert is (`RETURNING *` would be built anew for every call).
  const columns = [...Object.keys(rows[0] ?? {}), 'id'];
  const query = insertRows<'tasks', Selectable<TasksTable>>(tx.db, 'tasks', rows, columns);
  const [returned, scanned] =
    scan === undefined
      ? [(await tx.db.executeQuery(query.compile())).rows, []]
      : await tx.readAll(query, scan);
  if (returned.length !== rows.length) {
    throw new Error(`the task insert returned ${returned.length} rows for ${rows.length}`);
  }
  return { tasks: returned.map(toTask), scanned };
}

async function insertTask(
  tx: Tx,
  input: SubmitInput,
  at: {
    queue: { id: unknown; application_id: unknown };
    deadlineAt: Micros;
    resultStreamId: string | null;
    /** A read to send after the insert (a hand-off's claim scan). */
    scan?: Compilable<Selectable<TasksTable>> | undefined;
  },
): Promise<{ task: Task; scanned: Selectable<TasksTable>[] }> {
  const row = newTaskRow(tx, {
    ...input,
    applicationId: toId(at.queue.application_id as string),
    queueId: toId(at.queue.id as string),
    deadlineAt: at.deadlineAt,
    resultStreamId: at.resultStreamId,
  });
  const {
    tasks: [task],
    scanned,
  } = await insertTaskRows(tx, [row], at.scan);
  if (task === undefined) {
    throw new Error('the task insert returned no row');
  }
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
    insertRows(
      tx.db,
      'task_events',
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
