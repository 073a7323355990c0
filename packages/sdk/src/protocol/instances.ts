/**
 * Workflow instances (API.md "Weave", docs/design/runtime.md §2 and §6): Start and Get. Start
 * takes `workflows:start` (plus `tasks:submit` and scope over every queue when the version has
 * business tasks); Get takes `workflows:read` plus scope over every queue of the pinned version.
 */
import { Id, Instant, Name, Payload, Revision } from './common.js';
import { defineRoute } from './contract.js';
import type { Infer } from './schema.js';
import { boolean, integer, literal, named, nullable, object, optional, string } from './schema.js';

export const INSTANCE_STATUSES = [
  'RUNNING',
  'WAITING',
  'CANCELLING',
  'NEEDS_REVIEW',
  'SUCCEEDED',
  'FAILED',
  'CANCELLED',
  'TIMED_OUT',
] as const;
export type InstanceStatus = (typeof INSTANCE_STATUSES)[number];

/** Business keys: at most 191 characters, kept exactly (seed 002 §4, A4.2). */
export const MAX_BUSINESS_KEY = 191;

export const Instance = named(
  'Instance',
  object({
    id: Id,
    workflow: Name,
    version: integer({ minimum: 1 }),
    status: literal(INSTANCE_STATUSES),
    revision: Revision,
    business_key: nullable(string({ maxLength: MAX_BUSINESS_KEY })),
    input: Payload,
    output: optional(Payload),
    error: optional(
      object({
        code: string(),
        message: string(),
        step_id: optional(string({ description: 'the step whose failure ended the instance' })),
      }),
    ),
    deadline_at: Instant,
    created_at: Instant,
    finished_at: optional(Instant),
    paused: boolean(),
  }),
);
export type Instance = Infer<typeof Instance>;

export const StartRequest = named(
  'StartRequest',
  object({
    version: optional(integer({ minimum: 1, description: 'default: the latest version' })),
    input: Payload,
    business_key: optional(string({ maxLength: MAX_BUSINESS_KEY, examples: ['order-42'] })),
    result_stream: optional(Name),
    application: optional(Name),
  }),
);
export type StartRequest = Infer<typeof StartRequest>;

export const startInstance = defineRoute({
  id: 'startInstance',
  method: 'POST',
  path: '/workflows/{workflow}/instances',
  scope: 'workflows:start',
  tag: 'Instances',
  operation: 'workflow.start',
  summary:
    'Start an instance: admission, the first batch of work, and the receipt in one transaction',
  description:
    'A replay with the same Idempotency-Key returns the view frozen at admission; the same key ' +
    'with another workflow, version, input or business key is 409. The receipt shows ' +
    '`revision: "2"`.',
  body: StartRequest,
  status: 201,
  answer: object({ instance: Instance }),
  errors: [
    'not_found',
    'payload_too_large',
    'active_instance_limit',
    'quota_exceeded',
    'queue_full',
    'invalid_state',
  ],
  example: { body: { input: { order_id: 'A-1', amount: 1500 }, business_key: 'order-A-1' } },
});

export const getInstance = defineRoute({
  id: 'getInstance',
  method: 'GET',
  path: '/instances/{instance}',
  scope: 'workflows:read',
  tag: 'Instances',
  summary: 'The current view of an instance',
  status: 200,
  answer: object({ instance: Instance }),
  errors: ['not_found'],
});
