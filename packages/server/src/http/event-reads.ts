/**
 * The two event reads (`GET /streams/{s}/events`, `GET /subscriptions/{id}/events`) differ only
 * in where the cursor comes from: `limit` and `wait_ms`, the long-poll and the answer are here.
 */
import type { StreamPosition } from '../orbit/read-events.js';
import { DEFAULT_READ_LIMIT, MAX_READ_LIMIT, readEvents } from '../orbit/read-events.js';
import { MAX_WAIT_MS, readWithWait } from '../orbit/wait-events.js';
import type { Tx } from '../store/with-tx.js';
import { eventPageView } from './orbit-views.js';
import { queryInteger } from './query-fields.js';
import type { orbit } from '@weave/sdk/protocol';
import type { Answer, SessionContext } from './route.js';

export interface Cursor {
  readonly stream: StreamPosition;
  /** Read the events after this seq. */
  readonly after: bigint;
}

export async function answerEventRead(
  ctx: SessionContext,
  locate: (tx: Tx) => Promise<Cursor>,
): Promise<Answer<orbit.EventPage>> {
  const limit =
    queryInteger(ctx.query, 'limit', { min: 1, max: MAX_READ_LIMIT }) ?? DEFAULT_READ_LIMIT;
  const waitMs = queryInteger(ctx.query, 'wait_ms', { min: 0, max: MAX_WAIT_MS }) ?? 0;
  const page = await readWithWait(
    { database: ctx.database, signal: ctx.signal },
    async (tx) => {
      const { stream, after } = await locate(tx);
      return { streamId: stream.id, page: await readEvents(tx, stream, after, limit) };
    },
    waitMs,
  );
  return { body: eventPageView(page) };
}
