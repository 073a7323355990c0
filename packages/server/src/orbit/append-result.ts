/**
 * Orbit (对外结果流) step of the result transaction, seed 000 §1 step 6: append the outcome to
 * its stream with the next gap-free sequence number.
 *
 * Callers (settle-task, later the Weave runtime) call `appendResult` at its place in the order;
 * the append itself runs at the end of the transaction (`tx.beforeCommit`): the stream row is
 * the hottest lock of the system (every outcome of the stream serialises on it), so it is taken
 * last and held only for the commit (DESIGN.md §5a "lock it last, amortise"). All outcomes of
 * one transaction (a batch of completions, a sweep) share one lock and one multi-row insert per
 * stream. Because the row lock is held until commit, commit order is seq order: a reader never
 * sees seq n+1 before seq n, and a rollback gives its seqs back with the rest.
 *
 * An append registered inside a savepoint that rolls back is undone with it: what is collected
 * is decided at commit time, from the hooks that survived.
 */
import { stringify } from '@weave/json';
import { WeaveError } from '../errors.js';
import { compareIds, formatInstant, toId, toMicros } from '../store/values.js';
import type { Tx } from '../store/with-tx.js';

export interface ResultEvent {
  readonly namespaceId: string;
  /** The owner of the source: its default stream is the target when `streamId` is null. */
  readonly applicationId: string;
  readonly streamId: string | null;
  /** `task.succeeded`, `task.failed`, `task.cancelled`, `task.needs_review`, later `instance.*`. */
  readonly type: string;
  readonly source: { readonly kind: 'task' | 'instance'; readonly id: string };
  /** The source's revision at the outcome: (stream, source, revision) is unique. */
  readonly revision: bigint;
  /**
   * The frozen snapshot after `seq`, `type` and `at` (ids, status, result or error): plain or
   * exact-JSON values (payloads as `{kind: 'raw', text}`), written once and never rebuilt.
   */
  readonly fields: Readonly<Record<string, unknown>>;
}

/** Most body bytes in one multi-row INSERT (MariaDB's max_allowed_packet is 16 MiB). */
const INSERT_CHUNK_BYTES = 4 * 1024 * 1024;

const pending = new WeakMap<Tx, ResultEvent[]>();

export function appendResult(tx: Tx, event: ResultEvent): Promise<void> {
  tx.beforeCommit(() => {
    let events = pending.get(tx);
    if (events === undefined) {
      const list: ResultEvent[] = [];
      events = list;
      pending.set(tx, list);
      tx.beforeCommit(() => flush(tx, list));
    }
    events.push(event);
    return Promise.resolve();
  });
  return Promise.resolve();
}

/** The wake-up key of a stream's readers (`tx.wakeUps`). */
export function streamWakeUpKey(streamId: string): string {
  return `orbit.stream.${streamId}`;
}

async function flush(tx: Tx, events: readonly ResultEvent[]): Promise<void> {
  const groups = new Map<string, ResultEvent[]>();
  for (const event of events) {
    const key =
      event.streamId === null
        ? `app:${event.namespaceId}:${event.applicationId}`
        : `id:${event.streamId}`;
    const group = groups.get(key);
    if (group === undefined) {
      groups.set(key, [event]);
    } else {
      group.push(event);
    }
  }
  if (groups.size === 1) {
    const [group] = groups.values() as unknown as [ResultEvent[]];
    await appendLocked(tx, await streamRow(tx, group[0] as ResultEvent, true), group);
    return;
  }
  // Several streams: resolve ids first, then lock in ascending id (one lock order everywhere).
  const byId = new Map<string, ResultEvent[]>();
  for (const group of groups.values()) {
    const first = group[0] as ResultEvent;
    const id = first.streamId ?? (await streamRow(tx, first, false)).id;
    byId.set(id, [...(byId.get(id) ?? []), ...group]);
  }
  for (const id of [...byId.keys()].sort(compareIds)) {
    const group = byId.get(id) ?? [];
    const first = group[0] as ResultEvent;
    await appendLocked(tx, await streamRow(tx, { ...first, streamId: id }, true), group);
  }
}

interface LockedStream {
  readonly namespaceId: string;
  readonly id: string;
  readonly nextSeq: bigint;
}

/** The target's stream row (by id, or the application's default), locked when `lock`. */
async function streamRow(
  tx: Tx,
  target: Pick<ResultEvent, 'namespaceId' | 'applicationId' | 'streamId'>,
  lock: boolean,
): Promise<LockedStream> {
  let query = tx.db
    .selectFrom('orbit_streams')
    .select(['id', 'next_seq'])
    .where('namespace_id', '=', target.namespaceId);
  query =
    target.streamId === null
      ? query.where('application_id', '=', target.applicationId).where('is_default', '=', 1)
      : query.where('id', '=', target.streamId);
  if (lock) {
    query = tx.dialect.forUpdate(query);
  }
  const row = await query.executeTakeFirst();
  if (row === undefined) {
    const what = target.streamId ?? `the default of application ${target.applicationId}`;
    throw new WeaveError('internal', `result stream ${what} does not exist`);
  }
  return { namespaceId: target.namespaceId, id: toId(row.id), nextSeq: toMicros(row.next_seq) };
}

async function appendLocked(
  tx: Tx,
  stream: LockedStream,
  events: readonly ResultEvent[],
): Promise<void> {
  const at = formatInstant(tx.now);
  const rows = events.map((event, i) => {
    const seq = stream.nextSeq + BigInt(i);
    const body = stringify({
      seq: seq.toString(),
      type: event.type,
      at,
      ...event.fields,
    });
    return {
      stream_id: stream.id,
      seq,
      namespace_id: event.namespaceId,
      type: event.type,
      source_kind: event.source.kind,
      source_id: event.source.id,
      source_revision: event.revision,
      at: tx.now,
      body,
    };
  });
  for (const chunk of chunksByBytes(rows)) {
    await tx.write(tx.db.insertInto('orbit_result_events').values(chunk));
  }
  await tx.write(
    tx.db
      .updateTable('orbit_streams')
      .set({ next_seq: stream.nextSeq + BigInt(rows.length) })
      .where('id', '=', stream.id)
      .where('namespace_id', '=', stream.namespaceId),
  );
  tx.afterCommit(() => tx.wakeUps.notify(streamWakeUpKey(stream.id)));
}

function chunksByBytes<T extends { body: string }>(rows: readonly T[]): T[][] {
  const chunks: T[][] = [];
  let current: T[] = [];
  let bytes = 0;
  for (const row of rows) {
    if (current.length > 0 && bytes + row.body.length * 3 > INSERT_CHUNK_BYTES) {
      chunks.push(current);
      current = [];
      bytes = 0;
    }
    current.push(row);
    bytes += row.body.length * 3;
  }
  if (current.length > 0) {
    chunks.push(current);
  }
  return chunks;
}
