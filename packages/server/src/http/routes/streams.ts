/**
 * Orbit streams (API.md "Orbit"): create and list streams, read events after a cursor
 * (long-poll), create subscriptions. Reading needs `results:read`; creating a stream needs
 * `admin`, and so does a webhook subscription (it makes the server call out).
 */
import { NAME_PATTERN } from '@weave/sdk/protocol';
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
import { expectObject, readInteger, readString, rejectUnknown, requireString } from '../fields.js';
import type { JsonObject, JsonValue } from '@weave/json';
import { answerEventRead } from '../event-reads.js';
import { streamView, subscriptionView } from '../orbit-views.js';
import { pageToken, readPage } from '../paging.js';
import { queryBigInt } from '../query-fields.js';
import type { Route } from '../route.js';

/** 100 years: no retention limit needs more. */
const MAX_RETENTION_AGE_US = 100n * 365n * 86_400_000_000n;
const MAX_WEBHOOK_URL_LENGTH = 2048;

function parseRetention(value: JsonValue | undefined): Retention {
  if (value === undefined) {
    return { maxAgeUs: DEFAULT_RETENTION_MAX_AGE_US, maxEvents: null };
  }
  const obj = expectObject(value, '$.retention');
  rejectUnknown(obj, ['max_age', 'max_events'], '$.retention');
  const maxEvents = readInteger(obj, 'max_events', {
    path: '$.retention',
    min: 1,
    max: Number.MAX_SAFE_INTEGER,
  });
  return {
    maxAgeUs:
      readDuration(obj, 'max_age', { path: '$.retention', max: MAX_RETENTION_AGE_US }) ?? null,
    maxEvents: maxEvents === undefined ? null : BigInt(maxEvents),
  };
}

/** Syntax only; the allow-list is checked when the delivery loop connects (webhook-targets). */
export function parseWebhookUrl(obj: JsonObject): string {
  const path = '$.webhook.url';
  const text = requireString(obj, 'url', { path: '$.webhook', maxLength: MAX_WEBHOOK_URL_LENGTH });
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

export const streamRoutes: Route[] = [
  {
    method: 'POST',
    path: '/streams',
    scope: 'admin',
    operation: 'stream.create',
    summary: 'Create a result stream owned by an application',
    requestSchema: {
      type: 'object',
      required: ['name', 'application'],
      properties: {
        name: { type: 'string', pattern: NAME_PATTERN.source },
        application: { type: 'string' },
        retention: {
          type: 'object',
          description: 'default: max_age P7D; give {} to keep events forever',
          properties: {
            max_age: { type: 'string', description: 'ISO 8601 duration, e.g. P30D' },
            max_events: { type: 'integer', minimum: 1 },
          },
        },
      },
    },
    async handle(ctx) {
      const body = expectObject(ctx.body);
      rejectUnknown(body, ['name', 'application', 'retention']);
      const name = requireString(body, 'name');
      const applicationName = requireString(body, 'application');
      const retention = parseRetention(body.get('retention'));
      const application = await findApplication(ctx.tx, ctx.principal.namespaceId, applicationName);
      if (application === undefined) {
        throw notFound(`application ${applicationName}`, { path: '$.application' });
      }
      const stream = await createStream(ctx.tx, ctx.principal.namespaceId, {
        name,
        applicationId: application.id,
        retention,
      });
      await auditChange(ctx, 'stream.create', { type: 'stream', id: name });
      return { status: 201, body: { stream: streamView(stream) } };
    },
  },
  {
    method: 'GET',
    path: '/streams',
    scope: 'results:read',
    summary: 'List result streams',
    queryParams: ['page_size', 'page_token'],
    async handle(ctx) {
      const result = await listStreams(ctx.tx, ctx.principal.namespaceId, readPage(ctx.query));
      return {
        status: 200,
        body: {
          items: result.items.map(streamView),
          next_page_token: pageToken(result.nextAfterId),
        },
      };
    },
  },
  {
    method: 'GET',
    path: '/streams/:stream',
    scope: 'results:read',
    summary: 'Get a result stream: head and earliest retained sequence, retention',
    async handle(ctx) {
      const stream = await getStream(ctx.tx, ctx.principal.namespaceId, ctx.params.stream ?? '');
      return { status: 200, body: { stream: streamView(stream) } };
    },
  },
  {
    method: 'GET',
    path: '/streams/:stream/events',
    scope: 'results:read',
    summary:
      'Events after the cursor `after` (default: from the earliest retained), in order; waits ' +
      'up to wait_ms for the first one. 410 cursor_expired when `after` is behind retention.',
    queryParams: ['after', 'limit', 'wait_ms'],
    session(ctx) {
      const after = queryBigInt(ctx.query, 'after');
      const name = ctx.params.stream ?? '';
      return answerEventRead(ctx, async (tx) => {
        const stream = await getStream(tx, ctx.principal.namespaceId, name);
        return { stream, after: after ?? stream.earliestSeq - 1n };
      });
    },
  },
  {
    method: 'POST',
    path: '/streams/:stream/subscriptions',
    scope: 'results:read',
    operation: 'subscription.create',
    summary:
      'Create a subscription (server-side cursor); with `webhook` the server pushes the events ' +
      '(needs admin) and returns the signing secret once',
    requestSchema: {
      type: 'object',
      required: ['name'],
      properties: {
        name: { type: 'string', pattern: NAME_PATTERN.source },
        start: { enum: ['earliest', 'latest'], description: 'default earliest' },
        webhook: { type: 'object', required: ['url'], properties: { url: { type: 'string' } } },
      },
    },
    async handle(ctx) {
      const body = expectObject(ctx.body);
      rejectUnknown(body, ['name', 'start', 'webhook']);
      const name = requireString(body, 'name');
      const start = readString(body, 'start', { pattern: /^(earliest|latest)$/ }) ?? 'earliest';
      const webhook = body.get('webhook');
      let webhookUrl: string | null = null;
      if (webhook !== undefined) {
        requireScope(ctx.principal, 'admin');
        const obj = expectObject(webhook, '$.webhook');
        rejectUnknown(obj, ['url'], '$.webhook');
        webhookUrl = parseWebhookUrl(obj);
      }
      const stream = await getStream(ctx.tx, ctx.principal.namespaceId, ctx.params.stream ?? '');
      const created = await createSubscription(ctx.tx, stream, {
        name,
        start: start as 'earliest' | 'latest',
        webhookUrl,
      });
      await auditChange(ctx, 'subscription.create', {
        type: 'subscription',
        id: created.subscription.id,
      });
      const view = { subscription: subscriptionView(created.subscription) };
      return {
        status: 201,
        body: created.secret === null ? view : { ...view, secret: created.secret },
        // A replay must not reveal the secret again.
        replayBody: view,
      };
    },
  },
  {
    method: 'GET',
    path: '/streams/:stream/subscriptions',
    scope: 'results:read',
    summary: 'List the subscriptions of a stream',
    queryParams: ['page_size', 'page_token'],
    async handle(ctx) {
      const stream = await getStream(ctx.tx, ctx.principal.namespaceId, ctx.params.stream ?? '');
      const result = await listSubscriptions(ctx.tx, stream, readPage(ctx.query));
      return {
        status: 200,
        body: {
          items: result.items.map(subscriptionView),
          next_page_token: pageToken(result.nextAfterId),
        },
      };
    },
  },
];
