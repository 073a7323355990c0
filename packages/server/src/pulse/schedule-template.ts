/**
 * The task template of a schedule, frozen at creation as JSON text (`schedules.task_template`):
 * every submit field already validated and resolved to internal units, so a firing years later
 * submits exactly what was accepted, without re-parsing the original request. There is no
 * absolute `deadline_at` in a template: each firing gets `now + timeout` (or the default).
 */
import type { JsonObject, JsonValue } from '@weave/json';
import { isJsonNumber, parse, stringify } from '@weave/json';
import type { RetryPolicy } from './retry-policy.js';
import type { SubmitInput } from './submit-task.js';

export type TaskTemplate = Omit<SubmitInput, 'namespaceId' | 'queueName' | 'deadlineAt'>;

export function encodeTemplate(t: TaskTemplate): string {
  return stringify({
    input: { kind: 'raw', text: t.input },
    idempotent: t.idempotent,
    priority: t.priority,
    timeout_us: t.timeoutUs?.toString(),
    attempt_timeout_us: t.attemptTimeoutUs?.toString(),
    retry: {
      max_attempts: t.retry.maxAttempts,
      initial_interval_us: t.retry.initialIntervalUs.toString(),
      backoff_coefficient: { kind: 'number', text: t.retry.backoffCoefficient },
      max_interval_us: t.retry.maxIntervalUs.toString(),
      non_retryable_codes: t.retry.nonRetryableCodes,
    },
    trace_key: t.traceKey,
    resource_key: t.resourceKey,
    result_stream: t.resultStream,
  });
}

/** Decodes text this module wrote; anything else is a broken invariant, not user input. */
export function decodeTemplate(text: string): TaskTemplate {
  const obj = parse(text) as JsonObject;
  const retry = obj.get('retry') as JsonObject;
  return {
    input: stringify(obj.get('input') ?? null),
    idempotent: obj.get('idempotent') === true,
    priority: Number(numberText(obj.get('priority'))),
    timeoutUs: optionalMicros(obj.get('timeout_us')),
    attemptTimeoutUs: optionalMicros(obj.get('attempt_timeout_us')),
    retry: decodeRetry(retry),
    traceKey: optionalString(obj.get('trace_key')),
    resourceKey: optionalString(obj.get('resource_key')),
    resultStream: optionalString(obj.get('result_stream')),
  };
}

function decodeRetry(retry: JsonObject): RetryPolicy {
  return {
    maxAttempts: Number(numberText(retry.get('max_attempts'))),
    initialIntervalUs: BigInt(retry.get('initial_interval_us') as string),
    backoffCoefficient: numberText(retry.get('backoff_coefficient')),
    maxIntervalUs: BigInt(retry.get('max_interval_us') as string),
    nonRetryableCodes: retry.get('non_retryable_codes') as string[],
  };
}

function numberText(value: JsonValue | undefined): string {
  if (!isJsonNumber(value)) {
    throw new Error('schedule template: a number field holds something else');
  }
  return value.text;
}

function optionalMicros(value: JsonValue | undefined): bigint | undefined {
  return typeof value === 'string' ? BigInt(value) : undefined;
}

function optionalString(value: JsonValue | undefined): string | undefined {
  return typeof value === 'string' ? value : undefined;
}
