/**
 * Instance controls (API.md "Weave", docs/design/controls.md): pause, resume and cancel, each
 * `workflows:control` plus scope over every queue of the pinned version, idempotent (a repeat
 * changes nothing and says so; an `Idempotency-Key` replays the first answer), optionally
 * guarded by `expected_revision`, audited and in the instance history.
 */
import { Revision } from './common.js';
import { defineRoute } from './contract.js';
import { Instance } from './instances.js';
import type { Infer } from './schema.js';
import { boolean, named, object, optional, string } from './schema.js';

/** A control's reason, kept in the history and the audit (characters). */
export const MAX_CONTROL_REASON = 512;

export const ControlRequest = named(
  'ControlRequest',
  object({
    expected_revision: optional(Revision),
    reason: optional(string({ maxLength: MAX_CONTROL_REASON, examples: ['customer asked'] })),
  }),
);
export type ControlRequest = Infer<typeof ControlRequest>;

export const ControlAnswer = named(
  'ControlAnswer',
  object({
    instance: Instance,
    changed: boolean({
      description: 'false when the instance already was so (a repeated control changes nothing)',
    }),
  }),
);
export type ControlAnswer = Infer<typeof ControlAnswer>;

const ERRORS = ['not_found', 'invalid_state', 'revision_mismatch'] as const;

function control(
  id: string,
  action: 'pause' | 'resume' | 'cancel',
  summary: string,
  description: string,
) {
  return defineRoute({
    id,
    method: 'POST',
    path: `/instances/{instance}/${action}`,
    scope: 'workflows:control',
    tag: 'Instances',
    operation: `workflow.${action}`,
    summary,
    description,
    body: ControlRequest,
    bodyOptional: true,
    status: 200,
    answer: ControlAnswer,
    errors: ERRORS,
    example: { body: { reason: 'maintenance' } },
  });
}

export const pauseInstance = control(
  'pauseInstance',
  'pause',
  'Pause an instance: no new work starts until it is resumed',
  'Tasks already created run on and their results are recorded; a TIMER that falls due is ' +
    'recorded and its successors start at the resume; POLL rounds wait. A cancel or the ' +
    'instance deadline still ends a paused instance.',
);

export const resumeInstance = control(
  'resumeInstance',
  'resume',
  'Resume a paused instance: it plans at once',
  'Everything held by the pause (successors of steps that finished meanwhile, due POLL ' +
    'rounds) starts in the same transaction.',
);

export const cancelInstance = control(
  'cancelInstance',
  'cancel',
  'Cancel an instance: CANCELLING until its in-flight work settles, then CANCELLED',
  'Pending tasks are cancelled, running ones are told at their next heartbeat, waits are ' +
    'closed; the outcome `instance.cancelled` is appended to the result stream when the last ' +
    'in-flight result has settled.',
);
