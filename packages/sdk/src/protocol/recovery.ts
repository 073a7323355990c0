/**
 * Manual recovery of a step (API.md "Weave", issue 12 Deliver 3, seed 000 §4 item 6): retry a
 * FAILED or NEEDS_REVIEW TASK/POLL as a new activation (optionally with a corrected input),
 * resolve a TASK/POLL/SIGNAL with an operator-given output, or fail a NEEDS_REVIEW one. A FAILED
 * instance is recovered the same way and is RUNNING again. Scope `workflows:control` plus scope
 * over every queue of the pinned version; every call takes a `reason` (audited, in the history)
 * and an optional `expected_revision`.
 */
import { Id, Payload, Revision } from './common.js';
import { defineRoute } from './contract.js';
import type { Infer } from './schema.js';
import { named, object, optional } from './schema.js';
import { Instance } from './instances.js';
import { ErrorCodeText, ErrorMessage, Reason } from './tasks.js';

export const RetryStepRequest = named(
  'RetryStepRequest',
  object({
    input: optional(Payload),
    reason: Reason,
    expected_revision: optional(Revision),
  }),
);
export type RetryStepRequest = Infer<typeof RetryStepRequest>;

export const ResolveStepRequest = named(
  'ResolveStepRequest',
  object({ output: Payload, reason: Reason, expected_revision: optional(Revision) }),
);
export type ResolveStepRequest = Infer<typeof ResolveStepRequest>;

export const FailStepRequest = named(
  'FailStepRequest',
  object({
    error: object({ code: ErrorCodeText, message: optional(ErrorMessage) }),
    reason: Reason,
    expected_revision: optional(Revision),
  }),
);
export type FailStepRequest = Infer<typeof FailStepRequest>;

export const RecoveryAnswer = named(
  'RecoveryAnswer',
  object({
    instance: Instance,
    activation_id: optional(Id),
    task_id: optional(Id),
  }),
);
export type RecoveryAnswer = Infer<typeof RecoveryAnswer>;

const ERRORS = [
  'not_found',
  'invalid_state',
  'revision_mismatch',
  'payload_too_large',
  'quota_exceeded',
  'queue_full',
] as const;

export const retryInstanceStep = defineRoute({
  id: 'retryInstanceStep',
  method: 'POST',
  path: '/instances/{instance}/steps/{step}/retry',
  scope: 'workflows:control',
  tag: 'Instances',
  operation: 'instance.step_retry',
  summary:
    'Retry a FAILED or NEEDS_REVIEW TASK/POLL step, or a timed-out SIGNAL, as a new activation',
  description:
    'The old activation stays in the history and the step detail. `input` replaces the ' +
    "definition's resolved input (≤ 256 KiB, exact JSON). The instance deadline is kept; a POLL " +
    'keeps its used rounds and deadline. A FAILED instance becomes RUNNING again; steps its ' +
    'failure cancelled run again. 409 `invalid_state` past the deadline, for a step in another ' +
    'state, or when another failed step would fail the scope again.',
  body: RetryStepRequest,
  status: 200,
  answer: RecoveryAnswer,
  errors: ERRORS,
  example: { body: { input: { amount: 1500 }, reason: 'corrected the amount' } },
});

export const resolveInstanceStep = defineRoute({
  id: 'resolveInstanceStep',
  method: 'POST',
  path: '/instances/{instance}/steps/{step}/resolve',
  scope: 'workflows:control',
  tag: 'Instances',
  operation: 'instance.step_resolve',
  summary: 'Resolve a FAILED or NEEDS_REVIEW TASK/POLL/SIGNAL step with an operator-given output',
  description:
    'The output is validated like a task result (≤ 256 KiB, exact JSON); a POLL output must ' +
    'classify as SUCCEEDED. The instance continues from there.',
  body: ResolveStepRequest,
  status: 200,
  answer: RecoveryAnswer,
  errors: ERRORS,
  example: { body: { output: { sent: true }, reason: 'checked the mail log' } },
});

export const failInstanceStep = defineRoute({
  id: 'failInstanceStep',
  method: 'POST',
  path: '/instances/{instance}/steps/{step}/fail',
  scope: 'workflows:control',
  tag: 'Instances',
  operation: 'instance.step_fail',
  summary: 'Fail a NEEDS_REVIEW TASK/POLL step; its scope fails as after any failure',
  body: FailStepRequest,
  status: 200,
  answer: RecoveryAnswer,
  errors: ERRORS,
  example: { body: { error: { code: 'not_sent' }, reason: 'the mail never left' } },
});
