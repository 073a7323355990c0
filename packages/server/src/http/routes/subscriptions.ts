/**
 * Subscriptions (API.md "Orbit"): a server-side cursor on a stream. Read from the cursor
 * (long-poll), ack up to a seq (never backwards), delete. Webhook routes (resume, rotate-secret,
 * deliveries) are in webhooks.ts.
 */
import type { JsonValue } from '@weave/json';
import { ID_PATTERN, orbit } from '@weave/sdk/protocol';
import { requireScope } from '../../auth/principal.js';
import { invalidArgument } from '../../errors.js';
import { getStreamById } from '../../orbit/streams.js';
import { ackSubscription, deleteSubscription, getSubscription } from '../../orbit/subscriptions.js';
import { auditChange } from '../audit-change.js';
import { answerEventRead } from '../event-reads.js';
import { expectObject, rejectUnknown, requireString } from '../fields.js';
import { subscriptionView } from '../orbit-views.js';
import { route } from '../route.js';

function parseAck(body: JsonValue | undefined): bigint {
  const obj = expectObject(body);
  rejectUnknown(obj, ['seq']);
  const seqText = requireString(obj, 'seq');
  if (!ID_PATTERN.test(seqText)) {
    throw invalidArgument('$.seq', 'must be a sequence number as a decimal string');
  }
  return BigInt(seqText);
}

export const subscriptionRoutes = [
  route(orbit.getSubscription, {
    async handle(ctx) {
      const id = ctx.params.subscription ?? '';
      const sub = await getSubscription(ctx.tx, ctx.principal.namespaceId, id);
      return { body: { subscription: subscriptionView(sub) } };
    },
  }),
  route(orbit.readSubscription, {
    session(ctx) {
      const id = ctx.params.subscription ?? '';
      return answerEventRead(ctx, async (tx) => {
        const sub = await getSubscription(tx, ctx.principal.namespaceId, id);
        const stream = await getStreamById(tx, ctx.principal.namespaceId, sub.streamId);
        return { stream, after: sub.ackedSeq };
      });
    },
  }),
  route(orbit.ackSubscription, {
    parse: parseAck,
    async handle(ctx, seq) {
      const id = ctx.params.subscription ?? '';
      const sub = await ackSubscription(ctx.tx, ctx.principal.namespaceId, id, seq);
      await auditChange(ctx, 'subscription.ack', { type: 'subscription', id: sub.id });
      return { body: { subscription: subscriptionView(sub) } };
    },
  }),
  route(orbit.deleteSubscription, {
    async handle(ctx) {
      const namespaceId = ctx.principal.namespaceId;
      const sub = await getSubscription(ctx.tx, namespaceId, ctx.params.subscription ?? '');
      if (sub.webhookUrl !== null) {
        requireScope(ctx.principal, 'admin');
      }
      await deleteSubscription(ctx.tx, namespaceId, sub.id);
      await auditChange(ctx, 'subscription.delete', { type: 'subscription', id: sub.id });
      return { body: { subscription: subscriptionView(sub) } };
    },
  }),
];
