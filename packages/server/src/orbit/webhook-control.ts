/**
 * What an operator does to a webhook subscription (API.md "Orbit"): resume it, rotate its
 * secret, and read its delivery attempts, newest first.
 */
import type { Selectable } from 'kysely';
import { WeaveError } from '../errors.js';
import { readPage } from '../store/pages.js';
import type { OrbitDeliveriesTable } from '../store/schema.js';
import type { Micros } from '../store/values.js';
import { toId, toInt, toMicros } from '../store/values.js';
import type { Tx } from '../store/with-tx.js';
import type { Subscription } from './subscriptions.js';
import { WEBHOOKS_CHANGED_WAKE_UP, getSubscription, newWebhookSecret } from './subscriptions.js';

export { WEBHOOKS_CHANGED_WAKE_UP } from './subscriptions.js';

/** How long the previous secret keeps signing after a rotation, by default. */
export const DEFAULT_ROTATION_GRACE_US: Micros = 24n * 3_600_000_000n;

async function lockWebhookSubscription(tx: Tx, namespaceId: string, id: string) {
  const subscription = await getSubscription(tx, namespaceId, id, { lock: true });
  if (subscription.webhookUrl === null) {
    throw new WeaveError(
      'invalid_state',
      `subscription ${id} is a pull subscription: it has no webhook to resume or sign`,
      { details: { subscription_id: id } },
    );
  }
  return subscription;
}

/**
 * ACTIVE again, with a clean failure run and due now; the loop is woken on this node. Resuming
 * an ACTIVE subscription that is backing off retries it now. A delivery in flight keeps its
 * lease: it finishes (and is recorded) first. This node's loop is woken after the commit.
 */
export async function resumeSubscription(
  tx: Tx,
  namespaceId: string,
  id: string,
): Promise<Subscription> {
  const subscription = await lockWebhookSubscription(tx, namespaceId, id);
  await tx.db
    .updateTable('orbit_subscriptions')
    .set({
      state: 'ACTIVE',
      consecutive_failures: 0,
      failing_since: null,
      last_error: null,
      next_attempt_at: tx.now,
      revision: subscription.revision + 1n,
      updated_at: tx.now,
    })
    .where('id', '=', id)
    .execute();
  tx.afterCommit(() => tx.wakeUps.notify(WEBHOOKS_CHANGED_WAKE_UP));
  return getSubscription(tx, namespaceId, id);
}

export interface RotatedSecret {
  readonly subscription: Subscription;
  /** The new secret, shown once. */
  readonly secret: string;
}

/**
 * A new secret signs from now on; the current one becomes the previous secret and keeps signing
 * (second in the header) for `graceUs`. A rotation within a grace period drops the oldest.
 */
export async function rotateWebhookSecret(
  tx: Tx,
  namespaceId: string,
  input: { readonly id: string; readonly graceUs: Micros },
): Promise<RotatedSecret> {
  const subscription = await lockWebhookSubscription(tx, namespaceId, input.id);
  const current = await tx.db
    .selectFrom('orbit_subscriptions')
    .select('secret')
    .where('id', '=', input.id)
    .executeTakeFirstOrThrow();
  const secret = newWebhookSecret();
  await tx.db
    .updateTable('orbit_subscriptions')
    .set({
      secret,
      previous_secret: input.graceUs > 0n ? current.secret : null,
      previous_secret_until: input.graceUs > 0n ? tx.now + input.graceUs : null,
      revision: subscription.revision + 1n,
      updated_at: tx.now,
    })
    .where('id', '=', input.id)
    .execute();
  return { subscription: await getSubscription(tx, namespaceId, input.id), secret };
}

export type DeliveryOutcome = 'DELIVERED' | 'FAILED';

export interface Delivery {
  readonly id: string;
  readonly subscriptionId: string;
  readonly firstSeq: bigint;
  readonly lastSeq: bigint;
  readonly outcome: DeliveryOutcome;
  readonly httpStatus: number | null;
  readonly error: string | null;
  readonly durationUs: Micros;
  readonly at: Micros;
}

function toDelivery(row: Selectable<OrbitDeliveriesTable>): Delivery {
  return {
    id: toId(row.id),
    subscriptionId: toId(row.subscription_id),
    firstSeq: toMicros(row.first_seq),
    lastSeq: toMicros(row.last_seq),
    outcome: row.outcome as DeliveryOutcome,
    httpStatus: row.http_status === null ? null : toInt(row.http_status),
    error: row.error,
    durationUs: toMicros(row.duration_us),
    at: toMicros(row.at),
  };
}

/** Newest first; `beforeId` is the last id of the previous page. */
export async function listDeliveries(
  tx: Tx,
  namespaceId: string,
  input: { readonly id: string; readonly beforeId: string | undefined; readonly size: number },
): Promise<{ items: Delivery[]; nextBeforeId: string | undefined }> {
  const subscription = await getSubscription(tx, namespaceId, input.id);
  const query = tx.db
    .selectFrom('orbit_deliveries')
    .selectAll()
    .where('subscription_id', '=', subscription.id)
    .where('namespace_id', '=', namespaceId);
  const page = await readPage(
    query,
    { afterId: input.beforeId, size: input.size },
    { column: 'id', toItem: toDelivery, idOf: (d) => d.id, descending: true },
  );
  return { items: page.items, nextBeforeId: page.nextAfterId };
}

/**
 * Keeps the newest `keep` attempts of a subscription: the log is for looking at recent
 * trouble, not an archive. Uses the (subscription_id, id) index: one short range read, one
 * range delete.
 */
export async function pruneDeliveries(
  tx: Tx,
  subscriptionId: string,
  keep: number,
): Promise<number> {
  const cutoff = await tx.db
    .selectFrom('orbit_deliveries')
    .select('id')
    .where('subscription_id', '=', subscriptionId)
    .orderBy('id', 'desc')
    .limit(1)
    .offset(keep)
    .executeTakeFirst();
  if (cutoff === undefined) {
    return 0;
  }
  const deleted = await tx.db
    .deleteFrom('orbit_deliveries')
    .where('subscription_id', '=', subscriptionId)
    .where('id', '<=', cutoff.id)
    .executeTakeFirst();
  return Number(deleted.numDeletedRows);
}
