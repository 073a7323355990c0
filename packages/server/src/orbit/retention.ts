/**
 * Retention (docs/design/orbit.md "Retention"): remove a stream's oldest events beyond its age
 * or count limit, oldest first, at most `batch` per transaction, then raise `earliest_seq`.
 * Only a prefix is ever removed, so what is retained stays gap-free; a cursor behind
 * `earliest_seq` reads 410 `cursor_expired` (read-events.ts). The events are deleted before the
 * stream row is touched, so appenders wait on the row only for the short update and the commit.
 */
import { startPeriodicLoop } from '../periodic-loop.js';
import type { PeriodicLoop } from '../periodic-loop.js';
import type { Database } from '../store/database.js';
import { toId, toMicros, toMicrosOrNull } from '../store/values.js';
import type { Tx } from '../store/with-tx.js';
import { withTx } from '../store/with-tx.js';

export const RETENTION_INTERVAL_MS = 10_000;
export const RETENTION_BATCH = 1_000;

interface RetainedStream {
  readonly id: string;
  readonly earliestSeq: bigint;
  readonly nextSeq: bigint;
  readonly maxAgeUs: bigint | null;
  readonly maxEvents: bigint | null;
}

/** One batch for one stream. Returns how many events were removed. */
export async function trimStream(tx: Tx, stream: RetainedStream, batch: number): Promise<number> {
  const byCount =
    stream.maxEvents === null ? stream.earliestSeq - 1n : stream.nextSeq - 1n - stream.maxEvents;
  const ageCutoff = stream.maxAgeUs === null ? null : tx.now - stream.maxAgeUs;
  const oldest = await tx.db
    .selectFrom('orbit_result_events')
    .select(['seq', 'at'])
    .where('stream_id', '=', stream.id)
    .orderBy('seq')
    .limit(batch)
    .execute();
  let last: bigint | null = null;
  for (const row of oldest) {
    const seq = toMicros(row.seq);
    const expired = ageCutoff !== null && toMicros(row.at) < ageCutoff;
    if (seq > byCount && !expired) {
      break;
    }
    last = seq;
  }
  if (last === null) {
    return 0;
  }
  const deleted = await tx.db
    .deleteFrom('orbit_result_events')
    .where('stream_id', '=', stream.id)
    .where('seq', '<=', last)
    .executeTakeFirst();
  await tx.db
    .updateTable('orbit_streams')
    .set({ earliest_seq: last + 1n })
    .where('id', '=', stream.id)
    .where('earliest_seq', '<', last + 1n)
    .execute();
  return Number(deleted.numDeletedRows);
}

/** One pass over every stream with a limit; `true` when some stream had a full batch. */
export async function enforceRetention(database: Database, batch: number): Promise<boolean> {
  const streams = await withTx(database, async (tx) =>
    (
      await tx.db
        .selectFrom('orbit_streams')
        .select(['id', 'earliest_seq', 'next_seq', 'retention_max_age_us', 'retention_max_events'])
        .where((eb) =>
          eb.or([
            eb('retention_max_age_us', 'is not', null),
            eb('retention_max_events', 'is not', null),
          ]),
        )
        .execute()
    ).map((r): RetainedStream => ({
      id: toId(r.id),
      earliestSeq: toMicros(r.earliest_seq),
      nextSeq: toMicros(r.next_seq),
      maxAgeUs: toMicrosOrNull(r.retention_max_age_us),
      maxEvents: toMicrosOrNull(r.retention_max_events),
    })),
  );
  let more = false;
  for (const stream of streams) {
    const removed = await withTx(database, (tx) => trimStream(tx, stream, batch));
    more ||= removed >= batch;
  }
  return more;
}

export function startRetentionLoop(options: {
  readonly database: Database;
  readonly intervalMs?: number;
  readonly batch?: number;
  readonly onError?: (error: unknown) => void;
}): PeriodicLoop {
  return startPeriodicLoop({
    intervalMs: options.intervalMs ?? RETENTION_INTERVAL_MS,
    onError: options.onError,
    pass: () => enforceRetention(options.database, options.batch ?? RETENTION_BATCH),
  });
}
