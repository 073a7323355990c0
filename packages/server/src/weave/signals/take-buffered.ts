/**
 * A new SIGNAL or POLL final-signal wait takes a buffered signal (docs/design/signals.md §4): the
 * earliest BUFFERED signal with the same name, exact correlation bytes and payload version whose
 * window holds the wait's creation (`admitted_at ≤ now < expires_at`, DB time) — never one after
 * its window. Taken with a conditional UPDATE whose affected rows are checked, so two instances
 * activating at once cannot both take it (the loser tries the next one). The wait is MATCHED and
 * its inbox row written in the same transaction as the wait itself (Start or a runner round).
 */
import type { Tx } from '../../store/with-tx.js';
import { toId, toInt, toMicros } from '../../store/values.js';
import { deliverToWaits } from './deliver-signal.js';

/** Signals one wait tries before it gives up (each lost race moves on to the next). */
const MAX_TAKE_TRIES = 3;

export interface NewSignalWait {
  readonly waitId: string;
  readonly instanceId: string;
  readonly activationId: string;
  readonly stepId: string;
  readonly name: string;
  readonly correlation: Uint8Array;
  readonly payloadVersion: number;
}

/** The waits that took a buffered signal: signal id by step id. */
export async function takeBufferedSignals(
  tx: Tx,
  namespaceId: string,
  waits: readonly NewSignalWait[],
): Promise<Map<string, string>> {
  const taken = new Map<string, string>();
  for (const wait of waits) {
    const signalId = await takeOne(tx, namespaceId, wait);
    if (signalId !== undefined) {
      taken.set(wait.stepId, signalId);
    }
  }
  return taken;
}

async function takeOne(tx: Tx, ns: string, wait: NewSignalWait): Promise<string | undefined> {
  const skipped: string[] = [];
  for (let i = 0; i < MAX_TAKE_TRIES; i++) {
    let query = tx.db
      .selectFrom('weave_signals')
      .select(['id', 'payload', 'payload_version', 'admitted_at'])
      .where('namespace_id', '=', ns)
      .where('name', '=', wait.name)
      .where('correlation_key', '=', wait.correlation)
      .where('state', '=', 'BUFFERED')
      .where('payload_version', '=', wait.payloadVersion)
      .where('admitted_at', '<=', tx.now)
      .where('expires_at', '>', tx.now);
    if (skipped.length > 0) {
      query = query.where('id', 'not in', skipped);
    }
    const signal = await query.orderBy('admitted_at').orderBy('id').limit(1).executeTakeFirst();
    if (signal === undefined) {
      return undefined;
    }
    const id = toId(signal.id);
    const update = await tx.db
      .updateTable('weave_signals')
      .set({
        state: 'CONSUMED',
        matched_count: 1,
        consumed_wait_id: wait.waitId,
        updated_at: tx.now,
      })
      .where('namespace_id', '=', ns)
      .where('id', '=', id)
      .where('state', '=', 'BUFFERED')
      .executeTakeFirst();
    if (update.numUpdatedRows !== 1n) {
      skipped.push(id);
      continue;
    }
    await deliverToWaits(tx, { namespaceId: ns, createdAt: tx.now }, [
      {
        signalId: id,
        waitId: wait.waitId,
        name: wait.name,
        payloadVersion: toInt(signal.payload_version),
        admittedAt: toMicros(signal.admitted_at),
        payload: signal.payload,
        instanceId: wait.instanceId,
        activationId: wait.activationId,
      },
    ]);
    return id;
  }
  return undefined;
}
