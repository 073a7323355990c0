/**
 * The webhook delivery loop of one node. Each pass claims due subscriptions (up to the free
 * in-flight slots), starts one delivery per claimed subscription, and then sleeps until an append
 * on a watched stream (same node: `streamWakeUpKey`), a resume (`WEBHOOKS_CHANGED_WAKE_UP`), a
 * delivery finishing, the earliest retry
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
import { streamWakeUpKey } from './append-result.js';
import type { ClaimedBatch } from './webhook-delivery.js';
import { claimDeliveries, deliverBatch, recordAttempt, releaseLease } from './webhook-delivery.js';
import { WEBHOOKS_CHANGED_WAKE_UP } from './webhook-control.js';
import type { WebhookDeliverySettings } from './webhook-settings.js';
import { toDeliverySettings } from './webhook-settings.js';

/** Idle re-check: bounds how late an append on another node is pushed (default 1 s). */
export const WEBHOOK_INTERVAL_MS = 1_000;
/** Deliveries (subscriptions) in flight at once on one node. */
export const WEBHOOK_MAX_IN_FLIGHT = 16;

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

/**
 * What to sleep on. Appends matter only to subscriptions that are idle (unleased, due, nothing
 * pending): only their streams are watched, so a busy stream does not wake the loop on every
 * append while its batch is in flight (the delivery's end wakes it). Subscriptions with events
 * pending give the time of their next attempt (retry or lease end).
 */
async function readWatch(tx: Tx): Promise<Watch> {
  const rows = await tx.db
    .selectFrom('orbit_subscriptions as u')
    .innerJoin('orbit_streams as s', 's.id', 'u.stream_id')
    .select(['u.stream_id', 'u.next_attempt_at', 'u.lease_until', 'u.acked_seq', 's.next_seq'])
    .where('u.state', '=', 'ACTIVE')
    .where('u.webhook_url', 'is not', null)
    .execute();
  const streamIds = new Set<string>();
  let next: bigint | null = null;
  for (const row of rows) {
    const leaseUntil = row.lease_until === null ? 0n : toMicros(row.lease_until);
    const nextAttemptAt = toMicros(row.next_attempt_at);
    const pending = toMicros(row.acked_seq) < toMicros(row.next_seq) - 1n;
    if (!pending) {
      if (leaseUntil < tx.now && nextAttemptAt <= tx.now) {
        streamIds.add(toId(row.stream_id));
      }
      continue;
    }
    const due = nextAttemptAt > leaseUntil ? nextAttemptAt : leaseUntil;
    next = next === null || due < next ? due : next;
  }
  return {
    streamIds: [...streamIds],
    nextDueMs: next === null ? null : Math.max(0, Number((next - tx.now) / 1000n) + 1),
  };
}

export function startWebhookLoop(options: WebhookLoopOptions): WebhookLoop {
  return new WebhookDeliveryLoop(options);
}

/** See the module comment. One per node; `stop()` before the pool closes. */
class WebhookDeliveryLoop implements WebhookLoop {
  readonly #options: WebhookLoopOptions;
  readonly #settings: WebhookDeliverySettings;
  readonly #nodeId: string;
  readonly #stopping = new AbortController();
  readonly #inFlight = new Set<Promise<void>>();
  readonly #running: Promise<void>;
  /** Set when a delivery finished: the next sleep returns at once (no wake-up is lost). */
  #woken = false;
  #wake: (() => void) | undefined;

  constructor(options: WebhookLoopOptions) {
    this.#options = options;
    this.#settings = toDeliverySettings(options.settings);
    // lease_owner is VARCHAR(200): the node id plus "/" and a 36-character claim UUID.
    this.#nodeId = (
      options.nodeId ?? `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`
    ).slice(-120);
    this.#running = this.#run();
  }

  async stop(): Promise<void> {
    this.#stopping.abort();
    this.#wake?.();
    await this.#running;
  }

  get #intervalMs(): number {
    return this.#options.intervalMs ?? WEBHOOK_INTERVAL_MS;
  }

  async #run(): Promise<void> {
    // Closed signals mean the server is shutting down: claim nothing more.
    while (!this.#stopping.signal.aborted && !this.#options.database.wakeUps.closed) {
      try {
        await this.#pass();
      } catch (e: unknown) {
        this.#options.onError?.(e);
        await this.#sleep({ streamIds: [], nextDueMs: null });
      }
    }
    await Promise.all([...this.#inFlight]);
  }

  async #pass(): Promise<void> {
    const free = (this.#options.maxInFlight ?? WEBHOOK_MAX_IN_FLIGHT) - this.#inFlight.size;
    const batches =
      free <= 0
        ? []
        : await withTx(this.#options.database, (tx) =>
            claimDeliveries(tx, { nodeId: this.#nodeId, limit: free, settings: this.#settings }),
          );
    batches.forEach((batch) => this.#launch(batch));
    if (batches.length > 0 && batches.length === free) {
      return; // every slot taken: the next pass sleeps until one frees
    }
    await this.#sleep(await withTx(this.#options.database, readWatch));
  }

  #launch(batch: ClaimedBatch): void {
    const running: Promise<void> = this.#deliver(batch)
      .catch((e: unknown) => this.#options.onError?.(e))
      .finally(() => {
        this.#inFlight.delete(running);
        this.#woken = true;
        this.#wake?.();
      });
    this.#inFlight.add(running);
  }

  async #deliver(batch: ClaimedBatch): Promise<void> {
    const { database } = this.#options;
    const attempt =
      batch.expired === undefined
        ? await deliverBatch(batch, this.#settings, this.#stopping.signal)
        : { response: { kind: 'failed' as const, error: batch.expired }, durationUs: 0n };
    if (this.#stopping.signal.aborted && attempt.response.kind === 'failed') {
      await withTx(database, (tx) => releaseLease(tx, batch));
      return;
    }
    const random = (this.#options.random ?? Math.random)();
    await withTx(database, (tx) =>
      recordAttempt(tx, batch, { ...attempt, random, settings: this.#settings }),
    );
  }

  /** Until an append on a watched stream, a delivery finishing, the next due retry, or stop. */
  async #sleep(watch: Watch): Promise<void> {
    const waitMs = Math.min(this.#intervalMs, watch.nextDueMs ?? this.#intervalMs);
    const done = new AbortController();
    const either = AbortSignal.any([done.signal, this.#stopping.signal]);
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        new Promise<void>((resolve) => {
          this.#wake = resolve;
          timer = setTimeout(resolve, waitMs);
          if (either.aborted || this.#woken) {
            resolve();
          }
          either.addEventListener('abort', () => resolve(), { once: true });
        }),
        ...[...watch.streamIds.map(streamWakeUpKey), WEBHOOKS_CHANGED_WAKE_UP].map((key) =>
          this.#options.database.wakeUps.wait(key, waitMs, { signal: either }),
        ),
      ]);
    } finally {
      this.#wake = undefined;
      this.#woken = false;
      clearTimeout(timer);
      done.abort();
    }
  }
}
