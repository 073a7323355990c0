/**
 * Orbit streams (API.md "Orbit"): create and list streams, read events after a cursor
 * (long-poll), create subscriptions. Reading needs `results:read`; creating a stream needs
 * `admin`, and so does a webhook subscription (it makes the server call out).
 */
import type { JsonObject, JsonValue } from '@weave/json';
import { orbit } from '@weave/sdk/protocol';
import { findApplication } from '../../auth/applications.js';
import { requireScope } from '../../auth/principal.js';
import { invalidArgument, notFound } from '../../errors.js';
import type { Retention } from '../../orbit/streams.js';
import {
  DEFAULT_RETENTION_MAX_AGE_US,
  createStream,
  getStream,
  listStreams,
} from '../../orbit/streams.js';
import { createSubscription, listSubscriptions } from '../../orbit/subscriptions.js';
import { auditChange } from '../audit-change.js';
import { readDuration } from '../durations.js';
import { answerEventRead } from '../event-reads.js';
import { expectObject, readInteger, readString, rejectUnknown, requireString } from '../fields.js';
import { streamView, subscriptionView } from '../orbit-views.js';
import { pageBody, readPage } from '../paging.js';
import { queryBigInt } from '../query-fields.js';
import { route } from '../route.js';

/** 100 years: no retention limit needs more. */
const MAX_RETENTION_AGE_US = 100n * 365n * 86_400_000_000n;

function parseRetention(value: JsonValue | undefined): Retention {
  if (value === undefined) {
    return { maxAgeUs: DEFAULT_RETENTION_MAX_AGE_US, maxEvents: null };
  }
  const path = '$.retention';
  const obj = expectObject(value, path);
  rejectUnknown(obj, ['max_age', 'max_events'], path);
  const maxEvents = readInteger(obj, 'max_events', { path, min: 1, max: Number.MAX_SAFE_INTEGER });
  return {
    maxAgeUs: readDuration(obj, 'max_age', { path, max: MAX_RETENTION_AGE_US }) ?? null,
    maxEvents: maxEvents === undefined ? null : BigInt(maxEvents),
  };
}

function parseCreateStream(body: JsonValue | undefined) {
  const obj = expectObject(body);
  rejectUnknown(obj, ['name', 'application', 'retention']);
  return {
    name: requireString(obj, 'name'),
    application: requireString(obj, 'application'),
    retention: parseRetention(obj.get('retention')),
  };
}

/** Syntax only; the allow-list is checked when the delivery loop connects (webhook-targets). */
export function parseWebhookUrl(obj: JsonObject): string {
  const path = '$.webhook.url';
  const text = requireString(obj, 'url', {
    path: '$.webhook',
    maxLength: orbit.MAX_WEBHOOK_URL_LENGTH,
  });
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw invalidArgument(path, 'is not a URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw invalidArgument(path, 'must be an http or https URL');
  }
  if (url.username !== '' || url.password !== '') {
    throw invalidArgument(path, 'must not carry credentials (verify the signature instead)');
  }
  return url.toString();
}

function parseCreateSubscription(body: JsonValue | undefined) {
  const obj = expectObject(body);
  rejectUnknown(obj, ['name', 'start', 'webhook']);
  const webhook = obj.get('webhook');
  let webhookUrl: string | null = null;
  if (webhook !== undefined) {
    const hook = expectObject(webhook, '$.webhook');
    rejectUnknown(hook, ['url'], '$.webhook');
    webhookUrl = parseWebhookUrl(hook);
  }
  const start = readString(obj, 'start', { pattern: /^(earliest|latest)$/ }) ?? 'earliest';
  return {
    name: requireString(obj, 'name'),
    start: start as 'earliest' | 'latest',
    webhookUrl,
  };
}

export const streamRoutes = [
  route(orbit.createStream, {
    parse: parseCreateStream,
    async handle(ctx, input) {
      const namespaceId = ctx.principal.namespaceId;
      const application = await findApplication(ctx.tx, namespaceId, input.application);
      if (application === undefined) {
        throw notFound(`application ${input.application}`, { path: '$.application' });
      }
      const stream = await createStream(ctx.tx, namespaceId, {
        name: input.name,
        applicationId: application.id,
        retention: input.retention,
      });
      await auditChange(ctx, 'stream.create', { type: 'stream', id: input.name });
      return { body: { stream: streamView(stream) } };
    },
  }),
  route(orbit.listStreams, {
    async handle(ctx) {
      const result = await listStreams(ctx.tx, ctx.principal.namespaceId, readPage(ctx.query));
      return { body: pageBody(result.items.map(streamView), result.nextAfterId) };
    },
  }),
  route(orbit.getStream, {
    async handle(ctx) {
      const stream = await getStream(ctx.tx, ctx.principal.namespaceId, ctx.params.stream ?? '');
      return { body: { stream: streamView(stream) } };
    },
  }),
  route(orbit.readStream, {
    session(ctx) {
      const after = queryBigInt(ctx.query, 'after');
      const name = ctx.params.stream ?? '';
      return answerEventRead(ctx, async (tx) => {
        const stream = await getStream(tx, ctx.principal.namespaceId, name);
        return { stream, after: after ?? stream.earliestSeq - 1n };
      });
    },
  }),
  route(orbit.createSubscription, {
    parse: parseCreateSubscription,
    async handle(ctx, input) {
      if (input.webhookUrl !== null) {
        requireScope(ctx.principal, 'admin');
      }
      const stream = await getStream(ctx.tx, ctx.principal.namespaceId, ctx.params.stream ?? '');
      const created = await createSubscription(ctx.tx, stream, input);
      await auditChange(ctx, 'subscription.create', {
        type: 'subscription',
        id: created.subscription.id,
      });
      const view = { subscription: subscriptionView(created.subscription) };
      return {
        body: created.secret === null ? view : { ...view, secret: created.secret },
        // A replay must not reveal the secret again.
        replayBody: view,
      };
    },
  }),
  route(orbit.listSubscriptions, {
    async handle(ctx) {
      const stream = await getStream(ctx.tx, ctx.principal.namespaceId, ctx.params.stream ?? '');
      const result = await listSubscriptions(ctx.tx, stream, readPage(ctx.query));
      return { body: pageBody(result.items.map(subscriptionView), result.nextAfterId) };
    },
  }),
];
