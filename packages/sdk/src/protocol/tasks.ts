/** Tasks (API.md "Pulse"): submit, read, list, events, source, cancel and review. */
import { Duration, Id, Instant, Name, PageQuery, Payload, Revision, page } from './common.js';
import { defineRoute } from './contract.js';
import type { Infer } from './schema.js';
import {
  array,
  boolean,
  integer,
  literal,
  named,
  nullable,
  number,
  object,
  oneOf,
  optional,
  string,
} from './schema.js';
import { TASK_STATUSES } from './task-states.js';

/** Trace and resource keys: printable ASCII. */
export const KEY_PATTERN = /^[\x20-\x7e]{1,200}$/;
/** Error codes that workers report and retry policies name. */
export const ERROR_CODE_PATTERN = /^[A-Za-z0-9_.:-]{1,64}$/;
export const MAX_ERROR_MESSAGE = 4000;
export const MAX_REASON = 1000;

export const TaskStatus = literal(TASK_STATUSES);

const ErrorCodeText = string({ pattern: ERROR_CODE_PATTERN, examples: ['card_declined'] });
const ErrorMessage = string({ maxLength: MAX_ERROR_MESSAGE, description: 'default ""' });

/** The retry policy a submit may give; every member has a default. */
export const RetryPolicyInput = named(
  'RetryPolicyInput',
  object({
    max_attempts: optional(integer({ minimum: 1, maximum: 100, description: 'default 3' })),
    initial_interval: optional(Duration),
    backoff_coefficient: optional(number({ minimum: 1, maximum: 100, examples: [2] })),
    max_interval: optional(Duration),
    non_retryable_codes: optional(array(ErrorCodeText, { maxItems: 100 })),
  }),
);

/** The retry policy as frozen on a task at submit. */
export const RetryPolicy = named(
  'RetryPolicy',
  object({
    max_attempts: integer({ minimum: 1, maximum: 100 }),
    initial_interval: Duration,
    backoff_coefficient: number({ minimum: 1, maximum: 100 }),
    max_interval: Duration,
    non_retryable_codes: array(ErrorCodeText),
  }),
);
export type RetryPolicy = Infer<typeof RetryPolicy>;

const submitMembers = {
  input: Payload,
  idempotent: optional(
    boolean({ description: 'safe to run twice: an uncertain attempt is retried (default false)' }),
  ),
  priority: optional(integer({ minimum: -1000, maximum: 1000, description: 'default 0' })),
  timeout: optional(Duration),
  attempt_timeout: optional(Duration),
  retry: optional(RetryPolicyInput),
  trace_key: optional(string({ pattern: KEY_PATTERN, examples: ['order-42'] })),
  resource_key: optional(string({ pattern: KEY_PATTERN, examples: ['customer-7'] })),
  result_stream: optional(Name),
} as const;

/** Body of `POST /queues/{q}/tasks`. `input` is any JSON value. */
export const SubmitTaskInput = named(
  'SubmitTaskInput',
  object({ ...submitMembers, deadline_at: optional(nullable(Instant)) }),
);
export type SubmitTaskInput = Infer<typeof SubmitTaskInput>;

/** What a schedule submits at each slot: the submit members without an absolute deadline. */
export const ScheduledTaskInput = named('ScheduledTaskInput', object(submitMembers));
export type ScheduledTaskInput = Infer<typeof ScheduledTaskInput>;

export const TaskError = named('TaskError', object({ code: string(), message: string() }));

export const Task = named(
  'Task',
  object({
    id: Id,
    queue: Name,
    status: TaskStatus,
    revision: Revision,
    input: Payload,
    result: optional(Payload),
    error: optional(TaskError),
    attempts: integer({ minimum: 0 }),
    effect_uncertain: boolean(),
    cancel_requested: boolean(),
    idempotent: boolean(),
    priority: integer(),
    trace_key: optional(string()),
    resource_key: optional(string()),
    attempt_timeout: optional(Duration),
    retry: RetryPolicy,
    deadline_at: Instant,
    available_at: Instant,
    created_at: Instant,
    updated_at: Instant,
    finished_at: optional(Instant),
    owner: optional(
      object({
        kind: string({ description: 'the owning kind, e.g. `activation`' }),
        id: nullable(string()),
      }),
    ),
  }),
);
export type Task = Infer<typeof Task>;

/** The answer of start, complete, cancel and review. */
export const receiptMembers = {
  task_id: Id,
  attempt_id: nullable(Id),
  revision: Revision,
  status: TaskStatus,
} as const;

export const TaskReceipt = named('TaskReceipt', object(receiptMembers));
export type TaskReceipt = Infer<typeof TaskReceipt>;

export const TaskEvent = named(
  'TaskEvent',
  object({
    id: Id,
    revision: Revision,
    type: string({ examples: ['task.submitted'] }),
    status: string(),
    attempt_id: optional(Id),
    at: Instant,
    details: optional(Payload),
  }),
);
export type TaskEvent = Infer<typeof TaskEvent>;

export const submitTask = defineRoute({
  id: 'submitTask',
  method: 'POST',
  path: '/queues/{queue}/tasks',
  scope: 'tasks:submit',
  tag: 'Tasks',
  operation: 'task.submit',
  summary: 'Submit a task (429 quota_exceeded / queue_full: retry later with the same key)',
  body: SubmitTaskInput,
  status: 201,
  answer: object({ task: Task }),
  errors: ['not_found', 'payload_too_large', 'quota_exceeded', 'queue_full', 'invalid_state'],
  example: {
    body: {
      input: { to: 'ada@example.com', amount: 12.5 },
      timeout: 'PT1H',
      retry: { max_attempts: 5, initial_interval: 'PT1S' },
      trace_key: 'order-42',
    },
  },
});

export const getTask = defineRoute({
  id: 'getTask',
  method: 'GET',
  path: '/tasks/{task}',
  scope: 'tasks:read',
  tag: 'Tasks',
  summary: 'Get a task',
  status: 200,
  answer: object({ task: Task }),
  errors: ['not_found'],
});

export const listTasks = defineRoute({
  id: 'listTasks',
  method: 'GET',
  path: '/tasks',
  scope: 'tasks:read',
  tag: 'Tasks',
  summary: 'List tasks by queue and status',
  query: { queue: Name, status: TaskStatus, ...PageQuery },
  status: 200,
  answer: page('TaskPage', Task),
  errors: [],
});

export const listTaskEvents = defineRoute({
  id: 'listTaskEvents',
  method: 'GET',
  path: '/tasks/{task}/events',
  scope: 'tasks:read',
  tag: 'Tasks',
  summary: "A task's raw status events, one per revision",
  status: 200,
  answer: object({ items: array(TaskEvent) }),
  errors: ['not_found'],
});

/**
 * Where a workflow task sits (issue 12 Deliver 6): its instance, step, activation and, for a
 * POLL query task, its round. Shown when the caller may also read the instance
 * (`workflows:read` and every queue of its pinned version, A3.6).
 */
export const WorkflowTaskSource = named(
  'WorkflowTaskSource',
  object({
    instance_id: Id,
    workflow: Name,
    version: integer({ minimum: 1 }),
    step_id: string({ maxLength: 64, examples: ['charge'] }),
    activation_id: Id,
    activation_number: integer({ minimum: 1 }),
    poll_round: optional(object({ id: Id, number: integer({ minimum: 1 }) })),
  }),
);
export type WorkflowTaskSource = Infer<typeof WorkflowTaskSource>;

export const TaskSource = named(
  'TaskSource',
  oneOf([
    object({ kind: literal(['submit']) }),
    object({ kind: literal(['schedule']), schedule: nullable(Name), slot_at: Instant }),
    object({
      kind: string({
        description: 'the owning kind of a workflow task: `workflow_activation`',
        examples: ['workflow_activation'],
      }),
      owner_id: nullable(Id),
      workflow: optional(WorkflowTaskSource),
    }),
  ]),
);
export type TaskSource = Infer<typeof TaskSource>;

export const getTaskSource = defineRoute({
  id: 'getTaskSource',
  method: 'GET',
  path: '/tasks/{task}/source',
  scope: 'tasks:read',
  tag: 'Tasks',
  summary:
    'Where the task came from: `submit`, `schedule` (name and slot), or its workflow owner ' +
    '(instance, step, activation, poll round)',
  status: 200,
  answer: object({ task_id: Id, source: TaskSource }),
  errors: ['not_found'],
});

export const cancelTask = defineRoute({
  id: 'cancelTask',
  method: 'POST',
  path: '/tasks/{task}/cancel',
  scope: 'tasks:submit',
  tag: 'Tasks',
  operation: 'task.cancel',
  summary: 'Cancel: pending tasks at once, running ones on their next heartbeat',
  status: 200,
  answer: TaskReceipt,
  errors: ['not_found', 'invalid_state'],
});

const Reason = string({ maxLength: MAX_REASON, examples: ['checked the mail log'] });

/** Body of `POST /tasks/{id}/review`. */
export const ReviewRequest = named(
  'ReviewRequest',
  oneOf([
    object({ action: literal(['succeed']), output: optional(Payload), reason: Reason }),
    object({
      action: literal(['fail']),
      error: object({ code: ErrorCodeText, message: optional(ErrorMessage) }),
      reason: Reason,
    }),
    object({ action: literal(['retry']), reason: Reason }),
  ]),
);
export type ReviewRequest = Infer<typeof ReviewRequest>;

export const reviewTask = defineRoute({
  id: 'reviewTask',
  method: 'POST',
  path: '/tasks/{task}/review',
  scope: 'tasks:review',
  tag: 'Tasks',
  operation: 'task.review',
  summary: 'Resolve a NEEDS_REVIEW task: succeed (with output), fail, or retry',
  body: ReviewRequest,
  status: 200,
  answer: TaskReceipt,
  errors: ['not_found', 'invalid_state', 'payload_too_large'],
  example: { body: { action: 'succeed', output: { sent: true }, reason: 'checked the mail log' } },
});

export { ErrorCodeText, ErrorMessage, Reason };
