/**
 * Webhook delivery (docs/design/orbit.md "Webhooks"): claim → POST → record, three steps so that
 * no transaction is open while a receiver answers.
 *
 * 1. `claimDeliveries` (one transaction) takes due ACTIVE webhook subscriptions with pending
 *    events, `FOR UPDATE SKIP LOCKED`, and writes a lease (`lease_owner` = a token unique to this
 *    claim, `lease_until`). Only an unleased or lease-expired row is claimable, so across nodes
 *    at most one batch per subscription is in flight. It reads the batch in the same
 *    transaction: up to `batchSize` frozen events after `acked_seq`.
 * 2. `deliverBatch` POSTs `{subscription_id, events}` signed with every secret still valid.
 * 3. `recordAttempt` (one transaction) writes the `orbit_deliveries` row and, while the lease is
 *    still ours: on 2xx raises `acked_seq` (never backwards) and clears the failure run; else
 *    counts the failure, sets `next_attempt_at` by capped exponential backoff and marks the
 *    subscription FAILING past the threshold; then releases the lease.
 *
 * At least once: a response lost after the receiver took the batch leaves `acked_seq` where it
 * was, and the next claim sends the same events again (from the same first seq).
 */
import { randomUUID } from 'node:crypto';
import { readEvents } from './read-events.js';
import { retryDelayMs, shouldMarkFailing } from './webhook-backoff.js';
import { postWebhook } from './webhook-request.js';
import type { WebhookResponse } from './webhook-request.js';
import { SIGNATURE_HEADER, TIMESTAMP_HEADER, signatureHeader } from './webhook-signature.js';
import type { WebhookDeliverySettings } from './webhook-settings.js';
import { pruneDeliveries } from './webhook-control.js';
import { isWeaveError } from '../errors.js';
import type { DbInt, Micros } from '../store/values.js';
import { toId, toInt, toMicros, toMicrosOrNull } from '../store/values.js';
import type { Tx } from '../store/with-tx.js';

/**
 * The delivery log is trimmed to `keepDeliveries` per subscription when the subscription's new
 * revision (one more for every attempt it records) is a multiple of this: one short range delete
 * per 64 of its attempts, so it never keeps more than `keepDeliveries` + 63 rows.
 */
const PRUNE_EVERY = 64n;

/** The `last_error` and `orbit_deliveries.error` columns' width. */
const MAX_ERROR_LENGTH = 512;

export interface ClaimedBatch {
  readonly subscriptionId: string;
  readonly namespaceId: string;
  readonly streamId: string;
  /** The lease token: `recordAttempt` changes the subscription only while it still holds it. */
  readonly leaseOwner: string;
  readonly url: string;
  /** Current secret first, then the previous one during its grace period. */
  readonly secrets: readonly string[];
  readonly firstSeq: bigint;
  readonly lastSeq: bigint;
  /** Frozen event JSON texts, in seq order; empty when the cursor expired. */
  readonly events: readonly string[];
  /** Set when retention removed events the subscription had not received. */
  readonly expired?: string;
}

/**
 * Claims up to `limit` due subscriptions for `nodeId` (see the module comment, step 1). Candidates
 * are found without locks (the join reads the stream row, which must never be locked here: it is
 * the appenders' hot row), then locked by id with SKIP LOCKED and re-checked under the lock.
 */
export async function claimDeliveries(
  tx: Tx,
  options: {
    readonly nodeId: string;
    readonly limit: number;
    readonly settings: WebhookDeliverySettings;
  },
): Promise<ClaimedBatch[]> {
  const candidates = await dueCandidates(tx, options.limit);
  const rows = candidates.length === 0 ? [] : await lockClaimable(tx, candidates);
  if (rows.length === 0) {
    return [];
  }
  const leaseOwner = `${options.nodeId}/${randomUUID()}`;
  await tx.db
    .updateTable('orbit_subscriptions')
    .set({
      lease_owner: leaseOwner,
      lease_until: tx.now + BigInt(options.settings.leaseMs) * 1000n,
    })
    .where(
      'id',
      'in',
      rows.map((r) => r.id),
    )
    .execute();
  const batches: ClaimedBatch[] = [];
  for (const row of rows) {
    const previousValid =
      row.previous_secret !== null &&
      row.previous_secret_until !== null &&
      toMicros(row.previous_secret_until) > tx.now;
    batches.push(
      await readBatch(tx, {
        subscriptionId: toId(row.id),
        namespaceId: toId(row.namespace_id),
        streamId: toId(row.stream_id),
        leaseOwner,
        url: row.webhook_url ?? '',
        secrets: [row.secret ?? '', ...(previousValid ? [row.previous_secret ?? ''] : [])],
        ackedSeq: toMicros(row.acked_seq),
        settings: options.settings,
      }),
    );
  }
  return batches;
}

/** Due, unleased ACTIVE webhook subscriptions with events after their cursor; no locks. */
async function dueCandidates(tx: Tx, limit: number): Promise<string[]> {
  const rows = await tx.db
    .selectFrom('orbit_subscriptions as u')
    .innerJoin('orbit_streams as s', 's.id', 'u.stream_id')
    .select('u.id')
    .where('u.state', '=', 'ACTIVE')
    .where('u.webhook_url', 'is not', null)
    .where('u.next_attempt_at', '<=', tx.now)
    .where((eb) => eb.or([eb('u.lease_until', 'is', null), eb('u.lease_until', '<', tx.now)]))
    .where((eb) => eb('u.acked_seq', '<', eb('s.next_seq', '-', 1)))
    .orderBy('u.next_attempt_at')
    .limit(limit)
    .execute();
  return rows.map((r) => toId(r.id));
}

/**
 * The candidates still claimable, locked: SKIP LOCKED passes over a row another node is
 * claiming right now, and the conditions are re-read under the lock (a locking read sees the
 * latest committed row, not the transaction's snapshot).
 */
function lockClaimable(tx: Tx, ids: readonly string[]) {
  return tx.dialect
    .forUpdateSkipLocked(
      tx.db
        .selectFrom('orbit_subscriptions')
        .selectAll()
        .where('id', 'in', [...ids])
        .where('state', '=', 'ACTIVE')
        .where('next_attempt_at', '<=', tx.now)
        .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', tx.now)])),
    )
    .execute();
}

type BatchHead = Omit<ClaimedBatch, 'firstSeq' | 'lastSeq' | 'events' | 'expired'> & {
  readonly ackedSeq: bigint;
  readonly settings: WebhookDeliverySettings;
};

/** The longest prefix within `maxBytes` (UTF-8), and never less than one event. */
function withinBytes(events: readonly string[], maxBytes: number): readonly string[] {
  let bytes = 0;
  for (const [i, text] of events.entries()) {
    bytes += Buffer.byteLength(text, 'utf8') + 1;
    if (bytes > maxBytes && i > 0) {
      return events.slice(0, i);
    }
  }
  return events;
}

async function readBatch(tx: Tx, head: BatchHead): Promise<ClaimedBatch> {
  const { ackedSeq, settings, ...batch } = head;
  const stream = await tx.db
    .selectFrom('orbit_streams')
    .select(['id', 'name', 'earliest_seq', 'next_seq'])
    .where('id', '=', head.streamId)
    .executeTakeFirstOrThrow();
  const position = {
    id: toId(stream.id),
    name: stream.name,
    earliestSeq: toMicros(stream.earliest_seq),
    nextSeq: toMicros(stream.next_seq),
  };
  try {
    const page = await readEvents(tx, position, ackedSeq, settings.batchSize);
    const events = withinBytes(page.events, settings.maxBatchBytes);
    return {
      ...batch,
      firstSeq: ackedSeq + 1n,
      lastSeq: ackedSeq + BigInt(events.length),
      events,
    };
  } catch (e: unknown) {
    if (!isWeaveError(e) || e.code !== 'cursor_expired') {
      throw e;
    }
    const given = e.details.earliest_seq;
    const earliest = typeof given === 'string' ? BigInt(given) : position.earliestSeq;
    return {
      ...batch,
      firstSeq: ackedSeq + 1n,
      lastSeq: earliest - 1n,
      events: [],
      expired: `cursor_expired: events ${ackedSeq + 1n} to ${earliest - 1n} were removed by retention before delivery`,
    };
  }
}

/** The request body: `{subscription_id, events}` with each event exactly as stored. */
export function webhookBody(batch: Pick<ClaimedBatch, 'subscriptionId' | 'events'>): string {
  return `{"subscription_id":"${batch.subscriptionId}","events":[${batch.events.join(',')}]}`;
}

export interface AttemptResult {
  readonly response: WebhookResponse;
  readonly durationUs: bigint;
}

/** Step 2: the POST. The timestamp is this node's clock at sending, the moment it attests. */
export async function deliverBatch(
  batch: ClaimedBatch,
  settings: WebhookDeliverySettings,
  signal?: AbortSignal,
): Promise<AttemptResult> {
  const started = process.hrtime.bigint();
  const body = webhookBody(batch);
  const timestamp = Math.floor(Date.now() / 1000);
  const response = await postWebhook({
    url: batch.url,
    body,
    headers: {
      [TIMESTAMP_HEADER]: String(timestamp),
      [SIGNATURE_HEADER]: signatureHeader(batch.secrets, timestamp, body),
    },
    timeoutMs: settings.timeoutMs,
    policy: settings.policy,
    ...(signal === undefined ? {} : { signal }),
    ...(settings.resolver === undefined ? {} : { resolver: settings.resolver }),
  });
  return { response, durationUs: (process.hrtime.bigint() - started) / 1000n };
}

function describeFailure(response: WebhookResponse): string {
  const text = response.kind === 'answered' ? `HTTP ${response.status}` : response.error;
  return text.length > MAX_ERROR_LENGTH ? `${text.slice(0, MAX_ERROR_LENGTH - 1)}…` : text;
}

function isSuccess(response: WebhookResponse): boolean {
  return response.kind === 'answered' && response.status >= 200 && response.status < 300;
}

/** Step 3 (see the module comment). `random` is the jitter draw in [0, 1). */
export async function recordAttempt(
  tx: Tx,
  batch: ClaimedBatch,
  attempt: AttemptResult & { readonly random: number; readonly settings: WebhookDeliverySettings },
): Promise<void> {
  const row = await tx.dialect
    .forUpdate(
      tx.db
        .selectFrom('orbit_subscriptions')
        .select(['acked_seq', 'consecutive_failures', 'failing_since', 'lease_owner', 'revision'])
        .where('id', '=', batch.subscriptionId),
    )
    .executeTakeFirst();
  if (row === undefined) {
    return; // deleted while the batch was in flight
  }
  const delivered = batch.expired === undefined && isSuccess(attempt.response);
  const error = batch.expired ?? (delivered ? null : describeFailure(attempt.response));
  await insertDelivery(tx, batch, { ...attempt, delivered, error });
  const revision = toMicros(row.revision) + 1n;
  if (revision % PRUNE_EVERY === 0n) {
    await pruneDeliveries(tx, batch.subscriptionId, attempt.settings.keepDeliveries);
  }
  const ours = row.lease_owner === batch.leaseOwner;
  const acked = toMicros(row.acked_seq);
  const update = tx.db.updateTable('orbit_subscriptions').where('id', '=', batch.subscriptionId);
  if (delivered) {
    // Even a lease lost to a stall may ack: the receiver has the events; acks never go back.
    await update
      .set({
        acked_seq: batch.lastSeq > acked ? batch.lastSeq : acked,
        revision,
        updated_at: tx.now,
        ...(ours ? successReset(tx.now) : {}),
      })
      .execute();
    return;
  }
  if (!ours) {
    return;
  }
  await update
    .set({
      revision,
      updated_at: tx.now,
      ...failureChange(tx.now, row, {
        error: error ?? '',
        ...attempt,
        expired: batch.expired !== undefined,
      }),
    })
    .execute();
}

async function insertDelivery(
  tx: Tx,
  batch: ClaimedBatch,
  attempt: AttemptResult & { readonly delivered: boolean; readonly error: string | null },
): Promise<void> {
  const { response } = attempt;
  await tx.db
    .insertInto('orbit_deliveries')
    .values({
      namespace_id: batch.namespaceId,
      subscription_id: batch.subscriptionId,
      first_seq: batch.firstSeq,
      last_seq: batch.lastSeq,
      outcome: attempt.delivered ? 'DELIVERED' : 'FAILED',
      http_status:
        response.kind === 'answered' && batch.expired === undefined ? response.status : null,
      error: attempt.error,
      duration_us: attempt.durationUs,
      at: tx.now - attempt.durationUs,
    })
    .execute();
}

function successReset(now: Micros) {
  return {
    consecutive_failures: 0,
    failing_since: null,
    last_error: null,
    next_attempt_at: now,
    lease_owner: null,
    lease_until: null,
  };
}

function failureChange(
  now: Micros,
  row: { readonly consecutive_failures: DbInt; readonly failing_since: DbInt | null },
  attempt: {
    error: string;
    random: number;
    settings: WebhookDeliverySettings;
    expired: boolean;
    durationUs: bigint;
  },
) {
  const failures = toInt(row.consecutive_failures) + 1;
  const since = toMicrosOrNull(row.failing_since) ?? now - attempt.durationUs;
  const delayUs = BigInt(retryDelayMs(failures, attempt.settings, attempt.random)) * 1000n;
  // A cursor behind retention cannot heal by retrying: FAILING at once.
  const failing = attempt.expired || shouldMarkFailing(failures, since, now, attempt.settings);
  return {
    consecutive_failures: failures,
    failing_since: since,
    last_error: attempt.error,
    next_attempt_at: now + delayUs,
    lease_owner: null,
    lease_until: null,
    ...(failing ? { state: 'FAILING' } : {}),
  };
}

/** Gives a claim back without an attempt (shutdown): the next claim sends the same batch. */
export async function releaseLease(tx: Tx, batch: ClaimedBatch): Promise<void> {
  await tx.db
    .updateTable('orbit_subscriptions')
    .set({ lease_owner: null, lease_until: null })
    .where('id', '=', batch.subscriptionId)
    .where('lease_owner', '=', batch.leaseOwner)
    .execute();
}
