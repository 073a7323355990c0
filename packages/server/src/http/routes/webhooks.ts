/**
 * Webhook subscriptions (API.md "Orbit"): resume one that is FAILING (or backing off), rotate
 * its signing secret (the new one is shown once; the old one keeps signing for a grace period),
 * and list its delivery attempts, newest first. Changing a webhook takes `admin` (it makes the
 * server call out); reading the attempts takes `results:read`.
 */
import type { JsonValue } from '@weave/json';
import { formatInstant, orbit } from '@weave/sdk/protocol';
import type { Delivery } from '../../orbit/webhook-control.js';
import {
  DEFAULT_ROTATION_GRACE_US,
  listDeliveries,
  resumeSubscription,
  rotateWebhookSecret,
} from '../../orbit/webhook-control.js';
import { auditChange } from '../audit-change.js';
import { formatDuration, readDuration } from '../durations.js';
import { expectObject, rejectUnknown } from '../fields.js';
import { subscriptionView } from '../orbit-views.js';
import { pageBody, readPage } from '../paging.js';
import { route } from '../route.js';

/** Longest grace period a rotation may give the previous secret. */
const MAX_ROTATION_GRACE_US = 30n * 86_400_000_000n;

function deliveryView(delivery: Delivery): orbit.Delivery {
  return {
    id: delivery.id,
    subscription_id: delivery.subscriptionId,
    first_seq: delivery.firstSeq.toString(),
    last_seq: delivery.lastSeq.toString(),
    outcome: delivery.outcome,
    http_status: delivery.httpStatus,
    error: delivery.error,
    duration: formatDuration(delivery.durationUs),
    at: formatInstant(delivery.at),
  };
}

/** `{grace_period?: "PT24H"}`; an absent body is the default grace. */
function readGrace(body: JsonValue | undefined): bigint {
  if (body === undefined) {
    return DEFAULT_ROTATION_GRACE_US;
  }
  const obj = expectObject(body);
  rejectUnknown(obj, ['grace_period']);
  return (
    readDuration(obj, 'grace_period', { min: 0n, max: MAX_ROTATION_GRACE_US }) ??
    DEFAULT_ROTATION_GRACE_US
  );
}

export const webhookRoutes = [
  route(orbit.resumeSubscription, {
    async handle(ctx) {
      const namespaceId = ctx.principal.namespaceId;
      const sub = await resumeSubscription(ctx.tx, namespaceId, ctx.params.subscription ?? '');
      await auditChange(ctx, 'subscription.resume', { type: 'subscription', id: sub.id });
      return { body: { subscription: subscriptionView(sub) } };
    },
  }),
  route(orbit.rotateSecret, {
    parse: readGrace,
    async handle(ctx, graceUs) {
      const id = ctx.params.subscription ?? '';
      const rotated = await rotateWebhookSecret(ctx.tx, ctx.principal.namespaceId, { id, graceUs });
      await auditChange(ctx, 'subscription.rotate_secret', { type: 'subscription', id });
      const view = subscriptionView(rotated.subscription);
      // A replay must not reveal the secret again: the receipt keeps the body without it.
      return {
        body: { subscription: view, secret: rotated.secret },
        replayBody: { subscription: view },
      };
    },
  }),
  route(orbit.listDeliveries, {
    async handle(ctx) {
      const page = readPage(ctx.query);
      const result = await listDeliveries(ctx.tx, ctx.principal.namespaceId, {
        id: ctx.params.subscription ?? '',
        beforeId: page.afterId,
        size: page.size,
      });
      return { body: pageBody(result.items.map(deliveryView), result.nextBeforeId) };
    },
  }),
];
