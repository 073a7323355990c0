/**
 * The database-derived gauges of `/metrics`, read at scrape time in one short transaction. Each
 * statement is served by an index and bounded (docs/operations.md "Metrics"):
 *
 * - namespaces, queues: the small catalog tables by primary key, at most `MAX_CATALOG_ROWS`.
 * - queue depth: per queue, `queue_id = ? AND status IN (…) GROUP BY status` over the prefix
 *   `(queue_id, status)` of `ix_tasks_claim`, index only. Finished tasks are never read; the
 *   active ones are bounded by the queue capacity (pending) and the application quota.
 * - active instances: per namespace, `namespace_id = ? AND status IN (…)` over the prefix of
 *   `ix_weave_instances_list_status`, index only, bounded by the active-instance limit.
 * - inbox and pending advances: the `state = 'PENDING'` range of `ix_weave_inbox_scan` /
 *   `ix_weave_pending_scan` in `available_at` order, at most `MAX_BACKLOG_ROWS` rows, index only.
 *
 * The tasks and instances statements filter by queue or namespace id but not always by
 * `namespace_id` (DESIGN §5a "Beyond one database"): a queue id is unique on its own and adding
 * the column would cost a table read per counted row. This is an operator listing across
 * namespaces, as the admin listings are.
 */
import type { Compilable } from 'kysely';
import type { Database } from '../store/database.js';
import type { Tx } from '../store/with-tx.js';
import { withTx } from '../store/with-tx.js';
import { toId, toInt } from '../store/values.js';
import { ACTIVE_INSTANCE_STATUSES } from '../weave/model/states.js';

/** Task statuses counted per queue: the ones still in a queue or in a worker's hands. */
export const QUEUE_DEPTH_STATUSES = ['PENDING', 'CLAIMED', 'RUNNING', 'NEEDS_REVIEW'] as const;
export type QueueDepthStatus = (typeof QUEUE_DEPTH_STATUSES)[number];

/** Namespaces and queues read per scrape; beyond this, the rest are not reported. */
export const MAX_CATALOG_ROWS = 1_000;
/** Pending inbox rows (and pending advances) counted per scrape; the count saturates here. */
export const MAX_BACKLOG_ROWS = 100_000;
/** Statements sent together (one packet on MariaDB). */
const BATCH = 50;

export interface QueueGauge {
  readonly namespace: string;
  readonly queue: string;
  readonly counts: Readonly<Record<QueueDepthStatus, number>>;
}

export interface BacklogGauge {
  readonly namespace: string;
  readonly rows: number;
  /** Now − the oldest row's `available_at` (≥ 0), in seconds; 0 without rows. */
  readonly lagSeconds: number;
}

export interface DatabaseGauges {
  readonly namespaces: ReadonlyMap<string, string>;
  readonly queues: ReadonlyMap<
    string,
    { readonly namespace: string; readonly namespaceId: string; readonly queue: string }
  >;
  readonly queueDepth: readonly QueueGauge[];
  readonly activeInstances: readonly {
    readonly namespace: string;
    readonly status: string;
    readonly count: number;
  }[];
  readonly inbox: readonly BacklogGauge[];
  readonly pendingAdvances: readonly BacklogGauge[];
}

export function readDatabaseGauges(database: Database): Promise<DatabaseGauges> {
  return withTx(database, async (tx) => {
    const namespaces = await readNamespaces(tx);
    const queues = await readQueues(tx, namespaces);
    return {
      namespaces,
      queues,
      queueDepth: await readQueueDepth(tx, queues),
      activeInstances: await readActiveInstances(tx, namespaces),
      inbox: await readBacklog(tx, 'weave_inbox', namespaces),
      pendingAdvances: await readBacklog(tx, 'weave_pending_advances', namespaces),
    };
  });
}

async function readNamespaces(tx: Tx): Promise<Map<string, string>> {
  const rows = await tx.db
    .selectFrom('namespaces')
    .select(['id', 'name'])
    .orderBy('id')
    .limit(MAX_CATALOG_ROWS)
    .execute();
  return new Map(rows.map((r) => [toId(r.id), r.name]));
}

async function readQueues(tx: Tx, namespaces: ReadonlyMap<string, string>) {
  const rows = await tx.db
    .selectFrom('queues')
    .select(['id', 'namespace_id', 'name'])
    .orderBy('id')
    .limit(MAX_CATALOG_ROWS)
    .execute();
  const queues = new Map<string, { namespace: string; namespaceId: string; queue: string }>();
  for (const row of rows) {
    const namespace = namespaces.get(toId(row.namespace_id));
    if (namespace !== undefined) {
      queues.set(toId(row.id), { namespace, namespaceId: toId(row.namespace_id), queue: row.name });
    }
  }
  return queues;
}

async function readQueueDepth(tx: Tx, queues: DatabaseGauges['queues']): Promise<QueueGauge[]> {
  const ids = [...queues.keys()];
  const rows = await readBatched(tx, ids, (id) =>
    tx.db
      .selectFrom('tasks')
      .select(['status', (eb) => eb.fn.countAll().as('n')])
      // Scoped like every statement on a namespaced table (runtime.md §7).
      .where('namespace_id', '=', queues.get(id)?.namespaceId ?? '')
      .where('queue_id', '=', id)
      .where('status', 'in', QUEUE_DEPTH_STATUSES)
      .groupBy('status'),
  );
  return ids.map((id, i) => {
    const counts = { PENDING: 0, CLAIMED: 0, RUNNING: 0, NEEDS_REVIEW: 0 };
    for (const row of rows[i] ?? []) {
      counts[row.status as QueueDepthStatus] = toInt(row.n);
    }
    const { namespace, queue } = queues.get(id) as { namespace: string; queue: string };
    return { namespace, queue, counts };
  });
}

async function readActiveInstances(tx: Tx, namespaces: ReadonlyMap<string, string>) {
  const ids = [...namespaces.keys()];
  const rows = await readBatched(tx, ids, (id) =>
    tx.db
      .selectFrom('weave_instances')
      .select(['status', (eb) => eb.fn.countAll().as('n')])
      .where('namespace_id', '=', id)
      .where('status', 'in', ACTIVE_INSTANCE_STATUSES)
      .groupBy('status'),
  );
  return ids.flatMap((id, i) => {
    const namespace = namespaces.get(id) as string;
    const found = new Map((rows[i] ?? []).map((r) => [r.status, toInt(r.n)]));
    return ACTIVE_INSTANCE_STATUSES.map((status) => ({
      namespace,
      status,
      count: found.get(status) ?? 0,
    }));
  });
}

/**
 * Pending rows per namespace and the oldest one's age, over at most MAX_BACKLOG_ROWS rows of the
 * `(state, available_at, namespace_id, id)` index taken oldest first, so the age is exact and
 * only the count saturates. A row never retried has `available_at = created_at`.
 */
async function readBacklog(
  tx: Tx,
  table: 'weave_inbox' | 'weave_pending_advances',
  namespaces: ReadonlyMap<string, string>,
): Promise<BacklogGauge[]> {
  const rows = await tx.db
    .selectFrom((eb) =>
      eb
        .selectFrom(table)
        .select(['namespace_id', 'available_at'])
        .where('state', '=', 'PENDING')
        .orderBy('available_at')
        .limit(MAX_BACKLOG_ROWS)
        .as('b'),
    )
    .select([
      'namespace_id',
      (eb) => eb.fn.countAll().as('n'),
      (eb) => eb.fn.min('available_at').as('oldest'),
    ])
    .groupBy('namespace_id')
    .execute();
  const found = new Map(rows.map((r) => [toId(r.namespace_id), r]));
  return [...namespaces].map(([id, namespace]) => {
    const row = found.get(id);
    const oldest = row === undefined ? tx.now : BigInt(row.oldest);
    const lagUs = tx.now > oldest ? tx.now - oldest : 0n;
    return {
      namespace,
      rows: row === undefined ? 0 : toInt(row.n),
      lagSeconds: Number(lagUs) / 1e6,
    };
  });
}

interface StatusCount {
  readonly status: string;
  readonly n: string | number | bigint;
}

/** One statement per id, sent BATCH at a time; the rows of each, in the order of `ids`. */
async function readBatched(
  tx: Tx,
  ids: readonly string[],
  query: (id: string) => Compilable<StatusCount>,
): Promise<StatusCount[][]> {
  const out: StatusCount[][] = [];
  for (let i = 0; i < ids.length; i += BATCH) {
    const rows = await tx.readAll(...ids.slice(i, i + BATCH).map(query));
    out.push(...rows);
  }
  return out;
}
