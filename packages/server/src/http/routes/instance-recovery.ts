/**
 * Manual recovery of a step (API.md "Weave": `POST /instances/{id}/steps/{step}/retry|resolve|
 * fail`, scope `workflows:control` plus scope over every queue of the pinned version). One
 * transaction per request (`weave/recovery/recover-step.ts`), audited with the operator's
 * reason; an `Idempotency-Key` replays the first answer (the contract's `operation`).
 */
import type { JsonObject, JsonValue } from '@weave/json';
import { stringify, utf8ByteLength } from '@weave/json';
import { recovery, tasks } from '@weave/sdk/protocol';
import { writeAudit } from '../../auth/audit.js';
import { WeaveError, invalidArgument } from '../../errors.js';
import { MAX_RESULT_BYTES } from '../../pulse/complete-attempt.js';
import { MAX_INPUT_BYTES } from '../../pulse/submit-task.js';
import { readInstance, requireInstanceQueues } from '../../weave/instance/read-instance.js';
import { recoverStep } from '../../weave/recovery/recover-step.js';
import type { RecoveryAction } from '../../weave/recovery/recover-step.js';
import { expectObject, readString, rejectUnknown, requireString } from '../fields.js';
import { instanceView } from '../instance-views.js';
import { route } from '../route.js';
import type { RouteContext } from '../route.js';

interface Parsed {
  readonly recovery: RecoveryAction;
  readonly reason: string;
  readonly expectedRevision?: bigint;
}

/** A payload checked like a task input or result: exact JSON, at most 256 KiB as compact text. */
function boundedPayload(value: JsonValue, path: string, limit: number): JsonValue {
  const bytes = utf8ByteLength(stringify(value));
  if (bytes > limit) {
    throw new WeaveError('payload_too_large', `${path} is ${bytes} bytes, over the limit`, {
      details: { path, limit },
    });
  }
  return value;
}

function common(obj: JsonObject, members: readonly string[]) {
  rejectUnknown(obj, [...members, 'reason', 'expected_revision']);
  const reason = requireString(obj, 'reason', { maxLength: tasks.MAX_REASON });
  if (reason.trim() === '') {
    throw invalidArgument('$.reason', 'must not be empty (it is audited)');
  }
  const revision = readString(obj, 'expected_revision', { pattern: /^[0-9]{1,19}$/ });
  return { reason, ...(revision === undefined ? {} : { expectedRevision: BigInt(revision) }) };
}

function parseRetry(body: JsonValue | undefined): Parsed {
  const obj = expectObject(body);
  const rest = common(obj, ['input']);
  const input = obj.get('input');
  return {
    ...rest,
    recovery:
      input === undefined
        ? { action: 'retry' }
        : { action: 'retry', input: boundedPayload(input, '$.input', MAX_INPUT_BYTES) },
  };
}

function parseResolve(body: JsonValue | undefined): Parsed {
  const obj = expectObject(body);
  const rest = common(obj, ['output']);
  const output = obj.get('output');
  if (output === undefined) {
    throw invalidArgument('$.output', 'is required (the step output, JSON)');
  }
  return {
    ...rest,
    recovery: { action: 'resolve', output: boundedPayload(output, '$.output', MAX_RESULT_BYTES) },
  };
}

function parseFail(body: JsonValue | undefined): Parsed {
  const obj = expectObject(body);
  const rest = common(obj, ['error']);
  const error = expectObject(obj.get('error'), '$.error');
  rejectUnknown(error, ['code', 'message'], '$.error');
  const code = requireString(error, 'code', { path: '$.error', pattern: tasks.ERROR_CODE_PATTERN });
  const message =
    readString(error, 'message', { path: '$.error', maxLength: tasks.MAX_ERROR_MESSAGE }) ?? '';
  return { ...rest, recovery: { action: 'fail', error: { code, message } } };
}

async function recover(ctx: RouteContext, parsed: Parsed) {
  const ns = ctx.principal.namespaceId;
  const instanceId = ctx.params.instance ?? '';
  const stepId = ctx.params.step ?? '';
  // The caller must be able to see the instance (its queues) before anything is told about it.
  requireInstanceQueues(ctx.principal, await readInstance(ctx.tx, ns, instanceId));
  const done = await recoverStep(ctx.tx, {
    namespaceId: ns,
    instanceId,
    stepId,
    recovery: parsed.recovery,
    reason: parsed.reason,
    ...(parsed.expectedRevision === undefined ? {} : { expectedRevision: parsed.expectedRevision }),
  });
  await writeAudit(ctx.tx, {
    namespaceId: ns,
    credentialId: ctx.principal.credentialId,
    action: `instance.step_${parsed.recovery.action}`,
    outcome: 'ok',
    objectType: 'instance',
    objectId: done.instanceId,
    requestId: ctx.requestId,
    details: stringify({
      step_id: stepId,
      reason: parsed.reason,
      ...(parsed.recovery.action === 'retry'
        ? { corrected_input: parsed.recovery.input !== undefined }
        : {}),
      ...(parsed.recovery.action === 'fail' ? { error_code: parsed.recovery.error.code } : {}),
    }),
  });
  for (const queueId of done.queueIds) {
    ctx.tx.afterCommit(() => ctx.notifier.notify(queueId, 1));
  }
  const read = await readInstance(ctx.tx, ns, done.instanceId);
  return {
    body: {
      instance: instanceView(read),
      ...(done.activationId === null ? {} : { activation_id: done.activationId }),
      ...(done.taskId === null ? {} : { task_id: done.taskId }),
    },
  };
}

export const instanceRecoveryRoutes = [
  route(recovery.retryInstanceStep, { parse: parseRetry, handle: recover }),
  route(recovery.resolveInstanceStep, { parse: parseResolve, handle: recover }),
  route(recovery.failInstanceStep, { parse: parseFail, handle: recover }),
];
