/**
 * Workflow instances (API.md "Weave", docs/design/runtime.md §2 and §6): Start, Get and the read
 * views (Steps, step detail, history). Start takes `workflows:start` (plus `tasks:submit` and
 * scope over every queue when the version has business tasks); every read takes
 * `workflows:read` plus scope over every queue of the pinned version (A3.6).
 */
import { ID_PATTERN, Id, Instant, Name, PageQuery, Payload, Revision, page } from './common.js';
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
  string,
} from './schema.js';
import { TaskStatus } from './tasks.js';

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

/** An instance in a list: the Get view without input, output and error (issue 12 Deliver 4). */
export const InstanceSummary = named(
  'InstanceSummary',
  object({
    id: Id,
    workflow: Name,
    version: integer({ minimum: 1 }),
    status: literal(INSTANCE_STATUSES),
    revision: Revision,
    business_key: nullable(string({ maxLength: MAX_BUSINESS_KEY })),
    created_at: Instant,
    finished_at: optional(Instant),
    paused: boolean(),
    deadline_at: Instant,
  }),
);
export type InstanceSummary = Infer<typeof InstanceSummary>;

/** At most this many statuses in one `status` filter (there are eight). */
export const MAX_STATUS_FILTER = INSTANCE_STATUSES.length;

export const listInstances = defineRoute({
  id: 'listInstances',
  method: 'GET',
  path: '/instances',
  scope: 'workflows:read',
  tag: 'Instances',
  summary:
    'Instances newest first, filtered by workflow, version, status, business key and creation time',
  description:
    'Ordered by `created_at` then `id`, both descending (newest first); the page token is the ' +
    '(created_at, id) of the last item, so a walk returns every instance that existed when it ' +
    'began exactly once while new ones are started (they may or may not appear, never twice). ' +
    'Status filters are evaluated when each page is read. Instances whose pinned version uses a ' +
    'queue the credential may not use are not listed (A3.6). Each filter is served by an index.',
  query: {
    workflow: Name,
    version: integer({ minimum: 1, description: 'needs `workflow`' }),
    status: string({
      description: 'an instance status, or several separated by commas',
      examples: ['RUNNING,WAITING'],
    }),
    business_key: string({
      maxLength: MAX_BUSINESS_KEY,
      description: 'exact: case and trailing spaces count',
    }),
    created_after: string({
      format: 'date-time',
      description: 'created strictly after (RFC 3339)',
    }),
    created_before: string({
      format: 'date-time',
      description: 'created strictly before (RFC 3339)',
    }),
    ...PageQuery,
  },
  status: 200,
  answer: page('InstancePage', InstanceSummary),
  errors: [],
});

/** The step kinds a view shows (`$root`, kind ROOT, is never shown: A3.3). */
export const STEP_KINDS = ['TASK', 'BRANCH', 'PARALLEL', 'SIGNAL', 'TIMER', 'POLL'] as const;
/** The engine's step statuses (docs/design/engine.md "Statuses by kind"). */
export const STEP_STATUSES = [
  'PENDING',
  'ACTIVE',
  'WAITING',
  'SUCCEEDED',
  'FAILED',
  'SKIPPED',
  'NEEDS_REVIEW',
  'CANCELLED',
] as const;
export const ACTIVATION_STATUSES = [
  'ACTIVE',
  'WAITING',
  'SUCCEEDED',
  'FAILED',
  'CANCELLED',
  'NEEDS_REVIEW',
  'SUPERSEDED',
] as const;
export const WAIT_PURPOSES = ['TIMER', 'SIGNAL', 'POLL_SIGNAL', 'POLL_DEADLINE'] as const;
export const WAIT_STATES = ['WAITING', 'FIRED', 'EXPIRED', 'MATCHED', 'CANCELLED'] as const;
export const POLL_ROUND_STATES = ['SCHEDULED', 'RUNNING', 'DONE', 'CANCELLED'] as const;
export const ATTEMPT_STATUSES = [
  'CLAIMED',
  'RUNNING',
  'SUCCEEDED',
  'FAILED',
  'NEEDS_REVIEW',
  'CANCELLED',
  'VOID',
  'EXPIRED',
] as const;

/** A definition has at most 128 steps; Steps lists them all (A3.3). */
export const MAX_VIEW_STEPS = 128;
/** Step detail shows a step's latest 100 activations. */
export const MAX_VIEW_ACTIVATIONS = 100;
export const MAX_HISTORY_LIMIT = 1000;
export const DEFAULT_HISTORY_LIMIT = 100;

const StepKind = literal(STEP_KINDS);
const StepStatus = literal(STEP_STATUSES);
const StepId = string({ maxLength: 64, examples: ['charge'] });

export const StepSummary = named(
  'StepSummary',
  object({
    id: StepId,
    kind: StepKind,
    status: StepStatus,
    activation_id: optional(Id),
    task_id: optional(
      string({
        pattern: ID_PATTERN,
        description: "a TASK's task; a POLL's current round's query task",
      }),
    ),
  }),
);
export type StepSummary = Infer<typeof StepSummary>;

export const InstanceSteps = named(
  'InstanceSteps',
  object({
    revision: Revision,
    steps: array(StepSummary, { maxItems: MAX_VIEW_STEPS }),
  }),
);
export type InstanceSteps = Infer<typeof InstanceSteps>;

export const TaskAttempt = named(
  'TaskAttempt',
  object({
    id: Id,
    number: integer({ minimum: 1 }),
    status: literal(ATTEMPT_STATUSES),
    worker_id: string(),
    claimed_at: Instant,
    lease_until: Instant,
    started_at: optional(Instant),
    finished_at: optional(Instant),
    error_code: optional(string()),
  }),
);
export type TaskAttempt = Infer<typeof TaskAttempt>;

export const ActivationTask = named(
  'ActivationTask',
  object({
    id: Id,
    status: TaskStatus,
    revision: Revision,
    attempts: array(TaskAttempt),
  }),
);
export type ActivationTask = Infer<typeof ActivationTask>;

export const PollRound = named(
  'PollRound',
  object({
    number: integer({ minimum: 1 }),
    state: literal(POLL_ROUND_STATES),
    due_at: Instant,
    task_id: optional(Id),
    classification: optional(string({ examples: ['PENDING'] })),
  }),
);
export type PollRound = Infer<typeof PollRound>;

export const ActivationWait = named(
  'ActivationWait',
  object({
    purpose: literal(WAIT_PURPOSES),
    state: literal(WAIT_STATES),
    due_at: Instant,
    signal_name: optional(string()),
  }),
);
export type ActivationWait = Infer<typeof ActivationWait>;

export const StepActivation = named(
  'StepActivation',
  object({
    id: Id,
    number: integer({ minimum: 1 }),
    status: literal(ACTIVATION_STATUSES),
    input: optional(Payload),
    task: optional(ActivationTask),
    poll: optional(
      object({
        max_rounds: integer({ minimum: 1 }),
        used_rounds: integer({ minimum: 0 }),
        deadline_at: Instant,
        rounds: array(PollRound),
      }),
    ),
    waits: array(ActivationWait),
    created_at: Instant,
    finished_at: optional(Instant),
  }),
);
export type StepActivation = Infer<typeof StepActivation>;

export const StepDetail = named(
  'StepDetail',
  object({
    id: StepId,
    kind: StepKind,
    status: StepStatus,
    revision: Revision,
    output: optional(Payload),
    error: optional(object({ code: string(), message: string() })),
    case_index: optional(integer({ minimum: 0 })),
    activations: array(StepActivation, { maxItems: MAX_VIEW_ACTIVATIONS }),
  }),
);
export type StepDetail = Infer<typeof StepDetail>;

const Seq = string({ pattern: ID_PATTERN, description: 'decimal string', examples: ['3'] });

export const HistoryEvent = named(
  'HistoryEvent',
  object({
    seq: Seq,
    type: string({ examples: ['step.activated'] }),
    at: Instant,
    revision: Revision,
    step_id: optional(StepId),
    activation_id: optional(Id),
    task_id: optional(Id),
    round_id: optional(Id),
    details: optional(Payload),
  }),
);
export type HistoryEvent = Infer<typeof HistoryEvent>;

export const HistoryPage = named(
  'HistoryPage',
  object({
    events: array(HistoryEvent),
    next_after: string({
      pattern: ID_PATTERN,
      description: 'the last seq of this page (the `after` given when the page is empty)',
    }),
  }),
);
export type HistoryPage = Infer<typeof HistoryPage>;

export const listInstanceSteps = defineRoute({
  id: 'listInstanceSteps',
  method: 'GET',
  path: '/instances/{instance}/steps',
  scope: 'workflows:read',
  tag: 'Instances',
  summary: 'Every step of an instance (metadata only) and the revision of the same read',
  description:
    'At most 128 rows in document order: id, kind, status, current activation and task. ' +
    'No inputs or outputs; `$root` is never shown.',
  status: 200,
  answer: InstanceSteps,
  errors: ['not_found'],
});

export const getInstanceStep = defineRoute({
  id: 'getInstanceStep',
  method: 'GET',
  path: '/instances/{instance}/steps/{step}',
  scope: 'workflows:read',
  tag: 'Instances',
  summary:
    "One step's detail: output, error, activations with their input, task, attempts, " +
    'poll rounds and waits',
  status: 200,
  answer: StepDetail,
  errors: ['not_found'],
});

export const listInstanceHistory = defineRoute({
  id: 'listInstanceHistory',
  method: 'GET',
  path: '/instances/{instance}/history',
  scope: 'workflows:read',
  tag: 'Instances',
  summary: "An instance's events after the cursor `after`, in seq order",
  query: {
    after: string({ pattern: ID_PATTERN, description: 'a seq; default 0 (from the first)' }),
    limit: integer({ minimum: 1, maximum: MAX_HISTORY_LIMIT, description: 'default 100' }),
  },
  status: 200,
  answer: HistoryPage,
  errors: ['not_found'],
});
