/**
 * Claim: hand up to `maxTasks` ready tasks of one queue to a worker, each with a new attempt, a
 * permit token (shown once) and a lease that never reaches past the attempt's hard end
 * (`min(task deadline, claimed + attempt_timeout)`). A paused queue hands out nothing.
 *
 * Several nodes share a queue: the candidate rows are read `FOR UPDATE SKIP LOCKED` on MariaDB,
 * so concurrent claimers take disjoint rows instead of waiting on each other; SQLite serialises
 * writers with BEGIN IMMEDIATE. Each claim bumps the task's generation, which voids any older
 * permit (DESIGN.md §3 "Claiming").
 */
import type { Tx } from '../store/with-tx.js';
import type { Micros } from '../store/values.js';
import { toBool, toId } from '../store/values.js';
import { createPermit } from './permits.js';
import { acquireResource } from './resource-keys.js';
import type { Task } from './task-record.js';
import { toTask } from './task-record.js';
import { changeTask } from './task-change.js';

/** Most tasks one claim may take (API.md: up to 100 per call). */
export const MAX_CLAIM_TASKS = 100;
/** Lease granted by a claim or a heartbeat: 30 s, a few missed heartbeats of a 5–10 s cadence. */
export const DEFAULT_LEASE_US = 30_000_000n;

export interface ClaimRequest {
  readonly namespaceId: string;
  readonly queueName: string;
  readonly workerId: string;
  readonly maxTasks: number;
  readonly leaseUs?: Micros;
}

export interface ClaimedTask {
  readonly task: Task;
  readonly attemptId: string;
  readonly attemptNumber: number;
  readonly permit: string;
  readonly leaseUntil: Micros;
}

export interface ClaimOutcome {
  /** undefined when the queue does not exist. */
  readonly queueId: string | undefined;
  readonly paused: boolean;
  readonly claimed: readonly ClaimedTask[];
}

export async function claimTasks(tx: Tx, request: ClaimRequest): Promise<ClaimOutcome> {
  const queue = await tx.db
    .selectFrom('queues')
    .select(['id', 'paused'])
    .where('namespace_id', '=', request.namespaceId)
    .where('name', '=', request.queueName)
    .executeTakeFirst();
  if (queue === undefined) {
    return { queueId: undefined, paused: false, claimed: [] };
  }
  const queueId = toId(queue.id);
  if (toBool(queue.paused)) {
    return { queueId, paused: true, claimed: [] };
  }
  const rows = await selectReady(tx, queueId, Math.min(request.maxTasks, MAX_CLAIM_TASKS));
  const claimed: ClaimedTask[] = [];
  for (const row of rows) {
    const task = toTask(row);
    // A task whose resource key is held by another claimed or running task waits its turn.
    if (await acquireResource(tx, task)) {
      claimed.push(await claimOne(tx, task, request));
    }
  }
  return { queueId, paused: false, claimed };
}

/**
 * Ready = PENDING, due (`available_at <= now`, which also covers retry backoff) and not past its
 * deadline. The order (priority DESC, available_at, id) is exactly `ix_tasks_claim`, so the scan
 * stops after `limit` rows without a sort. Rows another claimer holds are skipped.
 */
function selectReady(tx: Tx, queueId: string, limit: number) {
  const query = tx.db
    .selectFrom('tasks')
    .selectAll()
    .where('queue_id', '=', queueId)
    .where('status', '=', 'PENDING')
    .where('available_at', '<=', tx.now)
    .where('deadline_at', '>', tx.now)
    .orderBy('priority', 'desc')
    .orderBy('available_at')
    .orderBy('id')
    .limit(limit);
  return tx.dialect.forUpdateSkipLocked(query).execute();
}

async function claimOne(tx: Tx, task: Task, request: ClaimRequest): Promise<ClaimedTask> {
  const { token, hash } = createPermit();
  const generation = task.generation + 1n;
  const attemptNumber = task.attemptCount + 1;
  const byTimeout = task.attemptTimeoutUs === null ? undefined : tx.now + task.attemptTimeoutUs;
  const expiresAt =
    byTimeout !== undefined && byTimeout < task.deadlineAt ? byTimeout : task.deadlineAt;
  const byLease = tx.now + (request.leaseUs ?? DEFAULT_LEASE_US);
  const leaseUntil = byLease < expiresAt ? byLease : expiresAt;
  const inserted = await tx.db
    .insertInto('task_attempts')
    .values({
      namespace_id: task.namespaceId,
      task_id: task.id,
      attempt_number: attemptNumber,
      generation,
      worker_id: request.workerId,
      permit_hash: hash,
      status: 'CLAIMED',
      claimed_at: tx.now,
      lease_until: leaseUntil,
      expires_at: expiresAt,
    })
    .executeTakeFirstOrThrow();
  const attemptId = toId(inserted.insertId ?? 0n);
  await changeTask(tx, task, {
    status: 'CLAIMED',
    type: 'task.claimed',
    attemptId,
    set: {
      attempt_count: attemptNumber,
      current_attempt_id: attemptId,
      generation,
      lease_owner: request.workerId,
      lease_until: leaseUntil,
    },
  });
  return { task, attemptId, attemptNumber, permit: token, leaseUntil };
}
