/**
 * Webhook subscriptions (API.md "Orbit"): resume one that is FAILING (or backing off), rotate
 * its signing secret (the new one is shown once; the old one keeps signing for a grace period),
 * and list its delivery attempts, newest first. Changing a webhook takes `admin` (it makes the
 * server call out); reading the attempts takes `results:read`.
 */
import type { JsonValue } from '@weave/json';
import { formatInstant } from '../../store/values.js';
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
import { pageToken, readPage } from '../paging.js';
import type { Route } from '../route.js';

/** Longest grace period a rotation may give the previous secret. */
const MAX_ROTATION_GRACE_US = 30n * 86_400_000_000n;

function deliveryView(delivery: Delivery) {
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

export const webhookRoutes: Route[] = [
  {
    method: 'POST',
    path: '/subscriptions/:subscription/resume',
    scope: 'admin',
    operation: 'subscription.resume',
    summary:
      'Resume a webhook subscription: ACTIVE, failure count cleared, next delivery now ' +
      '(from its cursor: nothing is skipped)',
    async handle(ctx) {
      if (ctx.body !== undefined) {
        rejectUnknown(expectObject(ctx.body), []);
      }
      const namespaceId = ctx.principal.namespaceId;
      const sub = await resumeSubscription(ctx.tx, namespaceId, ctx.params.subscription ?? '');
      await auditChange(ctx, 'subscription.resume', { type: 'subscription', id: sub.id });
      return { status: 200, body: { subscription: subscriptionView(sub) } };
    },
  },
  {
    method: 'POST',
    path: '/subscriptions/:subscription/rotate-secret',
    scope: 'admin',
    operation: 'subscription.rotate_secret',
    summary:
      'Give a webhook subscription a new signing secret (shown once); the previous one keeps ' +
      'signing, second in Weave-Signature, for grace_period (default PT24H; PT0S ends it now)',
    requestSchema: {
      type: 'object',
      properties: { grace_period: { type: 'string', example: 'PT24H' } },
    },
    async handle(ctx) {
      const graceUs = readGrace(ctx.body);
      const id = ctx.params.subscription ?? '';
      const rotated = await rotateWebhookSecret(ctx.tx, ctx.principal.namespaceId, { id, graceUs });
      await auditChange(ctx, 'subscription.rotate_secret', { type: 'subscription', id });
      const view = subscriptionView(rotated.subscription);
      // A replay must not reveal the secret again: the receipt keeps the body without it.
      return {
        status: 200,
        body: { subscription: view, secret: rotated.secret },
        replayBody: { subscription: view },
      };
    },
  },
  {
    method: 'GET',
    path: '/subscriptions/:subscription/deliveries',
    scope: 'results:read',
    summary: 'Webhook delivery attempts of a subscription, newest first',
    queryParams: ['page_size', 'page_token'],
    async handle(ctx) {
      const page = readPage(ctx.query);
      const result = await listDeliveries(ctx.tx, ctx.principal.namespaceId, {
        id: ctx.params.subscription ?? '',
        beforeId: page.afterId,
        size: page.size,
      });
      return {
        status: 200,
        body: {
          items: result.items.map(deliveryView),
          next_page_token: pageToken(result.nextBeforeId),
        },
      };
    },
  },
];
