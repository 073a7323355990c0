import type { JsonValue } from '@weave/json';
import { utf8ByteLength } from '@weave/json';
import { LIMITS } from './limits.js';
import { evaluateCondition } from './condition-eval.js';
import type { ActivateDecision, SignalParameters, StepFailure } from './decisions.js';
import { serializedSize } from './json-value.js';
import type { BranchNode, PollNode, SignalSpec, StepNode, TaskNode } from './model.js';
import type { ReadContext } from './template-eval.js';
import { evaluateTemplate } from './template-eval.js';
import type { Template } from './template.js';

/**
 * Builds the ACTIVATE decision of one step from the round's data, after the data checks of its
 * kind: constructions resolve (E3.13), a task input fits Pulse's bound, keys and correlations
 * are strings within their byte bounds (E3.6, E3.7). A breach is a value, `{ ok: false }`, that
 * the planner turns into a FAIL of the step: the data, not the snapshot, is at fault.
 */
export type Activation =
  | { readonly ok: true; readonly decision: ActivateDecision }
  | { readonly ok: false; readonly failure: StepFailure };

type Result<T> =
  { readonly ok: true; readonly value: T } | { readonly ok: false; readonly failure: StepFailure };

export function activateLeaf(node: StepNode, context: ReadContext): Activation {
  switch (node.kind) {
    case 'TASK':
      return activateTask(node, context);
    case 'SIGNAL': {
      const signal = resolveSignal(node, context);
      if (!signal.ok) {
        return signal;
      }
      const timeout = node.timeoutMs === undefined ? {} : { timeoutMs: node.timeoutMs };
      return {
        ok: true,
        decision: {
          kind: 'ACTIVATE',
          stepId: node.id,
          node: 'SIGNAL',
          ...signal.value,
          ...timeout,
        },
      };
    }
    case 'TIMER':
      return {
        ok: true,
        decision: { kind: 'ACTIVATE', stepId: node.id, node: 'TIMER', durationMs: node.durationMs },
      };
    case 'POLL':
      return activatePoll(node, context);
    default:
      throw new RangeError(`${node.kind} is not a leaf`);
  }
}

function activateTask(node: TaskNode, context: ReadContext): Activation {
  const input = resolveInput(node.input, context);
  const traceKey = resolveKey(node.traceKey, 'trace key', context);
  const resourceKey = resolveKey(node.resourceKey, 'resource key', context);
  for (const result of [input, traceKey, resourceKey]) {
    if (!result.ok) {
      return result;
    }
  }
  const retry = { ...node.retry, nonRetryableCodes: [...node.retry.nonRetryableCodes] };
  const decision: ActivateDecision = {
    kind: 'ACTIVATE',
    stepId: node.id,
    node: 'TASK',
    queue: node.queue,
    input: (input as { value: JsonValue }).value,
    ...(node.timeoutMs === undefined ? {} : { timeoutMs: node.timeoutMs }),
    retry,
    idempotent: node.idempotent,
    ...optionalKey('traceKey', traceKey),
    ...optionalKey('resourceKey', resourceKey),
  };
  return { ok: true, decision };
}

function activatePoll(node: PollNode, context: ReadContext): Activation {
  const input = resolveInput(node.input, context);
  if (!input.ok) {
    return input;
  }
  let finalSignal: { finalSignal?: SignalParameters } = {};
  if (node.finalSignal !== undefined) {
    const signal = resolveSignal(node.finalSignal, context);
    if (!signal.ok) {
      return signal;
    }
    finalSignal = { finalSignal: signal.value };
  }
  const decision: ActivateDecision = {
    kind: 'ACTIVATE',
    stepId: node.id,
    node: 'POLL',
    queue: node.queue,
    input: input.value,
    intervalMs: node.intervalMs,
    maxRounds: node.maxRounds,
    timeoutMs: node.timeoutMs,
    ...(node.taskTimeoutMs === undefined ? {} : { taskTimeoutMs: node.taskTimeoutMs }),
    ...finalSignal,
  };
  return { ok: true, decision };
}

function resolveInput(template: Template, context: ReadContext): Result<JsonValue> {
  const result = evaluateTemplate(template, context);
  if (!result.ok) {
    return { ok: false, failure: { code: result.code, message: result.message } };
  }
  const size = serializedSize(result.value, LIMITS.maxTaskInputBytes);
  if (size > LIMITS.maxTaskInputBytes) {
    const message = `the resolved task input is over ${LIMITS.maxTaskInputBytes} bytes`;
    return { ok: false, failure: { code: 'input_too_large', message } };
  }
  return result;
}

function resolveKey(
  template: Template | undefined,
  what: string,
  context: ReadContext,
): Result<string | undefined> {
  if (template === undefined) {
    return { ok: true, value: undefined };
  }
  const result = resolveString(template, context, LIMITS.maxTaskKeyBytes);
  if (!result.ok) {
    return {
      ok: false,
      failure: { code: 'invalid_task_key', message: `the ${what} ${result.failure.message}` },
    };
  }
  return result;
}

function resolveSignal(spec: SignalSpec, context: ReadContext): Result<SignalParameters> {
  const correlation = resolveString(spec.correlation, context, LIMITS.maxCorrelationBytes);
  if (!correlation.ok) {
    const message = `the correlation ${correlation.failure.message}`;
    return { ok: false, failure: { code: 'invalid_correlation', message } };
  }
  return {
    ok: true,
    value: {
      signalName: spec.signalName,
      correlation: correlation.value,
      payloadVersion: spec.payloadVersion,
    },
  };
}

function resolveString(template: Template, context: ReadContext, maxBytes: number): Result<string> {
  const result = evaluateTemplate(template, context);
  if (!result.ok) {
    return { ok: false, failure: { code: result.code, message: result.message } };
  }
  const value = result.value;
  const bytes = typeof value === 'string' ? utf8ByteLength(value) : -1;
  if (bytes < 1 || bytes > maxBytes) {
    const message = `must be a string of 1 to ${maxBytes} UTF-8 bytes`;
    return { ok: false, failure: { code: 'reference_missing', message } };
  }
  return { ok: true, value: value as string };
}

function optionalKey<K extends string>(
  key: K,
  result: Result<string | undefined>,
): Partial<Record<K, string>> {
  return result.ok && result.value !== undefined
    ? ({ [key]: result.value } as Record<K, string>)
    : {};
}

/** The case a BRANCH takes: the first whose condition holds, else the default (E3.4). */
export function chooseCase(node: BranchNode, context: ReadContext): Result<number> {
  for (const [index, condition] of node.conditions.entries()) {
    const result = evaluateCondition(condition, context);
    if (!result.ok) {
      return {
        ok: false,
        failure: { code: result.code, message: `case ${index}: ${result.message}` },
      };
    }
    if (result.value) {
      return { ok: true, value: index };
    }
  }
  return { ok: true, value: node.conditions.length };
}
