import type { JsonObject, JsonValue } from '@weave/json';
import { equalJson } from '@weave/json';
import { LIMITS } from './limits.js';
import { jsonKind } from './json-value.js';
import { pathIndex, pathKey } from './json-path.js';
import type { Classifier, PollNode, SignalNode, SignalSpec, TimerNode } from './model.js';
import type { Problems } from './problems.js';
import { checkMembers, expectObject, readArray, readString, report } from './problems.js';
import { readDuration, readInteger } from './read-fields.js';
import { parseValuePath } from './reference.js';
import { copyJson } from './template-eval.js';
import type { Scope } from './template.js';
import { compileStringExpression, compileValue, readName } from './compile-fields.js';

/** SIGNAL, TIMER and POLL: steps that wait for the outside world (docs/definitions.md). */
type Spec<T> = Omit<T, 'index' | 'id' | 'path' | 'parent' | 'end'>;

export const SIGNAL_FIELDS = ['name', 'correlation', 'payload_version', 'timeout'];
export const TIMER_FIELDS = ['duration'];
export const POLL_FIELDS = [
  'queue',
  'input',
  'interval',
  'max_rounds',
  'timeout',
  'task_timeout',
  'classify',
  'final_signal',
];

interface Context {
  readonly scope: Scope;
  readonly problems: Problems;
}

function compileSignalSpec(object: JsonObject, path: string, context: Context): SignalSpec {
  const { problems } = context;
  const correlation = object.get('correlation');
  return {
    signalName: readName(object, 'name', path, problems),
    // A missing correlation is reported once, as missing_field, by the caller's member check.
    correlation:
      correlation === undefined
        ? { t: 'value', value: '', size: 2 }
        : compileStringExpression(correlation, pathKey(path, 'correlation'), {
            ...context,
            maxBytes: LIMITS.maxCorrelationBytes,
          }),
    payloadVersion:
      readInteger(object, 'payload_version', path, {
        problems,
        min: 1,
        max: LIMITS.maxPayloadVersion,
      }) ?? 1,
  };
}

export function compileSignal(
  object: JsonObject,
  path: string,
  context: Context,
): Spec<SignalNode> {
  return {
    kind: 'SIGNAL',
    ...compileSignalSpec(object, path, context),
    timeoutMs: readDuration(object, 'timeout', path, context.problems),
  };
}

export function compileTimer(
  object: JsonObject,
  path: string,
  problems: Problems,
): Spec<TimerNode> {
  return { kind: 'TIMER', durationMs: readDuration(object, 'duration', path, problems) ?? 1 };
}

export function compilePoll(object: JsonObject, path: string, context: Context): Spec<PollNode> {
  const { problems, scope } = context;
  const intervalMs = readDuration(object, 'interval', path, problems) ?? 1;
  const timeoutMs = readDuration(object, 'timeout', path, problems) ?? LIMITS.maxDurationMs;
  if (intervalMs > timeoutMs) {
    const at = pathKey(path, 'interval');
    report(problems, at, 'invalid_value', `${at} must not be longer than the POLL timeout`);
  }
  const finalSignal = object.get('final_signal');
  return {
    kind: 'POLL',
    queue: readName(object, 'queue', path, problems),
    input: compileValue(object, 'input', path, { scope, problems, fallback: new Map() }),
    intervalMs,
    maxRounds:
      readInteger(object, 'max_rounds', path, { problems, min: 1, max: LIMITS.maxPollRounds }) ?? 1,
    timeoutMs,
    taskTimeoutMs: readDuration(object, 'task_timeout', path, problems),
    classifier: compileClassifier(object.get('classify'), pathKey(path, 'classify'), problems),
    finalSignal:
      finalSignal === undefined
        ? undefined
        : compileFinalSignal(finalSignal, pathKey(path, 'final_signal'), context),
  };
}

function compileFinalSignal(
  value: JsonValue,
  path: string,
  context: Context,
): SignalSpec | undefined {
  const object = expectObject(value, path, context.problems);
  if (object === undefined) {
    return undefined;
  }
  const fields = {
    allowed: ['name', 'correlation', 'payload_version'],
    required: ['name', 'correlation'],
  };
  checkMembers(object, path, context.problems, fields);
  return compileSignalSpec(object, path, context);
}

const CLASSES = ['pending', 'succeeded', 'failed', 'review'] as const;

export function compileClassifier(
  value: JsonValue | undefined,
  path: string,
  problems: Problems,
): Classifier {
  const object = value === undefined ? undefined : expectObject(value, path, problems);
  if (object === undefined) {
    return { pathText: '$', path: [], pending: [], succeeded: [], failed: [], review: [] };
  }
  const required = ['path', 'succeeded'];
  checkMembers(object, path, problems, { allowed: ['path', ...CLASSES], required });
  const pathText = readString(object, 'path', path, problems) ?? '$';
  const at = pathKey(path, 'path');
  const parsed = parseValuePath(pathText);
  if (!parsed.ok) {
    report(problems, at, 'invalid_reference', `${at}: ${parsed.message}`);
  }
  const seen: JsonValue[] = [];
  const read = (key: (typeof CLASSES)[number]): readonly JsonValue[] =>
    readClassValues({ object, key, path, problems, seen });
  const classifier = {
    pathText,
    path: parsed.ok ? parsed.value : [],
    pending: read('pending'),
    succeeded: read('succeeded'),
    failed: read('failed'),
    review: read('review'),
  };
  if (object.has('succeeded') && classifier.succeeded.length === 0) {
    const list = pathKey(path, 'succeeded');
    report(problems, list, 'invalid_value', `${list} must list at least one value`);
  }
  return classifier;
}

function readClassValues(options: {
  readonly object: JsonObject;
  readonly key: string;
  readonly path: string;
  readonly problems: Problems;
  readonly seen: JsonValue[];
}): readonly JsonValue[] {
  const { object, key, path, problems, seen } = options;
  const list = readArray(object, key, path, problems) ?? [];
  const values: JsonValue[] = [];
  list.forEach((value, i) => {
    const at = pathIndex(pathKey(path, key), i);
    const kind = jsonKind(value);
    if (kind === 'array' || kind === 'object') {
      report(problems, at, 'invalid_type', `${at} must be a string, number, boolean or null`);
    } else if (seen.some((other) => equalJson(other, value))) {
      report(
        problems,
        at,
        'invalid_value',
        `${at} is listed twice: every value belongs to one class`,
      );
    } else {
      seen.push(value);
      values.push(copyJson(value));
    }
  });
  return values;
}
