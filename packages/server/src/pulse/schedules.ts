/**
 * Schedule administration: create (cron, zone and task template validated and frozen), read,
 * list, pause, resume, delete. Firing is `fire-schedule.ts`. A schedule's name is unique per
 * namespace with exact bytes (utf8mb4_nopad_bin / BINARY).
 */
import { schedules as protocol } from '@weave/sdk/protocol';
import type { Selectable } from 'kysely';
import { checkName } from '../auth/namespaces.js';
import { alreadyExists, invalidArgument, notFound } from '../errors.js';
import type { SchedulesTable } from '../store/schema.js';
import type { Micros } from '../store/values.js';
import { toBool, toId, toIdOrNull, toMicrosOrNull, toMicros } from '../store/values.js';
import { insertUnique } from '../store/unique-insert.js';
import type { Tx } from '../store/with-tx.js';
import { parseCron } from './cron.js';
import { checkTimeZone, nextSlotAfter } from './cron-zone.js';
import { findQueue } from './queues.js';
import type { TaskTemplate } from './schedule-template.js';
import { decodeTemplate, encodeTemplate } from './schedule-template.js';
import type { Page } from '../store/pages.js';
import { readPage } from '../store/pages.js';

export const OVERLAP_POLICIES = protocol.OVERLAP_POLICIES;
export type OverlapPolicy = (typeof OVERLAP_POLICIES)[number];
export const CATCH_UP_POLICIES = protocol.CATCH_UP_POLICIES;
export type CatchUpPolicy = (typeof CATCH_UP_POLICIES)[number];

export interface ScheduleInput {
  readonly name: string;
  readonly queueName: string;
  readonly cron: string;
  readonly timezone: string;
  readonly template: TaskTemplate;
  readonly overlap: OverlapPolicy;
  readonly catchUp: CatchUpPolicy;
}

export interface Schedule {
  readonly id: string;
  readonly namespaceId: string;
  readonly name: string;
  readonly queueId: string;
  readonly queueName: string;
  readonly cron: string;
  readonly timezone: string;
  readonly template: TaskTemplate;
  readonly overlap: OverlapPolicy;
  readonly catchUp: CatchUpPolicy;
  readonly paused: boolean;
  readonly nextSlotAt: Micros | null;
  readonly retryAt: Micros | null;
  readonly lastSlotAt: Micros | null;
  readonly lastTaskId: string | null;
  readonly lastErrorCode: string | null;
  readonly revision: string;
  readonly createdAt: Micros;
  readonly updatedAt: Micros;
}

export function toSchedule(row: Selectable<SchedulesTable>, queueName: string): Schedule {
  return {
    id: toId(row.id),
    namespaceId: toId(row.namespace_id),
    name: row.name,
    queueId: toId(row.queue_id),
    queueName,
    cron: row.cron,
    timezone: row.timezone,
    template: decodeTemplate(row.task_template),
    overlap: row.overlap as OverlapPolicy,
    catchUp: row.catch_up as CatchUpPolicy,
    paused: toBool(row.paused),
    nextSlotAt: toMicrosOrNull(row.next_slot_at),
    retryAt: toMicrosOrNull(row.retry_at),
    lastSlotAt: toMicrosOrNull(row.last_slot_at),
    lastTaskId: toIdOrNull(row.last_task_id),
    lastErrorCode: row.last_error_code,
    revision: toId(row.revision),
    createdAt: toMicros(row.created_at),
    updatedAt: toMicros(row.updated_at),
  };
}

/** The first slot after `now`; a cron with no slot in the search horizon is refused. */
function firstSlot(cron: string, timezone: string, now: Micros): Micros {
  const spec = parseCron(cron, '$.cron');
  checkTimeZone(timezone, '$.timezone');
  const next = nextSlotAfter(spec, timezone, now);
  if (next === undefined) {
    throw invalidArgument('$.cron', 'has no slot in the next 8 years (such as 30 February)');
  }
  return next;
}

export async function createSchedule(
  tx: Tx,
  namespaceId: string,
  input: ScheduleInput,
): Promise<Schedule> {
  checkName('$.name', input.name);
  const next = firstSlot(input.cron, input.timezone, tx.now);
  const queue = await findQueue(tx, namespaceId, input.queueName);
  if (queue === undefined) {
    // A missing referenced object is not_found at its path, as for queues and streams.
    throw notFound(`queue ${input.queueName}`, { path: '$.queue' });
  }
  const taken = `schedule ${input.name} already exists`;
  if ((await findScheduleRow(tx, namespaceId, input.name)) !== undefined) {
    throw alreadyExists(taken);
  }
  const insert = tx.db.insertInto('schedules').values({
    namespace_id: namespaceId,
    name: input.name,
    queue_id: queue.id,
    cron: input.cron,
    timezone: input.timezone,
    task_template: encodeTemplate(input.template),
    overlap: input.overlap,
    catch_up: input.catchUp,
    next_slot_at: next,
    created_at: tx.now,
    updated_at: tx.now,
  });
  await insertUnique(tx, taken, () => insert.execute());
  return getSchedule(tx, namespaceId, input.name);
}

function scheduleQuery(tx: Tx, namespaceId: string) {
  return tx.db
    .selectFrom('schedules as s')
    .innerJoin('queues as q', (join) =>
      join.onRef('q.id', '=', 's.queue_id').onRef('q.namespace_id', '=', 's.namespace_id'),
    )
    .selectAll('s')
    .select('q.name as queue_name')
    .where('s.namespace_id', '=', namespaceId);
}

async function findScheduleRow(tx: Tx, namespaceId: string, name: string) {
  return scheduleQuery(tx, namespaceId).where('s.name', '=', name).executeTakeFirst();
}

export async function getSchedule(tx: Tx, namespaceId: string, name: string): Promise<Schedule> {
  const row = await findScheduleRow(tx, namespaceId, name);
  if (row === undefined) {
    throw notFound(`schedule ${name}`, { path: 'schedule' });
  }
  const { queue_name: queueName, ...schedule } = row;
  return toSchedule(schedule, queueName);
}

export async function listSchedules(
  tx: Tx,
  options: {
    namespaceId: string;
    allowedQueues: ReadonlySet<string> | null;
    afterId: string | undefined;
    size: number;
  },
): Promise<Page<Schedule>> {
  let query = scheduleQuery(tx, options.namespaceId);
  if (options.allowedQueues !== null) {
    query = query.where('q.name', 'in', [...options.allowedQueues, '']);
  }
  return readPage(query, options, {
    column: 's.id',
    toItem: ({ queue_name: q, ...s }) => toSchedule(s, q),
    idOf: (s) => s.id,
  });
}

/**
 * Pause keeps the slot; resume starts again from the first slot after now: slots that passed
 * while paused are skipped whatever the catch-up policy (a pause is a decision, not downtime).
 */
export async function setSchedulePaused(
  tx: Tx,
  schedule: Schedule,
  paused: boolean,
): Promise<Schedule> {
  if (schedule.paused === paused) {
    return schedule;
  }
  const resumeAt = paused
    ? undefined
    : nextSlotAfter(parseCron(schedule.cron), schedule.timezone, tx.now);
  await tx.db
    .updateTable('schedules')
    .set((eb) => ({
      paused: paused ? 1 : 0,
      ...(paused ? {} : { next_slot_at: resumeAt ?? null, retry_at: null }),
      revision: eb('revision', '+', 1),
      updated_at: tx.now,
    }))
    .where('id', '=', schedule.id)
    .where('namespace_id', '=', schedule.namespaceId)
    .execute();
  return getSchedule(tx, schedule.namespaceId, schedule.name);
}

/** Deletes the schedule; its firing rows stay as history (their tasks are ordinary tasks). */
export async function deleteSchedule(tx: Tx, schedule: Schedule): Promise<void> {
  await tx.db
    .deleteFrom('schedules')
    .where('id', '=', schedule.id)
    .where('namespace_id', '=', schedule.namespaceId)
    .execute();
}
