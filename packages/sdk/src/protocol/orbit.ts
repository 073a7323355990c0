/**
 * Orbit result streams (API.md "Orbit"): streams, events read by cursor (long-poll),
 * subscriptions (server-side cursors), and webhook delivery controls.
 */
import {
  Duration,
  ID_PATTERN,
  Id,
  Instant,
  Name,
  PageQuery,
  Payload,
  Revision,
  page,
} from './common.js';
import { defineRoute } from './contract.js';
import type { Infer } from './schema.js';
import {
  boolean,
  array,
  integer,
  literal,
  named,
  nullable,
  object,
  optional,
  string,
} from './schema.js';

export const MAX_READ_LIMIT = 1000;
export const MAX_WAIT_MS = 30_000;
export const MAX_WEBHOOK_URL_LENGTH = 2048;
/** Longest grace period a secret rotation may give the previous secret. */
export const MAX_ROTATION_GRACE = 'P30D';

const Seq = string({
  pattern: ID_PATTERN,
  description: 'stream position, decimal string',
  examples: ['17'],
});

export const Stream = named(
  'Stream',
  object({
    name: Name,
    id: Id,
    application: Name,
    default: boolean({ description: 'the stream outcomes of the application go to by default' }),
    head_seq: Seq,
    earliest_seq: Seq,
    retention: object({ max_age: nullable(Duration), max_events: nullable(Seq) }),
    revision: Revision,
    created_at: Instant,
    updated_at: Instant,
  }),
);
export type Stream = Infer<typeof Stream>;

export const CreateStreamInput = named(
  'CreateStreamInput',
  object({
    name: Name,
    application: Name,
    retention: optional(
      object(
        {
          max_age: optional(Duration),
          max_events: optional(integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER })),
        },
        { description: 'default: max_age P7D; give {} to keep events forever' },
      ),
    ),
  }),
);
export type CreateStreamInput = Infer<typeof CreateStreamInput>;

/** One outcome on a stream, frozen when it was appended (payload numbers stay exact). */
export const ResultEvent = named(
  'ResultEvent',
  object({
    seq: Seq,
    type: string({
      description:
        'task.succeeded, task.failed, task.cancelled, task.needs_review; ' +
        'instance.succeeded, instance.failed, instance.cancelled, instance.timed_out',
      examples: ['task.succeeded'],
    }),
    at: Instant,
    task_id: optional(Id),
    instance_id: optional(Id),
    workflow: optional(Name),
    version: optional(integer({ minimum: 1, description: 'the instance version (instance.*)' })),
    attempt_id: optional(Id),
    revision: Revision,
    status: string(),
    trace_key: optional(string()),
    result: optional(Payload),
    error: optional(object({ code: string(), message: string() })),
  }),
);
export type ResultEvent = Infer<typeof ResultEvent>;

export const EventPage = named(
  'EventPage',
  object({
    events: array(ResultEvent),
    next_after: string({ pattern: ID_PATTERN, description: 'the cursor for the next read' }),
  }),
);
export type EventPage = Infer<typeof EventPage>;

const SubscriptionState = literal(['ACTIVE', 'FAILING']);

export const Subscription = named(
  'Subscription',
  object({
    id: Id,
    name: Name,
    stream: Name,
    acked_seq: Seq,
    webhook: optional(
      object({
        url: string({ format: 'uri' }),
        state: SubscriptionState,
        consecutive_failures: integer({ minimum: 0 }),
        next_attempt_at: Instant,
        failing_since: nullable(Instant),
        last_error: nullable(string()),
        previous_secret_valid_until: nullable(Instant),
      }),
    ),
    state: SubscriptionState,
    revision: Revision,
    created_at: Instant,
    updated_at: Instant,
  }),
);
export type Subscription = Infer<typeof Subscription>;

export const CreateSubscriptionInput = named(
  'CreateSubscriptionInput',
  object({
    name: Name,
    start: optional(
      literal(['earliest', 'latest'], {
        description: 'where reading starts: the earliest retained event (default) or the head',
      }),
    ),
    webhook: optional(
      object({
        url: string({
          format: 'uri',
          maxLength: MAX_WEBHOOK_URL_LENGTH,
          description: 'http or https, no credentials; needs an admin key',
          examples: ['https://hooks.example.com/weave'],
        }),
      }),
    ),
  }),
);
export type CreateSubscriptionInput = Infer<typeof CreateSubscriptionInput>;

export const Delivery = named(
  'Delivery',
  object({
    id: Id,
    subscription_id: Id,
    first_seq: Seq,
    last_seq: Seq,
    outcome: literal(['DELIVERED', 'FAILED']),
    http_status: nullable(integer()),
    error: nullable(string()),
    duration: Duration,
    at: Instant,
  }),
);
export type Delivery = Infer<typeof Delivery>;

const StreamAnswer = object({ stream: Stream });
const SubscriptionAnswer = object({ subscription: Subscription });
const ReadQuery = {
  limit: integer({ minimum: 1, maximum: MAX_READ_LIMIT, description: 'default 100' }),
  wait_ms: integer({ minimum: 0, maximum: MAX_WAIT_MS, description: 'long-poll (default 0)' }),
} as const;

export const createStream = defineRoute({
  id: 'createStream',
  method: 'POST',
  path: '/streams',
  scope: 'admin',
  tag: 'Results',
  operation: 'stream.create',
  summary: 'Create a result stream owned by an application',
  body: CreateStreamInput,
  status: 201,
  answer: StreamAnswer,
  errors: ['not_found', 'already_exists'],
  example: { body: { name: 'billing', application: 'shop', retention: { max_age: 'P30D' } } },
});

export const listStreams = defineRoute({
  id: 'listStreams',
  method: 'GET',
  path: '/streams',
  scope: 'results:read',
  tag: 'Results',
  summary: 'List result streams',
  query: PageQuery,
  status: 200,
  answer: page('StreamPage', Stream),
  errors: [],
});

export const getStream = defineRoute({
  id: 'getStream',
  method: 'GET',
  path: '/streams/{stream}',
  scope: 'results:read',
  tag: 'Results',
  summary: 'Get a result stream: head and earliest retained sequence, retention',
  status: 200,
  answer: StreamAnswer,
  errors: ['not_found'],
});

export const readStream = defineRoute({
  id: 'readStream',
  method: 'GET',
  path: '/streams/{stream}/events',
  scope: 'results:read',
  tag: 'Results',
  summary: 'Events after the cursor `after`, in order; waits up to wait_ms for the first one',
  description:
    'Without `after`, from the earliest retained event. 410 cursor_expired when `after` is ' +
    'behind retention (details.earliest_seq).',
  query: { after: Seq, ...ReadQuery },
  status: 200,
  answer: EventPage,
  errors: ['not_found', 'cursor_expired'],
  longPoll: true,
  example: {
    answer: {
      events: [
        {
          seq: '17',
          type: 'task.succeeded',
          at: '2026-11-29T20:30:11.123456Z',
          task_id: '42',
          attempt_id: '57',
          revision: '4',
          status: 'SUCCEEDED',
          result: { sent: true, amount: { kind: 'number', text: '12345678901234567890' } },
        },
      ],
      next_after: '17',
    },
  },
});

export const createSubscription = defineRoute({
  id: 'createSubscription',
  method: 'POST',
  path: '/streams/{stream}/subscriptions',
  scope: 'results:read',
  tag: 'Results',
  operation: 'subscription.create',
  summary: 'Create a subscription (a server-side cursor); with `webhook` the server pushes',
  description:
    'A webhook subscription needs an admin key; its signing secret is in this answer only.',
  body: CreateSubscriptionInput,
  status: 201,
  answer: object({
    subscription: Subscription,
    secret: optional(string({ description: 'webhook signing secret; absent in a replay' })),
  }),
  errors: ['not_found', 'already_exists'],
  example: { body: { name: 'invoicing', start: 'earliest' } },
});

export const listSubscriptions = defineRoute({
  id: 'listSubscriptions',
  method: 'GET',
  path: '/streams/{stream}/subscriptions',
  scope: 'results:read',
  tag: 'Results',
  summary: 'List the subscriptions of a stream',
  query: PageQuery,
  status: 200,
  answer: page('SubscriptionPage', Subscription),
  errors: ['not_found'],
});

export const getSubscription = defineRoute({
  id: 'getSubscription',
  method: 'GET',
  path: '/subscriptions/{subscription}',
  scope: 'results:read',
  tag: 'Results',
  summary: 'Get a subscription: cursor, and for webhooks the delivery state',
  status: 200,
  answer: SubscriptionAnswer,
  errors: ['not_found'],
});

export const readSubscription = defineRoute({
  id: 'readSubscription',
  method: 'GET',
  path: '/subscriptions/{subscription}/events',
  scope: 'results:read',
  tag: 'Results',
  summary: 'Events after the subscription cursor, in order; waits up to wait_ms for the first one',
  description: '410 cursor_expired when the cursor is behind retention.',
  query: ReadQuery,
  status: 200,
  answer: EventPage,
  errors: ['not_found', 'cursor_expired'],
  longPoll: true,
});

export const ackSubscription = defineRoute({
  id: 'ackSubscription',
  method: 'POST',
  path: '/subscriptions/{subscription}/ack',
  scope: 'results:read',
  tag: 'Results',
  operation: 'subscription.ack',
  summary: 'Move the cursor to seq; an older seq changes nothing (acks never move backwards)',
  description: 'The server acks a webhook subscription itself: a client ack is 409 invalid_state.',
  body: object({ seq: Seq }),
  status: 200,
  answer: SubscriptionAnswer,
  errors: ['not_found', 'invalid_state'],
});

export const deleteSubscription = defineRoute({
  id: 'deleteSubscription',
  method: 'DELETE',
  path: '/subscriptions/{subscription}',
  scope: 'results:read',
  tag: 'Results',
  operation: 'subscription.delete',
  summary: 'Delete a subscription and its delivery records (a webhook one needs admin)',
  status: 200,
  answer: SubscriptionAnswer,
  errors: ['not_found'],
});

export const resumeSubscription = defineRoute({
  id: 'resumeSubscription',
  method: 'POST',
  path: '/subscriptions/{subscription}/resume',
  scope: 'admin',
  tag: 'Results',
  operation: 'subscription.resume',
  summary: 'Resume a webhook subscription: ACTIVE, failures cleared, next delivery now',
  description: 'Delivery goes on from its cursor: nothing is skipped.',
  status: 200,
  answer: SubscriptionAnswer,
  errors: ['not_found', 'invalid_state'],
});

export const rotateSecret = defineRoute({
  id: 'rotateSecret',
  method: 'POST',
  path: '/subscriptions/{subscription}/rotate-secret',
  scope: 'admin',
  tag: 'Results',
  operation: 'subscription.rotate_secret',
  summary: 'Give a webhook subscription a new signing secret (shown once)',
  description:
    'The previous secret keeps signing, second in Weave-Signature, for grace_period ' +
    `(default PT24H, at most ${MAX_ROTATION_GRACE}; PT0S ends it now).`,
  body: object({ grace_period: optional(Duration) }),
  bodyOptional: true,
  status: 200,
  answer: object({ subscription: Subscription, secret: optional(string()) }),
  errors: ['not_found', 'invalid_state'],
});

export const listDeliveries = defineRoute({
  id: 'listDeliveries',
  method: 'GET',
  path: '/subscriptions/{subscription}/deliveries',
  scope: 'results:read',
  tag: 'Results',
  summary: 'Webhook delivery attempts of a subscription, newest first',
  query: PageQuery,
  status: 200,
  answer: page('DeliveryPage', Delivery),
  errors: ['not_found'],
});
