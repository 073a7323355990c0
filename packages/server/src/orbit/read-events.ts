/**
 * Reading a stream after a cursor. Events come back as their frozen JSON text, in seq order,
 * with no gap: commit order is seq order (append-result.ts), and a page that does not start
 * right after the cursor means retention removed what the cursor still needed → 410
 * `cursor_expired` with the earliest seq still held.
 */
import { orbit } from '@weave/sdk/protocol';
import { WeaveError } from '../errors.js';
import { toMicros } from '../store/values.js';
import type { Tx } from '../store/with-tx.js';

/** Most events one read returns. */
export const MAX_READ_LIMIT = orbit.MAX_READ_LIMIT;
export const DEFAULT_READ_LIMIT = 100;

export interface StreamPosition {
  readonly id: string;
  readonly name: string;
  readonly earliestSeq: bigint;
  readonly nextSeq: bigint;
}

export interface EventPage {
  /** Each event's frozen JSON text (`{seq, type, at, …}`). */
  readonly events: readonly string[];
  readonly firstSeq: bigint | null;
  readonly lastSeq: bigint | null;
  /** The cursor for the next read: the last seq returned, or `after` when none. */
  readonly nextAfter: bigint;
}

export async function readEvents(
  tx: Tx,
  stream: StreamPosition,
  after: bigint,
  limit: number,
): Promise<EventPage> {
  const head = stream.nextSeq - 1n;
  if (after > head) {
    throw new WeaveError('invalid_argument', `after ${after} is beyond the head of the stream`, {
      details: { path: 'after', head_seq: head.toString() },
    });
  }
  if (after < stream.earliestSeq - 1n) {
    throw cursorExpired(stream, stream.earliestSeq);
  }
  const rows = await tx.db
    .selectFrom('orbit_result_events')
    .select(['seq', 'body'])
    .where('stream_id', '=', stream.id)
    .where('seq', '>', after)
    .orderBy('seq')
    .limit(limit)
    .execute();
  const first = rows[0];
  if (first !== undefined && toMicros(first.seq) !== after + 1n) {
    // Retention ran between reading the stream row and the events.
    throw cursorExpired(stream, toMicros(first.seq));
  }
  const last = rows[rows.length - 1];
  return {
    events: rows.map((r) => r.body),
    firstSeq: first === undefined ? null : toMicros(first.seq),
    lastSeq: last === undefined ? null : toMicros(last.seq),
    nextAfter: last === undefined ? after : toMicros(last.seq),
  };
}

function cursorExpired(stream: StreamPosition, earliest: bigint): WeaveError {
  return new WeaveError(
    'cursor_expired',
    `events of stream ${stream.name} before seq ${earliest} are no longer retained`,
    { details: { earliest_seq: earliest.toString() } },
  );
}
