/**
 * The long-poll around a read: each try is its own short transaction; between tries it sleeps
 * until an append on this node wakes it (`streamWakeUpKey`) or `CROSS_NODE_POLL_MS` passes, which
 * bounds the delay for events committed on another node.
 */
import { orbit } from '@weave/sdk/protocol';
import type { Database } from '../store/database.js';
import { withTx } from '../store/with-tx.js';
import type { Tx } from '../store/with-tx.js';
import { streamWakeUpKey } from './append-result.js';
import type { EventPage } from './read-events.js';

export const MAX_WAIT_MS = orbit.MAX_WAIT_MS;
export const CROSS_NODE_POLL_MS = 100;

export interface StreamRead {
  readonly streamId: string;
  readonly page: EventPage;
}

export async function readWithWait(
  options: { readonly database: Database; readonly signal?: AbortSignal; readonly pollMs?: number },
  read: (tx: Tx) => Promise<StreamRead>,
  waitMs: number,
): Promise<EventPage> {
  const until = Date.now() + Math.min(waitMs, MAX_WAIT_MS);
  const wakeUps = options.database.wakeUps;
  let streamId: string | undefined;
  for (;;) {
    // Read before the transaction: an append committed after our read moves it, and the wait
    // below returns at once instead of sleeping through a re-check interval.
    const since =
      streamId === undefined
        ? { value: wakeUps.epoch() }
        : { key: streamWakeUpKey(streamId), value: wakeUps.epoch(streamWakeUpKey(streamId)) };
    const result = await withTx(options.database, read);
    streamId = result.streamId;
    const remaining = until - Date.now();
    if (
      result.page.events.length > 0 ||
      remaining <= 0 ||
      wakeUps.closed ||
      options.signal?.aborted === true
    ) {
      return result.page;
    }
    await wakeUps.wait(
      streamWakeUpKey(result.streamId),
      Math.min(remaining, options.pollMs ?? CROSS_NODE_POLL_MS),
      { signal: options.signal, since },
    );
  }
}
