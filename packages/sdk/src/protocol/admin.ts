/** Administration (API.md "Administration", scope `admin`): applications, queues, credentials. */
import { Id, Instant, Name, PageQuery, Revision, page } from './common.js';
import { defineRoute } from './contract.js';
import type { Infer } from './schema.js';
import {
  array,
  boolean,
  integer,
  literal,
  named,
  nullable,
  object,
  optional,
  record,
  string,
} from './schema.js';
import { SCOPES } from './scopes.js';
import { TASK_STATUSES } from './task-states.js';

/** Largest quota or capacity a request may set. */
export const MAX_LIMIT = 1_000_000_000;

const MaxActiveTasks = integer({
  minimum: 1,
  maximum: MAX_LIMIT,
  description: 'tasks admitted and not yet finished, over all queues of the application',
});

export const Application = named(
  'Application',
  object({
    name: Name,
    id: Id,
    disabled: boolean(),
    revision: Revision,
    quota: object({ max_active_tasks: MaxActiveTasks }),
    created_at: Instant,
    updated_at: Instant,
  }),
);
export type Application = Infer<typeof Application>;

const ApplicationAnswer = object({ application: Application });
const QuotaInput = object({ max_active_tasks: optional(MaxActiveTasks) });

export const createApplication = defineRoute({
  id: 'createApplication',
  method: 'POST',
  path: '/applications',
  scope: 'admin',
  tag: 'Administration',
  operation: 'application.create',
  summary: 'Create an application with its quota (default 10000) and its default result stream',
  body: object({ name: Name, quota: optional(QuotaInput) }),
  status: 201,
  answer: ApplicationAnswer,
  errors: ['already_exists'],
  example: { body: { name: 'shop', quota: { max_active_tasks: 1000 } } },
});

export const getApplication = defineRoute({
  id: 'getApplication',
  method: 'GET',
  path: '/applications/{application}',
  scope: 'admin',
  tag: 'Administration',
  summary: 'Get an application and its quota',
  status: 200,
  answer: ApplicationAnswer,
  errors: ['not_found'],
});

export const updateApplication = defineRoute({
  id: 'updateApplication',
  method: 'PATCH',
  path: '/applications/{application}',
  scope: 'admin',
  tag: 'Administration',
  operation: 'application.update',
  summary: 'Change an application quota or disable it',
  body: object({ quota: optional(QuotaInput), disabled: optional(boolean()) }),
  status: 200,
  answer: ApplicationAnswer,
  errors: ['not_found'],
});

const Capacity = integer({ minimum: 1, maximum: MAX_LIMIT, description: 'max pending tasks' });

/** Tasks of a queue by stored status (PENDING includes retry waits). */
export const QueueCounts = named(
  'QueueCounts',
  record(integer({ minimum: 0 }), {
    description: `one member per status: ${TASK_STATUSES.filter((s) => s !== 'RETRY_WAIT').join(', ')}`,
  }),
);

const queueMembers = {
  name: Name,
  id: Id,
  application: Name,
  capacity: Capacity,
  paused: boolean(),
  revision: Revision,
  created_at: Instant,
  updated_at: Instant,
} as const;

export const Queue = named('Queue', object(queueMembers));
export type Queue = Infer<typeof Queue>;

export const QueueWithCounts = named(
  'QueueWithCounts',
  object({ ...queueMembers, counts: QueueCounts }),
);
export type QueueWithCounts = Infer<typeof QueueWithCounts>;

const QueueAnswer = object({ queue: Queue });

export const createQueue = defineRoute({
  id: 'createQueue',
  method: 'POST',
  path: '/queues',
  scope: 'admin',
  tag: 'Administration',
  operation: 'queue.create',
  summary: 'Create a queue owned by an application',
  body: object({ name: Name, application: Name, capacity: optional(Capacity) }),
  status: 201,
  answer: QueueAnswer,
  errors: ['not_found', 'already_exists'],
  example: { body: { name: 'emails', application: 'shop', capacity: 100000 } },
});

export const listQueues = defineRoute({
  id: 'listQueues',
  method: 'GET',
  path: '/queues',
  scope: 'admin',
  tag: 'Administration',
  summary: 'List queues',
  query: PageQuery,
  status: 200,
  answer: page('QueuePage', Queue),
  errors: [],
});

export const getQueue = defineRoute({
  id: 'getQueue',
  method: 'GET',
  path: '/queues/{queue}',
  scope: 'admin',
  tag: 'Administration',
  summary: 'Get a queue, with its tasks counted by status',
  status: 200,
  answer: object({ queue: QueueWithCounts }),
  errors: ['not_found'],
});

export const updateQueue = defineRoute({
  id: 'updateQueue',
  method: 'PATCH',
  path: '/queues/{queue}',
  scope: 'admin',
  tag: 'Administration',
  operation: 'queue.update',
  summary: 'Change a queue capacity or pause state',
  body: object({ capacity: optional(Capacity), paused: optional(boolean()) }),
  status: 200,
  answer: QueueAnswer,
  errors: ['not_found'],
});

export const pauseQueue = defineRoute({
  id: 'pauseQueue',
  method: 'POST',
  path: '/queues/{queue}/pause',
  scope: 'admin',
  tag: 'Administration',
  operation: 'queue.pause',
  summary: 'Pause a queue: no claims or starts; submissions are still accepted',
  status: 200,
  answer: QueueAnswer,
  errors: ['not_found'],
});

export const resumeQueue = defineRoute({
  id: 'resumeQueue',
  method: 'POST',
  path: '/queues/{queue}/resume',
  scope: 'admin',
  tag: 'Administration',
  operation: 'queue.resume',
  summary: 'Resume a paused queue',
  status: 200,
  answer: QueueAnswer,
  errors: ['not_found'],
});

/** Longest credential name. */
export const MAX_CREDENTIAL_NAME = 191;

export const Credential = named(
  'Credential',
  object({
    id: Id,
    name: string({ maxLength: MAX_CREDENTIAL_NAME }),
    scopes: array(literal(SCOPES)),
    queues: nullable(array(Name)),
    expires_at: nullable(Instant),
    revoked_at: nullable(Instant),
    created_at: Instant,
  }),
);
export type Credential = Infer<typeof Credential>;

export const createCredential = defineRoute({
  id: 'createCredential',
  method: 'POST',
  path: '/credentials',
  scope: 'admin',
  tag: 'Administration',
  operation: 'credential.create',
  summary: 'Create a credential; the key is shown once, in this answer (never in a replay)',
  body: object({
    name: string({ minLength: 1, maxLength: MAX_CREDENTIAL_NAME, examples: ['billing worker'] }),
    scopes: array(literal(SCOPES), { minItems: 1, maxItems: SCOPES.length }),
    queues: optional(
      array(Name, { maxItems: 1000, description: 'limits the key to these queues (default: all)' }),
    ),
    expires_at: optional(nullable(Instant)),
  }),
  status: 201,
  answer: named(
    'CreatedCredential',
    object({
      credential: Credential,
      key: optional(string({ description: 'the secret key; absent in an idempotent replay' })),
    }),
  ),
  errors: [],
  example: { body: { name: 'billing worker', scopes: ['tasks:work'], queues: ['emails'] } },
});

export const listCredentials = defineRoute({
  id: 'listCredentials',
  method: 'GET',
  path: '/credentials',
  scope: 'admin',
  tag: 'Administration',
  summary: 'List credentials (never their keys)',
  status: 200,
  answer: object({ items: array(Credential) }),
  errors: [],
});

export const revokeCredential = defineRoute({
  id: 'revokeCredential',
  method: 'DELETE',
  path: '/credentials/{id}',
  scope: 'admin',
  tag: 'Administration',
  operation: 'credential.revoke',
  summary: 'Revoke a credential (refused at once by this node, by every node within 1 s)',
  status: 200,
  answer: object({ credential: Credential }),
  errors: ['not_found'],
});
