/**
 * The webhook delivery loop of one node. Each pass claims due subscriptions (up to the free
 * in-flight slots), starts one delivery per claimed subscription, and then sleeps until an append
 * on a watched stream (same node: `streamSignal`), a delivery finishing, the earliest retry
 * falling due, or `intervalMs` (appends on other nodes and new subscriptions) — whichever comes
 * first. Deliveries of different subscriptions run side by side; one subscription never has two
 * (its lease, webhook-delivery.ts). `stop()` aborts the POSTs in flight and gives their leases
 * back, so a restart resends those batches at once instead of after the lease.
 */
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type { Database } from '../store/database.js';
import { toId, toMicros } from '../store/values.js';
import type { Tx } from '../store/with-tx.js';
import { withTx } from '../store/with-tx.js';
import { streamSignal } from './append-result.js';
import { DEFAULT_RETRY_SETTINGS } from './webhook-backoff.js';
import type { ClaimedBatch, WebhookDeliverySettings } from './webhook-delivery.js';
import { claimDeliveries, deliverBatch, recordAttempt, releaseLease } from './webhook-delivery.js';
import { DEFAULT_TARGET_POLICY } from './webhook-targets.js';

/** Idle re-check: bounds how late an append on another node is pushed (default 1 s). */
export const WEBHOOK_INTERVAL_MS = 1_000;
/** Deliveries (subscriptions) in flight at once on one node. */
export const WEBHOOK_MAX_IN_FLIGHT = 16;

export const DEFAULT_DELIVERY_SETTINGS: WebhookDeliverySettings = {
  ...DEFAULT_RETRY_SETTINGS,
  batchSize: 100,
  timeoutMs: 10_000,
  leaseMs: 60_000,
  policy: DEFAULT_TARGET_POLICY,
};

export interface WebhookLoopOptions {
  readonly database: Database;
  readonly intervalMs?: number;
  readonly maxInFlight?: number;
  readonly settings?: Partial<WebhookDeliverySettings>;
  /** The lease owner prefix (default: host name, pid and a random suffix). */
  readonly nodeId?: string;
  readonly onError?: ((error: unknown) => void) | undefined;
  /** Test seam: the jitter draw. */
  readonly random?: () => number;
}

export interface WebhookLoop {
  stop(): Promise<void>;
}

interface Watch {
  readonly streamIds: readonly string[];
  /** Milliseconds until the earliest pending retry is due (null: none pending). */
  readonly nextDueMs: number | null;
}

/** What to sleep on: every stream with an ACTIVE webhook subscription, and the next due retry. */
async function readWatch(tx: Tx): Promise<Watch> {
  const rows = await tx.db
    .selectFrom('orbit_subscriptions as u')
    .innerJoin('orbit_streams as s', 's.id', 'u.stream_id')
    .select(['u.stream_id', 'u.next_attempt_at', 'u.lease_until', 'u.acked_seq', 's.next_seq'])
    .where('u.state', '=', 'ACTIVE')
    .where('u.webhook_url', 'is not', null)
    .execute();
  let next: bigint | null = null;
  for (const row of rows) {
    if (toMicros(row.acked_seq) >= toMicros(row.next_seq) - 1n) {
      continue;
    }
    const lease = row.lease_until === null ? 0n : toMicros(row.lease_until);
    const due = [toMicros(row.next_attempt_at), lease].reduce((a, b) => (a > b ? a : b));
    next = next === null || due < next ? due : next;
  }
  return {
    streamIds: [...new Set(rows.map((r) => toId(r.stream_id)))],
    nextDueMs: next === null ? null : Math.max(0, Number((next - tx.now) / 1000n) + 1),
  };
}

export function startWebhookLoop(options: WebhookLoopOptions): WebhookLoop {
  const settings: WebhookDeliverySettings = { ...DEFAULT_DELIVERY_SETTINGS, ...options.settings };
  const intervalMs = options.intervalMs ?? WEBHOOK_INTERVAL_MS;
  const maxInFlight = options.maxInFlight ?? WEBHOOK_MAX_IN_FLIGHT;
  const nodeId = options.nodeId ?? `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  const random = options.random ?? Math.random;
  const stopping = new AbortController();
  const inFlight = new Set<Promise<void>>();
  let kick: (() => void) | undefined;
  const report = (e: unknown) => options.onError?.(e);

  const deliver = async (batch: ClaimedBatch): Promise<void> => {
    const attempt =
      batch.expired === undefined
        ? await deliverBatch(batch, settings, stopping.signal)
        : { response: { kind: 'failed' as const, error: batch.expired }, durationUs: 0n };
    if (stopping.signal.aborted && attempt.response.kind === 'failed') {
      await withTx(options.database, (tx) => releaseLease(tx, batch));
      return;
    }
    await withTx(options.database, (tx) =>
      recordAttempt(tx, batch, { ...attempt, random: random(), settings }),
    );
  };

  const launch = (batch: ClaimedBatch) => {
    const running: Promise<void> = deliver(batch)
      .catch(report)
      .finally(() => {
        inFlight.delete(running);
        kick?.();
      });
    inFlight.add(running);
  };

  const pass = async (): Promise<void> => {
    const free = maxInFlight - inFlight.size;
    const batches =
      free <= 0
        ? []
        : await withTx(options.database, (tx) =>
            claimDeliveries(tx, { nodeId, limit: free, settings }),
          );
    batches.forEach(launch);
    if (batches.length > 0 && batches.length === free) {
      return; // every slot taken: claim again once one frees
    }
    const watch = await withTx(options.database, readWatch);
    await sleep(watch, intervalMs);
  };

  const sleep = async (watch: Watch, ms: number): Promise<void> => {
    const waitMs = Math.min(ms, watch.nextDueMs ?? ms);
    const done = new AbortController();
    const either = AbortSignal.any([done.signal, stopping.signal]);
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        new Promise<void>((resolve) => {
          kick = resolve;
          timer = setTimeout(resolve, waitMs);
          if (either.aborted) {
            resolve();
          }
          either.addEventListener('abort', () => resolve(), { once: true });
        }),
        ...watch.streamIds.map((id) =>
          options.database.signals.wait(streamSignal(id), waitMs, either),
        ),
      ]);
    } finally {
      kick = undefined;
      clearTimeout(timer);
      done.abort();
    }
  };

  const run = async () => {
    // Closed signals mean the server is shutting down: claim nothing more.
    while (!stopping.signal.aborted && !options.database.signals.closed) {
      try {
        await pass();
      } catch (e: unknown) {
        report(e);
        await sleep({ streamIds: [], nextDueMs: null }, intervalMs);
      }
    }
    await Promise.all([...inFlight]);
  };
  const running = run();

  return {
    async stop() {
      stopping.abort();
      kick?.();
      await running;
    },
  };
}
