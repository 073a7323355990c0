/**
 * Subscriptions (对外订阅): a server-side cursor on a stream. A pull subscription is read from
 * its cursor and acked by the client; a webhook subscription is pushed by the delivery loop
 * (webhook-delivery.ts), which acks after each 2xx. Acks never move backwards.
 */
import { randomBytes } from 'node:crypto';
import type { Selectable } from 'kysely';
import { checkName } from '../auth/namespaces.js';
import { WeaveError, alreadyExists, notFound } from '../errors.js';
import type { OrbitSubscriptionsTable } from '../store/schema.js';
import type { Micros } from '../store/values.js';
import { toId, toInt, toMicros, toMicrosOrNull } from '../store/values.js';
import { insertUnique } from '../store/unique-insert.js';
import type { Tx } from '../store/with-tx.js';
import type { Stream } from './streams.js';
import type { Page } from '../store/pages.js';
import { readPage } from '../store/pages.js';

/**
 * Wakes this node's delivery loop when a webhook subscription changes (resume): a new or resumed
 * subscription may sit on a stream the loop is not watching yet.
 */
export const WEBHOOKS_CHANGED_WAKE_UP = 'orbit.webhooks';

export type SubscriptionState = 'ACTIVE' | 'FAILING';

export interface Subscription {
  readonly id: string;
  readonly namespaceId: string;
  readonly streamId: string;
  readonly streamName: string;
  readonly name: string;
  readonly ackedSeq: bigint;
  readonly webhookUrl: string | null;
  readonly state: SubscriptionState;
  readonly consecutiveFailures: number;
  readonly nextAttemptAt: Micros;
  readonly failingSince: Micros | null;
  readonly lastError: string | null;
  readonly previousSecretUntil: Micros | null;
  readonly revision: bigint;
  readonly createdAt: Micros;
  readonly updatedAt: Micros;
}

type SubscriptionRow = Selectable<OrbitSubscriptionsTable> & { stream_name: string };

function toSubscription(row: SubscriptionRow): Subscription {
  return {
    id: toId(row.id),
    namespaceId: toId(row.namespace_id),
    streamId: toId(row.stream_id),
    streamName: row.stream_name,
    name: row.name,
    ackedSeq: toMicros(row.acked_seq),
    webhookUrl: row.webhook_url,
    state: row.state as SubscriptionState,
    consecutiveFailures: toInt(row.consecutive_failures),
    nextAttemptAt: toMicros(row.next_attempt_at),
    failingSince: toMicrosOrNull(row.failing_since),
    lastError: row.last_error,
    previousSecretUntil: toMicrosOrNull(row.previous_secret_until),
    revision: toMicros(row.revision),
    createdAt: toMicros(row.created_at),
    updatedAt: toMicros(row.updated_at),
  };
}

/** A new signing secret: shown once, at creation or rotation. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

export interface SubscriptionInput {
  readonly name: string;
  /** Where the first read starts: the earliest retained event, or after the current head. */
  readonly start: 'earliest' | 'latest';
  readonly webhookUrl: string | null;
}

export interface CreatedSubscription {
  readonly subscription: Subscription;
  /** Only for webhook subscriptions. */
  readonly secret: string | null;
}

export async function createSubscription(
  tx: Tx,
  stream: Stream,
  input: SubscriptionInput,
): Promise<CreatedSubscription> {
  checkName('$.name', input.name);
  const existing = await tx.db
    .selectFrom('orbit_subscriptions')
    .select('id')
    .where('stream_id', '=', stream.id)
    .where('namespace_id', '=', stream.namespaceId)
    .where('name', '=', input.name)
    .executeTakeFirst();
  const taken = `stream ${stream.name} already has a subscription named ${input.name}`;
  if (existing !== undefined) {
    throw alreadyExists(taken);
  }
  // The stream row lock orders this read of the head against concurrent appends.
  const head = await tx.dialect
    .forUpdate(
      tx.db
        .selectFrom('orbit_streams')
        .select(['next_seq', 'earliest_seq'])
        .where('id', '=', stream.id)
        .where('namespace_id', '=', stream.namespaceId),
    )
    .executeTakeFirstOrThrow();
  const ackedSeq =
    input.start === 'latest' ? toMicros(head.next_seq) - 1n : toMicros(head.earliest_seq) - 1n;
  const secret = input.webhookUrl === null ? null : newWebhookSecret();
  const insert = tx.db.insertInto('orbit_subscriptions').values({
    namespace_id: stream.namespaceId,
    stream_id: stream.id,
    name: input.name,
    acked_seq: ackedSeq,
    webhook_url: input.webhookUrl,
    secret,
    next_attempt_at: tx.now,
    created_at: tx.now,
    updated_at: tx.now,
  });
  const inserted = await insertUnique(tx, taken, () => insert.executeTakeFirstOrThrow());
  const subscription = await getSubscription(tx, stream.namespaceId, toId(inserted.insertId ?? 0n));
  if (secret !== null) {
    // A new webhook subscription: this node's delivery loop starts at once, not at its re-check.
    tx.afterCommit(() => tx.wakeUps.notify(WEBHOOKS_CHANGED_WAKE_UP));
  }
  return { subscription, secret };
}

function selectSubscriptions(tx: Tx, namespaceId: string) {
  return tx.db
    .selectFrom('orbit_subscriptions as u')
    .innerJoin('orbit_streams as s', 's.id', 'u.stream_id')
    .selectAll('u')
    .select('s.name as stream_name')
    .where('u.namespace_id', '=', namespaceId)
    .where('s.namespace_id', '=', namespaceId);
}

const ID_PATTERN = /^[1-9][0-9]{0,18}$/;

export async function getSubscription(
  tx: Tx,
  namespaceId: string,
  id: string,
  options: { readonly lock?: boolean } = {},
): Promise<Subscription> {
  if (!ID_PATTERN.test(id)) {
    throw notFound(`subscription ${id}`, { path: 'subscription_id' });
  }
  if (options.lock === true) {
    await tx.dialect
      .forUpdate(
        tx.db
          .selectFrom('orbit_subscriptions')
          .select('id')
          .where('id', '=', id)
          .where('namespace_id', '=', namespaceId),
      )
      .executeTakeFirst();
  }
  const row = await selectSubscriptions(tx, namespaceId).where('u.id', '=', id).executeTakeFirst();
  if (row === undefined) {
    throw notFound(`subscription ${id}`, { path: 'subscription_id' });
  }
  return toSubscription(row);
}

export async function listSubscriptions(
  tx: Tx,
  stream: Stream,
  page: { readonly afterId?: string | undefined; readonly size: number },
): Promise<Page<Subscription>> {
  const query = selectSubscriptions(tx, stream.namespaceId).where('u.stream_id', '=', stream.id);
  return readPage(query, page, { column: 'u.id', toItem: toSubscription, idOf: (s) => s.id });
}

/**
 * Move the cursor to `seq` (never backwards: an older ack changes nothing). Acking past the
 * head is refused: the client cannot have seen those events.
 */
export async function ackSubscription(
  tx: Tx,
  namespaceId: string,
  id: string,
  seq: bigint,
): Promise<Subscription> {
  const subscription = await getSubscription(tx, namespaceId, id, { lock: true });
  if (subscription.webhookUrl !== null) {
    throw new WeaveError(
      'invalid_state',
      `subscription ${id} is a webhook subscription: the server acks its deliveries`,
      { details: { subscription_id: id } },
    );
  }
  const stream = await tx.db
    .selectFrom('orbit_streams')
    .select('next_seq')
    .where('id', '=', subscription.streamId)
    .where('namespace_id', '=', namespaceId)
    .executeTakeFirstOrThrow();
  const head = toMicros(stream.next_seq) - 1n;
  if (seq > head) {
    throw new WeaveError('invalid_argument', `$.seq ${seq} is beyond the head of the stream`, {
      details: { path: '$.seq', head_seq: head.toString() },
    });
  }
  if (seq <= subscription.ackedSeq) {
    return subscription;
  }
  await tx.db
    .updateTable('orbit_subscriptions')
    .set({ acked_seq: seq, revision: subscription.revision + 1n, updated_at: tx.now })
    .where('id', '=', id)
    .where('namespace_id', '=', namespaceId)
    .execute();
  return {
    ...subscription,
    ackedSeq: seq,
    revision: subscription.revision + 1n,
    updatedAt: tx.now,
  };
}

export async function deleteSubscription(tx: Tx, namespaceId: string, id: string): Promise<void> {
  await getSubscription(tx, namespaceId, id, { lock: true });
  await tx.db
    .deleteFrom('orbit_subscriptions')
    .where('id', '=', id)
    .where('namespace_id', '=', namespaceId)
    .execute();
  await tx.db.deleteFrom('orbit_deliveries').where('subscription_id', '=', id).execute();
}
