/**
 * Claim: hand up to `maxTasks` ready tasks of one queue to a worker, each with a new attempt, a
 * permit token (shown once) and a lease that never reaches past the attempt's hard end
 * (`min(task deadline, claimed + attempt_timeout)`). A paused queue hands out nothing.
 *
 * Several nodes share a queue: the candidate rows are read `FOR UPDATE SKIP LOCKED` on MariaDB,
 * so concurrent claimers take disjoint rows instead of waiting on each other; SQLite serialises
 * writers with BEGIN IMMEDIATE. Each claim bumps the task's generation, which voids any older
 * permit (DESIGN.md §3 "Claiming").
 *
 * The claimed set is written with one statement per table, not one per task (DESIGN.md §5a): a
 * multi-row attempt insert, one task update, a multi-row event insert. With `start` the tasks are
 * started in the same transaction (claim + start: two revisions, two events per task).
 */
import { workers } from '@weave/sdk/protocol';
import { sql } from 'kysely';
import type { Compilable, Kysely, RawBuilder, Selectable } from 'kysely';
import { flatten, kept, mapped } from '../store/flatten.js';
import type { Schema, TasksTable } from '../store/schema.js';
import { insertRows } from '../store/insert-rows.js';
import { shaped } from '../store/statement-shapes.js';
import { inNamespaces } from '../store/namespace-filter.js';
import type { Tx } from '../store/with-tx.js';
import type { DbInt, Micros } from '../store/values.js';
import { toBool, toId } from '../store/values.js';
import { createPermit } from './permits.js';
import { acquireResource } from './resource-keys.js';
import type { Task } from './task-record.js';
import { toTask } from './task-record.js';

/** Most tasks one claim may take (API.md: up to 100 per call). */
export const MAX_CLAIM_TASKS = workers.MAX_CLAIM_TASKS;
/** Lease granted by a claim or a heartbeat: 30 s, a few missed heartbeats of a 5–10 s cadence. */
export const DEFAULT_LEASE_US = 30_000_000n;

/** A queue by its id, with the namespace every statement is scoped by. */
export interface QueueRef {
  readonly namespaceId: string;
  readonly id: string;
}

export interface ClaimRequest {
  readonly namespaceId: string;
  readonly queueName: string;
  readonly workerId: string;
  readonly maxTasks: number;
  readonly leaseUs?: Micros | undefined;
  /**
   * Start the claimed attempts in the same transaction (the worker runs them at once). A lost
   * answer then leaves started attempts: their effect counts as uncertain when the lease ends.
   */
  readonly start?: boolean;
  /** The queue's row when the caller already read it in this transaction (batch completions). */
  readonly queue?: { readonly id: string; readonly paused: boolean } | undefined;
}

/**
 * `request` in the one shape the claim path reads: every member present, in this order. Made
 * once where a request enters it (a grouped call's body, worker-calls.ts; a parked long-poll,
 * claim-with-wait.ts; a claim alone, `claimTasks`), each of which had its own object shape: a
 * function compiled for one would meet another and be compiled again (docs/design/hot-path.md
 * §57).
 */
export function claimRequest(request: ClaimRequest): ClaimRequest {
  return {
    namespaceId: request.namespaceId,
    queueName: request.queueName,
    workerId: request.workerId,
    maxTasks: request.maxTasks,
    leaseUs: request.leaseUs,
    start: request.start === true,
    queue: request.queue,
  };
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
  const queue = request.queue ?? (await readQueue(tx, request));
  if (queue === undefined) {
    return { queueId: undefined, paused: false, claimed: [] };
  }
  if (queue.paused) {
    return { queueId: queue.id, paused: true, claimed: [] };
  }
  const limit = claimLimit(request.maxTasks);
  const tasks = await lockReady(tx, { namespaceId: request.namespaceId, id: queue.id }, limit);
  return { queueId: queue.id, paused: false, claimed: await claimLocked(tx, tasks, request) };
}

/**
 * Locks up to `limit` ready tasks of the queue (skipping rows other claimers hold) and takes
 * their resource keys: the tasks a claim may hand out, in claim order. Grouped claims
 * (worker-calls.ts) scan once for all their callers and share the result out.
 */
export async function lockReady(tx: Tx, queue: QueueRef, limit: number): Promise<Task[]> {
  return takeResources(tx, (await tx.db.executeQuery(readyQuery(tx, queue, limit).compile())).rows);
}

/**
 * The scanned rows whose resource key is free, with the key taken: a task whose key is held by
 * another claimed or running task waits its turn. Lock order: all candidate task rows (the
 * scan), then resource rows.
 */
export async function takeResources(
  tx: Tx,
  rows: readonly Selectable<TasksTable>[],
): Promise<Task[]> {
  const tasks: Task[] = [];
  for (const row of rows) {
    const task = toTask(row);
    if (await acquireResource(tx, task)) {
      tasks.push(task);
    }
  }
  return tasks;
}

async function readQueue(tx: Tx, request: ClaimRequest) {
  const row = await tx.db
    .selectFrom('queues')
    .select(['id', 'paused'])
    .where('namespace_id', '=', request.namespaceId)
    .where('name', '=', request.queueName)
    .executeTakeFirst();
  return row && { id: toId(row.id), paused: toBool(row.paused) };
}

/**
 * Ready = PENDING, due (`available_at <= now`, which also covers retry backoff) and not past its
 * deadline: the claim scan's condition, and the queue watch's (queue-watch.ts).
 *
 * `deadline_at + 0`: without statistics SQLite otherwise prefers `ix_tasks_deadline`
 * (status = ?, deadline_at > ?), which reads every pending task and sorts them on each claim —
 * a drain that slows down with the backlog. The expression keeps both engines on ix_tasks_claim.
 */
export function readyTasks(db: Kysely<Schema>, queue: QueueRef, now: Micros) {
  return db
    .selectFrom('tasks')
    .where('namespace_id', '=', queue.namespaceId)
    .where('queue_id', '=', queue.id)
    .where('status', '=', 'PENDING')
    .where('available_at', '<=', now)
    .where(sql<bigint>`deadline_at + 0`, '>', now);
}

/**
 * The claim scan: ready tasks in the order (priority DESC, available_at, id), exactly
 * `ix_tasks_claim`, so it stops after `limit` rows without a sort. Rows another claimer holds
 * are skipped.
 */
export function readyQuery(
  tx: Tx,
  queue: QueueRef,
  limit: number,
): Compilable<Selectable<TasksTable>> {
  return shaped(
    tx.db,
    'ready tasks',
    [queue.namespaceId, queue.id, 'PENDING', tx.now, tx.now, limit],
    () =>
      tx.dialect.forUpdateSkipLocked(
        readyTasks(tx.db, queue, tx.now)
          .selectAll()
          .orderBy('priority', 'desc')
          .orderBy('available_at')
          .orderBy('id')
          .limit(limit),
      ),
  );
}

interface ClaimPlan {
  readonly task: Task;
  readonly request: ClaimRequest;
  readonly token: string;
  readonly hash: Buffer;
  readonly generation: bigint;
  readonly attemptNumber: number;
  readonly expiresAt: Micros;
  readonly leaseUntil: Micros;
}

function planClaim(tx: Tx, task: Task, request: ClaimRequest): ClaimPlan {
  const { token, hash } = createPermit();
  const byTimeout = task.attemptTimeoutUs === null ? undefined : tx.now + task.attemptTimeoutUs;
  const expiresAt =
    byTimeout !== undefined && byTimeout < task.deadlineAt ? byTimeout : task.deadlineAt;
  const byLease = tx.now + (request.leaseUs ?? DEFAULT_LEASE_US);
  return {
    task,
    request,
    token,
    hash,
    generation: task.generation + 1n,
    attemptNumber: task.attemptCount + 1,
    expiresAt,
    leaseUntil: byLease < expiresAt ? byLease : expiresAt,
  };
}

interface Claimed {
  readonly plan: ClaimPlan;
  readonly claimed: ClaimedTask;
}

/** The locked, resource-holding tasks → attempts, task rows and events, one statement each. */
async function claimLocked(
  tx: Tx,
  tasks: readonly Task[],
  request: ClaimRequest,
): Promise<ClaimedTask[]> {
  const [claimed] = await claimShares(tx, [{ tasks, request: claimRequest(request) }]);
  return claimed ?? [];
}

/** How many tasks one claim may take: its `maxTasks`, at most MAX_CLAIM_TASKS. */
export function claimLimit(maxTasks: number): number {
  return Math.max(0, Math.min(maxTasks, MAX_CLAIM_TASKS));
}

/**
 * Locked tasks in claim order shared out among `requests` in order, each taking up to its
 * `claimLimit`, then claimed together (`claimShares`). The claimed tasks of each request.
 */
export function claimInTurn(
  tx: Tx,
  locked: readonly Task[],
  requests: readonly ClaimRequest[],
): Promise<ClaimedTask[][]> {
  let next = 0;
  const shares = mapped(requests, (request) => {
    const tasks = locked.slice(next, next + claimLimit(request.maxTasks));
    next += tasks.length;
    return { tasks, request };
  });
  return claimShares(tx, shares);
}

/**
 * Several claims' locked tasks at once (grouped worker calls, worker-calls.ts), each share with
 * its own worker, lease and start flag: still one attempt insert, one task update per start
 * flag and one event insert for all of them. The claimed tasks of each share, in order. Each
 * share's request is in `claimRequest`'s shape, made where it entered.
 */
export async function claimShares(
  tx: Tx,
  shares: readonly { readonly tasks: readonly Task[]; readonly request: ClaimRequest }[],
): Promise<ClaimedTask[][]> {
  const plans = mapped(shares, ({ tasks, request }) =>
    mapped(tasks, (t) => planClaim(tx, t, request)),
  );
  const all = flatten(plans, (list) => list);
  if (all.length === 0) {
    return mapped(shares, () => []);
  }
  const attemptIds = await insertAttempts(tx, all);
  const done = mapped(plans, (list) =>
    mapped(list, (plan): Claimed => {
      const attemptId = attemptIds.get(plan.task.id);
      if (attemptId === undefined) {
        throw new Error(`no attempt row returned for task ${plan.task.id}`);
      }
      const { task, attemptNumber, token: permit, leaseUntil } = plan;
      return { plan, claimed: { task, attemptId, attemptNumber, permit, leaseUntil } };
    }),
  );
  const flat = flatten(done, (list) => list);
  for (const started of [false, true]) {
    await updateClaimedTasks(
      tx,
      kept(flat, (c) => (c.plan.request.start === true) === started),
      started,
    );
  }
  await insertClaimEvents(tx, flat);
  // Claim wait for the metrics: from when the task became claimable (submitted, or its retry
  // backoff ended) to this claim, both on the database clock.
  const facts = mapped(flat, ({ claimed: { task } }) => ({
    namespaceId: task.namespaceId,
    queueId: task.queueId,
    waitedUs: tx.now > task.availableAt ? tx.now - task.availableAt : 0n,
  }));
  tx.afterCommit(() => tx.observe.tasksClaimed(facts));
  return mapped(done, (list) => mapped(list, (c) => c.claimed));
}

/**
 * One multi-row insert; task → attempt id. On MariaDB the ids come from this process's blocks
 * (`tx.newIds`) and the insert waits to travel with the next statement that needs an answer; on
 * SQLite RETURNING (≥ 3.35) gives them.
 */
async function insertAttempts(tx: Tx, plans: readonly ClaimPlan[]): Promise<Map<string, string>> {
  const rows = plans.map((plan) => {
    const started = plan.request.start === true;
    return {
      namespace_id: plan.task.namespaceId,
      task_id: plan.task.id,
      attempt_number: plan.attemptNumber,
      generation: plan.generation,
      worker_id: plan.request.workerId,
      permit_hash: plan.hash,
      status: started ? 'RUNNING' : 'CLAIMED',
      claimed_at: tx.now,
      started_at: started ? tx.now : null,
      lease_until: plan.leaseUntil,
      expires_at: plan.expiresAt,
    };
  });
  const ids = await tx.newIds('task_attempts', rows.length);
  if (ids !== undefined) {
    await tx.write(
      insertRows(
        tx.db,
        'task_attempts',
        rows.map((row, i) => ({ id: ids[i], ...row })),
      ),
    );
    return new Map(plans.map((plan, i) => [plan.task.id, ids[i] as string]));
  }
  const query = insertRows<'task_attempts', { id: DbInt; task_id: DbInt }>(
    tx.db,
    'task_attempts',
    rows,
    ['id', 'task_id'],
  );
  // executeQuery, not execute(): Kysely's MySQL adapter drops RETURNING rows.
  const { rows: returned } = await tx.db.executeQuery(query.compile());
  return new Map(returned.map((row) => [toId(row.task_id), toId(row.id)]));
}

/**
 * One UPDATE for the claimed set (of one start flag). Relative increments are exact: every row
 * is locked by this transaction since the read the plans were made from. Per-row values go
 * through CASE.
 */
async function updateClaimedTasks(
  tx: Tx,
  claimed: readonly Claimed[],
  started: boolean,
): Promise<void> {
  if (claimed.length === 0) {
    return;
  }
  const owners = new Set(mapped(claimed, (c) => c.plan.request.workerId));
  const oneOwner = owners.size === 1;
  const namespaces = [...new Set(mapped(claimed, (c) => c.plan.task.namespaceId))];
  const status = started ? 'RUNNING' : 'CLAIMED';
  const revisionStep = started ? 2 : 1;
  // Ids as numbers: a CASE arm's id bound as a string makes MariaDB compare each row's id with
  // it as a double (hot-path.md §20).
  const arms = <T>(value: (c: Claimed) => T) =>
    flatten(claimed, (c) => [BigInt(c.plan.task.id), value(c)]);
  await tx.write(
    shaped(
      tx.db,
      `claimed tasks ${status} ×${claimed.length} owner ${oneOwner ? 'one' : 'each'} ns ×${namespaces.length}`,
      [
        status,
        revisionStep,
        ...arms((c) => BigInt(c.claimed.attemptId)),
        ...(oneOwner
          ? [(claimed[0] as Claimed).plan.request.workerId]
          : arms((c) => c.plan.request.workerId)),
        ...arms((c) => c.claimed.leaseUntil),
        tx.now,
        ...mapped(claimed, (c) => c.plan.task.id),
        ...mapped(namespaces, (id) => BigInt(id)),
      ],
      () =>
        tx.db
          .updateTable('tasks')
          .set({
            status,
            revision: sql`revision + ${revisionStep}`,
            attempt_count: sql`attempt_count + 1`,
            generation: sql`generation + 1`,
            current_attempt_id: byTask(claimed, (c) => BigInt(c.claimed.attemptId)),
            lease_owner: oneOwner
              ? (claimed[0] as Claimed).plan.request.workerId
              : byTask(claimed, (c) => c.plan.request.workerId),
            lease_until: byTask(claimed, (c) => c.claimed.leaseUntil),
            updated_at: tx.now,
          })
          .where(
            'id',
            'in',
            claimed.map((c) => c.plan.task.id),
          )
          .where(inNamespaces(namespaces)),
    ),
  );
}

/** `CASE id WHEN <task> THEN <value> … END` over the claimed set. */
function byTask<T extends string | bigint>(
  claimed: readonly Claimed[],
  value: (c: Claimed) => T,
): RawBuilder<T> {
  const arms = claimed.map((c) => sql`WHEN ${BigInt(c.plan.task.id)} THEN ${value(c)}`);
  return sql<T>`CASE id ${sql.join(arms, sql` `)} END`;
}

/** The raw status events (原始状态事件): task.claimed, and task.started when started too. */
async function insertClaimEvents(tx: Tx, claimed: readonly Claimed[]): Promise<void> {
  const event = (c: ClaimedTask, step: bigint, type: string, status: string) => ({
    namespace_id: c.task.namespaceId,
    task_id: c.task.id,
    revision: c.task.revision + step,
    type,
    status,
    attempt_id: c.attemptId,
    at: tx.now,
    details: null,
  });
  await tx.write(
    insertRows(
      tx.db,
      'task_events',
      flatten(claimed, ({ plan, claimed: c }) =>
        plan.request.start === true
          ? [event(c, 1n, 'task.claimed', 'CLAIMED'), event(c, 2n, 'task.started', 'RUNNING')]
          : [event(c, 1n, 'task.claimed', 'CLAIMED')],
      ),
    ),
  );
}
