/**
 * Bulk instance operations (API.md "Weave" Bulk, issue 12 Deliver 5,
 * docs/design/bulk-operations.md): cancel, pause, resume or retry the failed step of every
 * instance matching an instance-list filter, as a durable operation that the server nodes process
 * in bounded batches, each instance in its own transaction and exactly once. Scope
 * `workflows:control`; the operation acts with its creator's rights, checked again for every
 * batch (a revoked or expired credential stops it FAILED).
 */
import { Id, Instant, Name, PageQuery, page } from './common.js';
import { defineRoute } from './contract.js';
import { INSTANCE_STATUSES, MAX_BUSINESS_KEY } from './instances.js';
import type { Infer } from './schema.js';
import { array, integer, literal, named, object, oneOf, optional, string } from './schema.js';

export const OPERATION_ACTIONS = ['cancel', 'pause', 'resume', 'retry_failed'] as const;
export type OperationAction = (typeof OPERATION_ACTIONS)[number];

export const OPERATION_STATUSES = ['RUNNING', 'SUCCEEDED', 'FAILED'] as const;
export type OperationStatus = (typeof OPERATION_STATUSES)[number];

/** An operation's reason, kept in each instance's history and the audit (characters). */
export const MAX_OPERATION_REASON = 512;

export const OperationFilter = named(
  'OperationFilter',
  object({
    workflow: optional(Name),
    version: optional(integer({ minimum: 1, description: 'needs `workflow`' })),
    status: optional(
      oneOf([
        string({ description: 'statuses separated by commas', examples: ['WAITING,RUNNING'] }),
        array(literal(INSTANCE_STATUSES)),
      ]),
    ),
    business_key: optional(
      string({ maxLength: MAX_BUSINESS_KEY, description: 'exact: case and trailing spaces count' }),
    ),
    created_after: optional(Instant),
    created_before: optional(Instant),
  }),
);
export type OperationFilter = Infer<typeof OperationFilter>;

export const CreateOperationRequest = named(
  'CreateOperationRequest',
  object({
    action: literal(OPERATION_ACTIONS),
    filter: OperationFilter,
    reason: optional(string({ maxLength: MAX_OPERATION_REASON, examples: ['incident 7'] })),
  }),
);
export type CreateOperationRequest = Infer<typeof CreateOperationRequest>;

export const Operation = named(
  'Operation',
  object({
    id: Id,
    action: literal(OPERATION_ACTIONS),
    status: literal(OPERATION_STATUSES),
    filter: object({
      workflow: optional(Name),
      version: optional(integer({ minimum: 1 })),
      status: optional(array(literal(INSTANCE_STATUSES))),
      business_key: optional(string()),
      created_after: optional(Instant),
      created_before: optional(Instant),
    }),
    reason: optional(string()),
    /** The walk's upper bound: instances created at or after it never join. */
    bound: Instant,
    matched: integer({
      minimum: 0,
      description: 'matching instances found so far (one item each)',
    }),
    done: integer({ minimum: 0, description: 'changed by the action, or already so' }),
    failed: integer({ minimum: 0, description: 'refused (rights, quota…): see the audit' }),
    skipped: integer({
      minimum: 0,
      description: 'the action does not apply in their state (pausing an ended instance)',
    }),
    error: optional(object({ code: string(), message: string() })),
    created_at: Instant,
    updated_at: Instant,
    finished_at: optional(Instant),
  }),
);
export type Operation = Infer<typeof Operation>;

export const OperationAnswer = named('OperationAnswer', object({ operation: Operation }));
export type OperationAnswer = Infer<typeof OperationAnswer>;

export const createOperation = defineRoute({
  id: 'createOperation',
  method: 'POST',
  path: '/instance-operations',
  scope: 'workflows:control',
  tag: 'Instances',
  operation: 'instance_operation.create',
  summary: 'Cancel, pause, resume or retry the failed step of every instance matching a filter',
  description:
    'Creates a durable operation (202) that the server nodes process in batches, each instance ' +
    'in its own transaction and exactly once, also across restarts. The walk is the instance ' +
    'list (newest first), bounded above by `created_before` or the creation time, whichever is ' +
    'earlier: instances started later never join. `retry_failed` retries each FAILED ' +
    "instance's failing step without a new input (with no `status` filter it walks FAILED " +
    "instances). The operation acts with its creator's rights, checked again for every batch.",
  body: CreateOperationRequest,
  status: 202,
  answer: OperationAnswer,
  errors: [],
  example: { body: { action: 'cancel', filter: { workflow: 'order', status: 'WAITING' } } },
});

export const getOperation = defineRoute({
  id: 'getOperation',
  method: 'GET',
  path: '/instance-operations/{operation}',
  scope: 'workflows:control',
  tag: 'Instances',
  summary: 'The progress of a bulk operation',
  status: 200,
  answer: OperationAnswer,
  errors: ['not_found'],
});

export const listOperations = defineRoute({
  id: 'listOperations',
  method: 'GET',
  path: '/instance-operations',
  scope: 'workflows:control',
  tag: 'Instances',
  summary: 'Bulk operations of the namespace, newest first',
  query: PageQuery,
  status: 200,
  answer: page('OperationPage', Operation),
  errors: [],
});
