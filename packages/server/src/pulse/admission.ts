/**
 * Admission of new tasks (受理): the application quota (max active tasks, shared by every queue
 * of the application) and the queue capacity (max pending tasks).
 *
 * Both are checked while holding the exclusive lock on the application's `application_quotas`
 * row (DESIGN.md §4), which serialises every admission of the application, so two submits can
 * never both take the last slot. The counts are indexed COUNTs over `tasks` rather than counter
 * rows: completions then never touch the quota row (it stays locked only by submits, briefly),
 * and the count cannot drift from the task rows (docs/design/pulse.md "Quota").
 */
import { WeaveError } from '../errors.js';
import type { Tx } from '../store/with-tx.js';
import { toInt } from '../store/values.js';
import { ACTIVE_STATUSES } from './task-states.js';

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
        .select('max_active_tasks')
        .where('application_id', '=', target.applicationId)
        .where('namespace_id', '=', target.namespaceId),
    )
    .executeTakeFirst();
  if (quota === undefined) {
    throw new Error(`application ${target.applicationId} has no quota row`);
  }
  const maxActive = toInt(quota.max_active_tasks);
  const active = await countActive(tx, target.applicationId, maxActive);
  if (active >= maxActive) {
    throw new WeaveError('quota_exceeded', 'the application has its maximum of active tasks', {
      details: { limit: maxActive },
    });
  }
  const pending = await countPending(tx, target.queueId, target.capacity);
  if (pending >= target.capacity) {
    throw new WeaveError('queue_full', `queue ${target.queueName} is full`, {
      details: { limit: target.capacity, queue: target.queueName },
    });
  }
}

/** Counts at most `cap` rows: the answer only has to say whether the limit is reached. */
async function countActive(tx: Tx, applicationId: string, cap: number): Promise<number> {
  const row = await tx.db
    .selectFrom((eb) =>
      eb
        .selectFrom('tasks')
        .select('id')
        .where('application_id', '=', applicationId)
        .where('status', 'in', ACTIVE_STATUSES)
        .limit(cap)
        .as('a'),
    )
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  return toInt(row.n);
}

async function countPending(tx: Tx, queueId: string, cap: number): Promise<number> {
  const row = await tx.db
    .selectFrom((eb) =>
      eb
        .selectFrom('tasks')
        .select('id')
        .where('queue_id', '=', queueId)
        .where('status', '=', 'PENDING')
        .limit(cap)
        .as('p'),
    )
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  return toInt(row.n);
}
