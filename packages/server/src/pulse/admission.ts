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
 */
import { sql } from 'kysely';
import { WeaveError } from '../errors.js';
import type { Tx } from '../store/with-tx.js';
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

export async function admitTask(tx: Tx, target: AdmissionTarget): Promise<void> {
  const quota = await tx.dialect
    .forUpdate(
      tx.db
        .selectFrom('application_quotas')
        .select(['max_active_tasks', 'active_bound'])
        .where('application_id', '=', target.applicationId)
        .where('namespace_id', '=', target.namespaceId),
    )
    .executeTakeFirst();
  if (quota === undefined) {
    throw new Error(`application ${target.applicationId} has no quota row`);
  }
  const maxActive = toInt(quota.max_active_tasks);
  let bound = BigInt(quota.active_bound);
  if (bound >= BigInt(maxActive)) {
    bound = BigInt(await countActive(tx, target, maxActive));
    if (bound >= BigInt(maxActive)) {
      throw new WeaveError('quota_exceeded', 'the application has its maximum of active tasks', {
        details: { limit: maxActive },
      });
    }
  }
  // The queue's pending tasks are some of the application's active ones: below the capacity
  // whenever the bound is.
  if (bound >= BigInt(target.capacity)) {
    const pending = await countPending(tx, target, target.capacity);
    if (pending >= target.capacity) {
      throw new WeaveError('queue_full', `queue ${target.queueName} is full`, {
        details: { limit: target.capacity, queue: target.queueName },
      });
    }
  }
  await tx.write(
    tx.db
      .updateTable('application_quotas')
      .set({ active_bound: bound + 1n })
      .where('application_id', '=', target.applicationId)
      .where('namespace_id', '=', target.namespaceId),
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
async function countActive(tx: Tx, target: AdmissionTarget, cap: number): Promise<number> {
  const row = await tx.db
    .selectFrom((eb) =>
      eb
        .selectFrom('tasks')
        .select('id')
        .where('application_id', '=', target.applicationId)
        .where('namespace_id', '=', target.namespaceId)
        .where('status', 'in', ACTIVE_STATUSES)
        .limit(cap)
        .as('a'),
    )
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  return toInt(row.n);
}

async function countPending(tx: Tx, target: AdmissionTarget, cap: number): Promise<number> {
  const row = await tx.db
    .selectFrom((eb) =>
      eb
        .selectFrom('tasks')
        .select('id')
        .where('queue_id', '=', target.queueId)
        .where('namespace_id', '=', target.namespaceId)
        .where('status', '=', 'PENDING')
        .limit(cap)
        .as('p'),
    )
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  return toInt(row.n);
}
