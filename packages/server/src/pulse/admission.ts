/**
 * Admission of new tasks (受理): the application quota (max active tasks, shared by every queue
 * of the application) and the queue capacity (max pending tasks).
 *
 * Both are checked while holding the exclusive lock on the application's `application_quotas`
 * row (DESIGN.md §4), which serialises every admission of the application, so two submits can
 * never both take the last slot.
 *
 * The row keeps `active_bound`, an upper bound of the application's active tasks: the last exact
 * count plus every admission since. Completions never touch it (they only make the true number
 * smaller, so it stays an upper bound), and the quota row stays a lock of submits only. While the
 * bound is below the limit, a submit admits without counting; when it reaches the limit, the
 * submit counts exactly (an indexed COUNT bounded by the limit) and the bound becomes that count.
 * A deep backlog therefore costs one count per (limit − active) submits instead of one per submit
 * (docs/design/pulse.md "Quota"). The only other way into the active set, an operator's review
 * retry, marks the bound unknown (`forgetActiveBound`).
 *
 * On MariaDB/MySQL an admission not handed the locked row leaves both checks to the database at
 * commit (`boundAtCommit`): the row is then locked by that update, in the commit's packet.
 */
import { sql } from 'kysely';
import { WeaveError } from '../errors.js';
import { inNamespaces } from '../store/namespace-filter.js';
import { shaped } from '../store/statement-shapes.js';
import type { Tx } from '../store/with-tx.js';
import type { DbInt } from '../store/values.js';
import { toInt } from '../store/values.js';
import { ACTIVE_STATUSES } from './task-states.js';

/** `active_bound` when nothing is known: the next admission counts. */
const UNKNOWN_BOUND = 9_223_372_036_854_775_807n;

export interface AdmissionTarget {
  readonly namespaceId: string;
  readonly applicationId: string;
  readonly queueId: string;
  readonly queueName: string;
  readonly capacity: number;
}

/** The application's quota row as admission reads it (locked). */
export interface QuotaRow {
  readonly max_active_tasks: DbInt;
  readonly active_bound: DbInt;
}

/**
 * One task into one queue of the application. `locked`: the quota row, already read and locked
 * by this transaction (`lockQuotaOfQueue`, sent in the packet of the submit's queue read).
 */
export function admitTask(tx: Tx, target: AdmissionTarget, locked?: QuotaRow): Promise<void> {
  const { queueId, queueName, capacity } = target;
  return admitTasks(
    tx,
    { ...target, queues: [{ queueId, queueName, capacity, count: 1 }] },
    locked,
  );
}

/**
 * The quota row of the application that owns queue `queueName`, locked: the lock a submit takes
 * first, read in one statement with the queue's application found by a subquery, so that it can
 * travel in the packet of the queue read. The subquery's queue row is read, not locked (READ
 * COMMITTED), as by the plain queue read beside it.
 */
export function lockQuotaOfQueue(tx: Tx, namespaceId: string, queueName: string) {
  return shaped(tx.db, 'quota of queue', [namespaceId, queueName, namespaceId], () =>
    tx.dialect.forUpdate(
      tx.db
        .selectFrom('application_quotas')
        .select(['application_id', 'max_active_tasks', 'active_bound'])
        .where('application_id', '=', (eb) =>
          eb
            .selectFrom('queues')
            .select('application_id')
            .where('namespace_id', '=', namespaceId)
            .where('name', '=', queueName),
        )
        .where('namespace_id', '=', namespaceId),
    ),
  );
}

export interface BatchAdmission {
  readonly namespaceId: string;
  readonly applicationId: string;
  /** The queues of this application that receive tasks, and how many each. */
  readonly queues: readonly {
    readonly queueId: string;
    readonly queueName: string;
    readonly capacity: number;
    readonly count: number;
  }[];
}

/** The application's quota row, locked: the lock of an admission that was not handed one. */
async function lockQuota(tx: Tx, { applicationId, namespaceId }: BatchAdmission) {
  const [[row]] = await tx.readAll(
    shaped(tx.db, 'quota of application', [applicationId, namespaceId], () =>
      tx.dialect.forUpdate(
        tx.db
          .selectFrom('application_quotas')
          .select(['max_active_tasks', 'active_bound'])
          .where('application_id', '=', applicationId)
          .where('namespace_id', '=', namespaceId),
      ),
    ),
  );
  return row;
}

/**
 * Several tasks of one application at once (a workflow round's first batch): one lock of the
 * quota row, one bound update, the exact counts only at a limit. All or nothing: a full quota
 * or queue refuses the whole batch (the caller's transaction rolls back, A1.7).
 */
export async function admitTasks(tx: Tx, batch: BatchAdmission, locked?: QuotaRow): Promise<void> {
  const total = batch.queues.reduce((n, q) => n + q.count, 0);
  if (total === 0) {
    return;
  }
  if (locked === undefined && tx.admitAtCommit) {
    await tx.write(boundAtCommit(tx, batch, total));
    return;
  }
  const quota = locked ?? (await lockQuota(tx, batch));
  if (quota === undefined) {
    throw new Error(`application ${batch.applicationId} has no quota row`);
  }
  const maxActive = BigInt(toInt(quota.max_active_tasks));
  let bound = BigInt(quota.active_bound);
  if (bound + BigInt(total) > maxActive) {
    bound = BigInt(await countActive(tx, batch, Number(maxActive)));
    if (bound + BigInt(total) > maxActive) {
      throw new WeaveError('quota_exceeded', 'the application has its maximum of active tasks', {
        details: { limit: Number(maxActive) },
      });
    }
  }
  for (const queue of batch.queues) {
    // The queue's pending tasks are some of the application's active ones: below the capacity
    // whenever the bound is.
    if (bound + BigInt(queue.count) > BigInt(queue.capacity)) {
      const pending = await countPending(tx, batch.namespaceId, queue.queueId, queue.capacity);
      if (pending + queue.count > queue.capacity) {
        throw new WeaveError('queue_full', `queue ${queue.queueName} is full`, {
          details: { limit: queue.capacity, queue: queue.queueName },
        });
      }
    }
  }
  const { applicationId, namespaceId } = batch;
  const next = bound + BigInt(total);
  await tx.write(
    shaped(tx.db, 'quota bound', [next, applicationId, namespaceId], () =>
      tx.db
        .updateTable('application_quotas')
        .set({ active_bound: next })
        .where('application_id', '=', applicationId)
        .where('namespace_id', '=', namespaceId),
    ),
  );
}

/**
 * The admission left to the database (`tx.admitAtCommit`): a deferred update that travels in the
 * packet of the transaction's next answered statement (on a workflow round, its COMMIT), so the
 * quota row is locked only while that packet runs and its read costs no round trip. The bound
 * grows by `total` when the checks below (no counting) would admit: within the quota and within
 * every queue's capacity. Otherwise it sets NULL, which fails the statement under
 * STRICT_TRANS_TABLES, and with it the transaction; withTx runs that again with the exact
 * admission (retry reason `admission`, store/dialect.ts). `max_active_tasks - total`, not
 * `active_bound + total`: an unknown bound is BIGINT's maximum, and the sum would overflow.
 */
function boundAtCommit(tx: Tx, batch: BatchAdmission, total: number) {
  const room = Math.min(...batch.queues.map((q) => q.capacity - q.count));
  const { applicationId, namespaceId } = batch;
  return shaped(
    tx.db,
    'quota bound at commit',
    [total, room, total, applicationId, namespaceId],
    () =>
      tx.db
        .updateTable('application_quotas')
        .set({
          active_bound: sql<bigint>`CASE WHEN active_bound <= LEAST(max_active_tasks - ${total}, ${room}) THEN active_bound + ${total} ELSE NULL END`,
        })
        .where('application_id', '=', applicationId)
        .where('namespace_id', '=', namespaceId),
  );
}

/**
 * A task re-entered the active set without an admission (review retry): the bound is no longer
 * known to be an upper bound, so the next admission counts. Takes the quota row lock after the
 * task lock — the one exception to the lock order, safe because no path holding the quota row
 * waits for a task row (admission only inserts tasks and reads without locks).
 */
export async function forgetActiveBound(
  tx: Tx,
  application: { readonly namespaceId: string; readonly applicationId: string },
): Promise<void> {
  await tx.write(
    tx.db
      .updateTable('application_quotas')
      .set({ active_bound: sql.raw(UNKNOWN_BOUND.toString()) })
      .where('application_id', '=', application.applicationId)
      .where('namespace_id', '=', application.namespaceId),
  );
}

/** Counts at most `cap` rows: the answer only has to say whether the limit is reached. */
async function countActive(
  tx: Tx,
  app: { namespaceId: string; applicationId: string },
  cap: number,
): Promise<number> {
  const row = await tx.db
    .selectFrom((eb) =>
      eb
        .selectFrom('tasks')
        .select('id')
        // Not `namespace_id = ?`: SQLite would read every task of the namespace through
        // ix_tasks_namespace instead of ix_tasks_application (store/namespace-filter.ts).
        .where(inNamespaces([app.namespaceId]))
        .where('application_id', '=', app.applicationId)
        .where('status', 'in', ACTIVE_STATUSES)
        .limit(cap)
        .as('a'),
    )
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  return toInt(row.n);
}

async function countPending(
  tx: Tx,
  namespaceId: string,
  queueId: string,
  cap: number,
): Promise<number> {
  const row = await tx.db
    .selectFrom((eb) =>
      eb
        .selectFrom('tasks')
        .select('id')
        .where('namespace_id', '=', namespaceId)
        .where('queue_id', '=', queueId)
        .where('status', '=', 'PENDING')
        .limit(cap)
        .as('p'),
    )
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  return toInt(row.n);
}
