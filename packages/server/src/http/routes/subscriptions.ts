/**
 * Subscriptions (API.md "Orbit"): a server-side cursor on a stream. Read from the cursor
 * (long-poll), ack up to a seq (never backwards), delete. Webhook routes (resume, rotate-secret,
 * deliveries) are in webhooks.ts.
 */
import { requireScope } from '../../auth/principal.js';
import { getStreamById } from '../../orbit/streams.js';
import { ackSubscription, deleteSubscription, getSubscription } from '../../orbit/subscriptions.js';
import { auditChange } from '../audit-change.js';
import { expectObject, rejectUnknown, requireString } from '../fields.js';
import { answerEventRead } from '../event-reads.js';
import { subscriptionView } from '../orbit-views.js';
import type { Route } from '../route.js';
import { invalidArgument } from '../../errors.js';

const SEQ_PATTERN = /^[0-9]{1,19}$/;

export const subscriptionRoutes: Route[] = [
  {
    method: 'GET',
    path: '/subscriptions/:subscription',
    scope: 'results:read',
    summary: 'Get a subscription: cursor, and for webhooks the delivery state',
    async handle(ctx) {
      const sub = await getSubscription(
        ctx.tx,
        ctx.principal.namespaceId,
        ctx.params.subscription ?? '',
      );
      return { status: 200, body: { subscription: subscriptionView(sub) } };
    },
  },
  {
    method: 'GET',
    path: '/subscriptions/:subscription/events',
    scope: 'results:read',
    summary:
      'Events after the subscription cursor, in order; waits up to wait_ms for the first one. ' +
      '410 cursor_expired when the cursor is behind retention.',
    queryParams: ['limit', 'wait_ms'],
    session(ctx) {
      const id = ctx.params.subscription ?? '';
      return answerEventRead(ctx, async (tx) => {
        const sub = await getSubscription(tx, ctx.principal.namespaceId, id);
        const stream = await getStreamById(tx, ctx.principal.namespaceId, sub.streamId);
        return { stream, after: sub.ackedSeq };
      });
    },
  },
  {
    method: 'POST',
    path: '/subscriptions/:subscription/ack',
    scope: 'results:read',
    operation: 'subscription.ack',
    summary: 'Move the cursor to seq; an older seq changes nothing (acks never move backwards)',
    requestSchema: {
      type: 'object',
      required: ['seq'],
      properties: { seq: { type: 'string', pattern: SEQ_PATTERN.source } },
    },
    async handle(ctx) {
      const body = expectObject(ctx.body);
      rejectUnknown(body, ['seq']);
      const seqText = requireString(body, 'seq');
      if (!SEQ_PATTERN.test(seqText)) {
        throw invalidArgument('$.seq', 'must be a sequence number as a decimal string');
      }
      const sub = await ackSubscription(
        ctx.tx,
        ctx.principal.namespaceId,
        ctx.params.subscription ?? '',
        BigInt(seqText),
      );
      await auditChange(ctx, 'subscription.ack', { type: 'subscription', id: sub.id });
      return { status: 200, body: { subscription: subscriptionView(sub) } };
    },
  },
  {
    method: 'DELETE',
    path: '/subscriptions/:subscription',
    scope: 'results:read',
    operation: 'subscription.delete',
    summary: 'Delete a subscription and its delivery records (a webhook one needs admin)',
    async handle(ctx) {
      const namespaceId = ctx.principal.namespaceId;
      const sub = await getSubscription(ctx.tx, namespaceId, ctx.params.subscription ?? '');
      if (sub.webhookUrl !== null) {
        requireScope(ctx.principal, 'admin');
      }
      await deleteSubscription(ctx.tx, namespaceId, sub.id);
      await auditChange(ctx, 'subscription.delete', { type: 'subscription', id: sub.id });
      return { status: 200, body: { subscription: subscriptionView(sub) } };
    },
  },
];
