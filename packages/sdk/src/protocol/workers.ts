/**
 * The worker protocol (API.md "Pulse", scope `tasks:work`): claim (long-poll), start, heartbeat,
 * complete, and many completions in one call. The permit is checked on every call.
 */
import { ErrorDetail, Id, Instant, Payload } from './common.js';
import { defineRoute } from './contract.js';
import type { Infer, Members } from './schema.js';
import {
  array,
  boolean,
  integer,
  literal,
  named,
  object,
  oneOf,
  optional,
  string,
} from './schema.js';
import { ErrorCodeText, ErrorMessage, TaskReceipt, receiptMembers } from './tasks.js';

/** Worker ids: visible ASCII, no spaces. */
export const WORKER_ID_PATTERN = /^[\x21-\x7e]{1,200}$/;
export const MAX_CLAIM_TASKS = 100;
export const MAX_WAIT_MS = 30_000;
export const MAX_BATCH_COMPLETIONS = 100;
export const MAX_PERMIT_LENGTH = 200;
/**
 * Longest result of an attempt, in UTF-8 bytes of its compact JSON text as the server writes it
 * (the server's pulse/complete-attempt.ts, which refuses more with `payload_too_large`).
 */
export const MAX_RESULT_BYTES = 256 * 1024;

const WorkerId = string({ pattern: WORKER_ID_PATTERN, examples: ['worker-1'] });
const Permit = string({ minLength: 1, maxLength: MAX_PERMIT_LENGTH, examples: ['p_3kq…'] });
const MaxTasks = integer({ minimum: 1, maximum: MAX_CLAIM_TASKS, description: 'default 1' });
const Start = boolean({
  description:
    'start the claimed attempts in the same transaction (default false): no start call; if ' +
    'the answer is lost they are started all the same, and their effect counts as uncertain ' +
    'when the lease ends',
});

/** A task handed to a worker by a claim; `permit` is shown only here. */
export const ClaimedTask = named(
  'ClaimedTask',
  object({
    task_id: Id,
    attempt_id: Id,
    permit: string(),
    lease_expires_at: Instant,
    deadline_at: Instant,
    input: Payload,
    attempt_number: integer({ minimum: 1 }),
    trace_key: optional(string()),
    resource_key: optional(string()),
    idempotent: boolean(),
  }),
);
export type ClaimedTask = Infer<typeof ClaimedTask>;

export const ClaimRequest = named(
  'ClaimRequest',
  object({
    worker_id: WorkerId,
    max_tasks: optional(MaxTasks),
    wait_ms: optional(
      integer({ minimum: 0, maximum: MAX_WAIT_MS, description: 'long-poll (default 0)' }),
    ),
    start: optional(Start),
  }),
);
export type ClaimRequest = Infer<typeof ClaimRequest>;

const ClaimAnswer = object({ tasks: array(ClaimedTask) });

export const claimTasks = defineRoute({
  id: 'claimTasks',
  method: 'POST',
  path: '/queues/{queue}/claims',
  scope: 'tasks:work',
  tag: 'Workers',
  summary: 'Claim up to max_tasks tasks, waiting up to wait_ms for one to arrive',
  description:
    'An empty list after `wait_ms`. With `start: true` the attempts are started in the same ' +
    'transaction (no start call per task).',
  body: ClaimRequest,
  status: 200,
  answer: ClaimAnswer,
  errors: ['not_found'],
  longPoll: true,
  example: {
    body: { worker_id: 'worker-1', max_tasks: 10, wait_ms: 20000 },
    answer: {
      tasks: [
        {
          task_id: '42',
          attempt_id: '57',
          permit: 'p_3kq…',
          lease_expires_at: '2026-11-29T20:30:41.123456Z',
          deadline_at: '2026-11-30T20:30:11.123456Z',
          input: { to: 'ada@example.com' },
          attempt_number: 1,
          idempotent: false,
        },
      ],
    },
  },
});

const PermitBody = object({ permit: Permit });

export const startAttempt = defineRoute({
  id: 'startAttempt',
  method: 'POST',
  path: '/tasks/{task}/attempts/{attempt}/start',
  scope: 'tasks:work',
  tag: 'Workers',
  summary: 'Declare that side effects begin (a paused queue refuses)',
  body: PermitBody,
  status: 200,
  answer: TaskReceipt,
  errors: ['not_found', 'permit_stale', 'invalid_state'],
});

export const HeartbeatAnswer = named(
  'HeartbeatAnswer',
  object({ lease_expires_at: Instant, cancel_requested: boolean() }),
);
export type HeartbeatAnswer = Infer<typeof HeartbeatAnswer>;

export const heartbeatAttempt = defineRoute({
  id: 'heartbeatAttempt',
  method: 'POST',
  path: '/tasks/{task}/attempts/{attempt}/heartbeat',
  scope: 'tasks:work',
  tag: 'Workers',
  summary: 'Extend the lease (never past the deadline); reports cancel_requested',
  body: PermitBody,
  status: 200,
  answer: HeartbeatAnswer,
  errors: ['not_found', 'permit_stale'],
});

const TaskErrorInput = object({
  code: ErrorCodeText,
  message: optional(ErrorMessage),
  retryable: optional(boolean({ description: 'default true' })),
});

/** The three outcomes of an attempt, each with the members it allows. */
function outcomes<const M extends Members>(extra: M) {
  return [
    object({ ...extra, outcome: literal(['succeeded']), result: optional(Payload) }),
    object({ ...extra, outcome: literal(['failed']), error: TaskErrorInput }),
    object({ ...extra, outcome: literal(['needs_review']), error: optional(TaskErrorInput) }),
  ] as const;
}

export const Completion = named('Completion', oneOf(outcomes({})));
export type Completion = Infer<typeof Completion>;

export const CompleteRequest = named('CompleteRequest', oneOf(outcomes({ permit: Permit })));
export type CompleteRequest = Infer<typeof CompleteRequest>;

export const completeAttempt = defineRoute({
  id: 'completeAttempt',
  method: 'POST',
  path: '/tasks/{task}/attempts/{attempt}/complete',
  scope: 'tasks:work',
  tag: 'Workers',
  summary: 'Report succeeded, failed or needs_review; a re-sent identical completion replays',
  body: CompleteRequest,
  status: 200,
  answer: TaskReceipt,
  errors: ['not_found', 'permit_stale', 'invalid_state', 'payload_too_large'],
  example: {
    body: { permit: 'p_3kq…', outcome: 'succeeded', result: { sent: true } },
    answer: { task_id: '42', attempt_id: '57', revision: '4', status: 'SUCCEEDED' },
  },
});

export const BatchCompletionRequest = named(
  'BatchCompletionRequest',
  object({
    completions: optional(
      array(oneOf(outcomes({ task_id: Id, attempt_id: Id, permit: Permit })), {
        maxItems: MAX_BATCH_COMPLETIONS,
        description: 'each item whole or nothing on its own',
      }),
    ),
    claim: optional(
      object({ worker_id: WorkerId, max_tasks: optional(MaxTasks), start: optional(Start) }),
    ),
  }),
);
export type BatchCompletionRequest = Infer<typeof BatchCompletionRequest>;

export const BatchCompletionAnswer = named(
  'BatchCompletionAnswer',
  object({
    receipts: array(object({ index: integer({ minimum: 0 }), ...receiptMembers })),
    errors: array(object({ index: integer({ minimum: 0 }), error: ErrorDetail })),
    tasks: array(ClaimedTask),
  }),
);
export type BatchCompletionAnswer = Infer<typeof BatchCompletionAnswer>;

export const completeMany = defineRoute({
  id: 'completeMany',
  method: 'POST',
  path: '/queues/{queue}/completions',
  scope: 'tasks:work',
  tag: 'Workers',
  summary: 'Many completions in one call (each whole or nothing), optionally claiming more',
  description:
    'A bad item is refused on its own (in `errors`, by index) and never blocks the others; ' +
    '`claim.start: true` starts the claimed attempts in the same transaction, as on claims.',
  body: BatchCompletionRequest,
  status: 200,
  answer: BatchCompletionAnswer,
  errors: ['not_found'],
  example: {
    body: {
      completions: [
        { task_id: '42', attempt_id: '57', permit: 'p_3kq…', outcome: 'succeeded', result: 1 },
      ],
      claim: { worker_id: 'worker-1', max_tasks: 6, start: true },
    },
  },
});
