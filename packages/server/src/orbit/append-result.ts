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
import { sql } from 'kysely';
import { WeaveError } from '../errors.js';
import { flatten, mapped } from '../store/flatten.js';
import { compareIds, formatInstant, toId } from '../store/values.js';
import type { WakeUps } from '../store/wake-ups.js';
import { shaped } from '../store/statement-shapes.js';
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
  const byId = new Map<string, ResultEvent[]>();
  for (const event of events) {
    const id = event.streamId ?? (await defaultStreamId(tx, event));
    byId.set(id, [...(byId.get(id) ?? []), event]);
  }
  // Several streams: locked in ascending id (one lock order everywhere).
  for (const id of [...byId.keys()].sort(compareIds)) {
    await append(tx, id, byId.get(id) ?? []);
  }
}

/**
 * Default streams by application, per database: an application's default stream is created with
 * it and never deleted or replaced, so its id, once read, holds for the life of the process.
 */
const defaultStreams = new WeakMap<WakeUps, Map<string, string>>();
/** Beyond this many applications the cache starts again (one read each). */
const MAX_DEFAULT_STREAMS = 100_000;

/** The id of the application's default stream (a plain read, once per process). */
async function defaultStreamId(
  tx: Tx,
  target: Pick<ResultEvent, 'namespaceId' | 'applicationId'>,
): Promise<string> {
  let known = defaultStreams.get(tx.wakeUps);
  if (known === undefined) {
    known = new Map();
    defaultStreams.set(tx.wakeUps, known);
  }
  const key = `${target.namespaceId}/${target.applicationId}`;
  const cached = known.get(key);
  if (cached !== undefined) {
    return cached;
  }
  const row = await tx.db
    .selectFrom('orbit_streams')
    .select('id')
    .where('namespace_id', '=', target.namespaceId)
    .where('application_id', '=', target.applicationId)
    .where('is_default', '=', 1)
    .executeTakeFirst();
  if (row === undefined) {
    throw new WeaveError(
      'internal',
      `result stream: the default of application ${target.applicationId} does not exist`,
    );
  }
  const id = toId(row.id);
  // Cached once committed: a stream created by this very transaction may yet roll back.
  tx.afterCommit(() => {
    if (known.size >= MAX_DEFAULT_STREAMS) {
      known.clear();
    }
    known.set(key, id);
  });
  return id;
}

/**
 * Appends `events` to one stream with writes whose answers nobody needs, so on MariaDB they
 * travel in the COMMIT's packet (coalescing-driver.ts) and the stream row is locked for that
 * packet's run and the commit only, never across a round trip:
 *   1. `UPDATE … SET next_seq = next_seq + n` locks the row and reserves seqs next … next+n−1;
 *   2. the row's new `next_seq`, read back once (this transaction sees its own update;
 *      `dialect.once`: a session variable on MariaDB);
 *   3. one multi-row INSERT: event i gets `next_seq − n + i`, and its frozen body is that seq
 *      spliced in front of the snapshot built here, byte for byte what it was when the seq was
 *      read first (`{"seq":"7","type":…}`).
 * A stream row that does not exist leaves the seq NULL, which the NOT NULL column refuses: the
 * transaction fails as a whole.
 */
async function append(tx: Tx, streamId: string, events: readonly ResultEvent[]): Promise<void> {
  const namespaceId = (events[0] as ResultEvent).namespaceId;
  const count = BigInt(events.length);
  const at = formatInstant(tx.now);
  await tx.write(
    shaped(tx.db, 'stream seqs', [count, streamId, namespaceId], () =>
      tx.db
        .updateTable('orbit_streams')
        .set({ next_seq: sql`next_seq + ${count}` })
        .where('id', '=', streamId)
        .where('namespace_id', '=', namespaceId),
    ),
  );
  const next = tx.dialect.once(
    'stream_next_seq',
    sql<bigint>`(SELECT s.next_seq FROM orbit_streams s WHERE s.id = ${streamId} AND s.namespace_id = ${namespaceId})`,
  );
  if (next.set !== undefined) {
    const set = next.set;
    await tx.write({ compile: () => set.compile(tx.db) });
  }
  const rows = mapped(events, (event) => {
    const snapshot = stringify({ type: event.type, at, ...event.fields });
    return { event, size: snapshot.length, tail: snapshot.slice(1) };
  });
  // The rows as Kysely inserts them; built only when a shape is compiled (once per shape).
  const values = (chunk: readonly (typeof rows)[number][], from: number) =>
    chunk.map(({ event, tail }, k) => {
      const seq = sql<bigint>`${next.ref} - ${count - BigInt(from + k)}`;
      return {
        stream_id: streamId,
        seq,
        namespace_id: event.namespaceId,
        type: event.type,
        source_kind: event.source.kind,
        source_id: event.source.id,
        source_revision: event.revision,
        at: tx.now,
        // '{"seq":"<seq>",' + the snapshot without its opening brace.
        body: tx.dialect.concat([sql`'{"seq":"'`, seq, sql`'",'`, sql`${tail}`]),
      };
    });
  // The parameters Kysely binds, row by row in column order (store/statement-shapes.ts): the
  // seq and the body carry `next.ref`'s own (none on MariaDB, the stream read on SQLite).
  const refParameters = next.ref.compile(tx.db).parameters;
  const parametersOf = ({ event, tail }: (typeof rows)[number], i: number) => {
    const seq = [...refParameters, count - BigInt(i)];
    return [
      streamId,
      ...seq,
      event.namespaceId,
      event.type,
      event.source.kind,
      event.source.id,
      event.revision,
      tx.now,
    ].concat(seq, tail);
  };
  let first = 0;
  for (const chunk of chunksByBytes(rows)) {
    const from = first;
    first += chunk.length;
    await tx.write(
      shaped(
        tx.db,
        `stream events ×${chunk.length}`,
        flatten(chunk, (row, k) => parametersOf(row, from + k)),
        () => tx.db.insertInto('orbit_result_events').values(values(chunk, from)),
      ),
    );
  }
  tx.afterCommit(() => tx.wakeUps.notify(streamWakeUpKey(streamId)));
}

function chunksByBytes<T extends { size: number }>(rows: readonly T[]): T[][] {
  const chunks: T[][] = [];
  let current: T[] = [];
  let bytes = 0;
  for (const row of rows) {
    if (current.length > 0 && bytes + row.size * 3 > INSERT_CHUNK_BYTES) {
      chunks.push(current);
      current = [];
      bytes = 0;
    }
    current.push(row);
    bytes += row.size * 3;
  }
  if (current.length > 0) {
    chunks.push(current);
  }
  return chunks;
}
