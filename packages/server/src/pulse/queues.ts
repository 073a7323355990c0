/**
 * Queue administration: create, read, change capacity, pause and resume. Pausing stops claims
 * and starts, never submission or admission (DESIGN.md §4).
 */
import { findApplication } from '../auth/applications.js';
import { checkName } from '../auth/namespaces.js';
import { alreadyExists, notFound } from '../errors.js';
import type { ExistenceCheckHooks } from '../store/unique-insert.js';
import { insertUnique } from '../store/unique-insert.js';
import { shaped } from '../store/statement-shapes.js';
import type { Tx } from '../store/with-tx.js';
import type { Micros } from '../store/values.js';
import { toBool, toId, toInt, toMicros } from '../store/values.js';
import type { Page } from '../store/pages.js';
import { readPage } from '../store/pages.js';

export interface Queue {
  readonly id: string;
  readonly name: string;
  readonly application: string;
  readonly capacity: number;
  readonly paused: boolean;
  readonly revision: string;
  readonly createdAt: Micros;
  readonly updatedAt: Micros;
}

export interface QueueInput {
  readonly name: string;
  readonly application: string;
  readonly capacity: number;
  readonly hooks?: ExistenceCheckHooks;
}

export async function createQueue(tx: Tx, namespaceId: string, input: QueueInput): Promise<Queue> {
  checkName('$.name', input.name);
  // A missing application is not_found at `$.application`, as in the stream routes.
  const app = await findApplication(tx, namespaceId, input.application);
  if (app === undefined) {
    throw notFound(`application ${input.application}`, { path: '$.application' });
  }
  const taken = `queue ${input.name} already exists`;
  if (await findQueue(tx, namespaceId, input.name)) {
    throw alreadyExists(taken);
  }
  await input.hooks?.afterExistenceCheck?.();
  const insert = tx.db.insertInto('queues').values({
    namespace_id: namespaceId,
    application_id: app.id,
    name: input.name,
    capacity: input.capacity,
    created_at: tx.now,
    updated_at: tx.now,
  });
  await insertUnique(tx, taken, () => insert.execute());
  return getQueue(tx, namespaceId, input.name);
}

function queueQuery(tx: Tx, namespaceId: string) {
  return tx.db
    .selectFrom('queues as q')
    .innerJoin('applications as a', 'a.id', 'q.application_id')
    .select([
      'q.id',
      'q.name',
      'q.capacity',
      'q.paused',
      'q.revision',
      'q.created_at',
      'q.updated_at',
    ])
    .select('a.name as application')
    .where('q.namespace_id', '=', namespaceId)
    .where('a.namespace_id', '=', namespaceId);
}

type QueueRow = Awaited<ReturnType<ReturnType<typeof queueQuery>['executeTakeFirstOrThrow']>>;

function toQueue(row: QueueRow): Queue {
  return {
    id: toId(row.id),
    name: row.name,
    application: row.application,
    capacity: toInt(row.capacity),
    paused: toBool(row.paused),
    revision: toId(row.revision),
    createdAt: toMicros(row.created_at),
    updatedAt: toMicros(row.updated_at),
  };
}

export async function findQueue(
  tx: Tx,
  namespaceId: string,
  name: string,
): Promise<Queue | undefined> {
  const read = queueByName(tx, namespaceId, name);
  return read.found((await tx.db.executeQuery(read.query.compile())).rows);
}

/**
 * The read of `findQueue` as a query and its mapping, for callers that send it together with
 * other reads (`tx.readAll`, grouped worker calls).
 */
export function queueByName(tx: Tx, namespaceId: string, name: string) {
  return {
    query: shaped(tx.db, 'queue by name', [namespaceId, namespaceId, name], () =>
      queueQuery(tx, namespaceId).where('q.name', '=', name),
    ),
    found: (rows: readonly QueueRow[]): Queue | undefined => {
      const [row] = rows;
      return row && toQueue(row);
    },
  };
}

export async function getQueue(tx: Tx, namespaceId: string, name: string): Promise<Queue> {
  const queue = await findQueue(tx, namespaceId, name);
  if (queue === undefined) {
    throw notFound(`queue ${name}`, { path: 'queue' });
  }
  return queue;
}

export type QueuePage = Page<Queue>;

export async function listQueues(
  tx: Tx,
  namespaceId: string,
  page: { afterId: string | undefined; size: number },
): Promise<QueuePage> {
  return readPage(queueQuery(tx, namespaceId), page, {
    column: 'q.id',
    toItem: toQueue,
    idOf: (q) => q.id,
  });
}

export interface QueuePatch {
  readonly capacity?: number;
  readonly paused?: boolean;
}

export async function updateQueue(
  tx: Tx,
  namespaceId: string,
  name: string,
  patch: QueuePatch,
): Promise<Queue> {
  const queue = await getQueue(tx, namespaceId, name);
  await tx.db
    .updateTable('queues')
    .set((eb) => ({
      ...(patch.capacity === undefined ? {} : { capacity: patch.capacity }),
      ...(patch.paused === undefined ? {} : { paused: patch.paused ? 1 : 0 }),
      revision: eb('revision', '+', 1),
      updated_at: tx.now,
    }))
    .where('id', '=', queue.id)
    .where('namespace_id', '=', namespaceId)
    .execute();
  return getQueue(tx, namespaceId, name);
}
