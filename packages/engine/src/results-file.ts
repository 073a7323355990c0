import type { JsonObject, JsonValue } from '@weave/json';
import { isArray } from './json-value.js';
import { pathKey } from './json-path.js';
import type { Problem } from './problems.js';
import { checkMembers, describeKind, expectObject, report } from './problems.js';
import type { StepInfo } from './step-info.js';

/**
 * The results file of `weave workflows simulate` (docs/definitions.md "Simulating"): what each
 * leaf step's outside world answers. Keys are step ids; steps without an entry never finish,
 * except TIMERs, which fire.
 */
export type Outcome =
  | { readonly type: 'status'; readonly status: 'SUCCEEDED'; readonly output: JsonValue }
  | { readonly type: 'status'; readonly status: 'FAILED' | 'NEEDS_REVIEW' | 'CANCELLED' }
  | {
      readonly type: 'poll';
      readonly results: readonly JsonValue[];
      readonly finalSignal: { readonly payload: JsonValue } | undefined;
    };

export type ResultsParse =
  | { readonly ok: true; readonly outcomes: ReadonlyMap<string, Outcome> }
  | { readonly ok: false; readonly problems: readonly Problem[] };

const STATUSES_BY_KIND: Record<string, readonly string[]> = {
  TASK: ['SUCCEEDED', 'FAILED', 'NEEDS_REVIEW', 'CANCELLED'],
  SIGNAL: ['SUCCEEDED', 'FAILED', 'CANCELLED'],
  TIMER: ['SUCCEEDED', 'CANCELLED'],
  POLL: ['FAILED', 'NEEDS_REVIEW', 'CANCELLED'],
};

export function parseResults(value: JsonValue, steps: readonly StepInfo[]): ResultsParse {
  const problems: Problem[] = [];
  const outcomes = new Map<string, Outcome>();
  const top = expectObject(value, '$', problems);
  for (const [id, entry] of top ?? []) {
    const path = pathKey('$', id);
    const step = steps.find((candidate) => candidate.id === id);
    if (step === undefined || step.kind === 'BRANCH' || step.kind === 'PARALLEL') {
      const why =
        step === undefined
          ? 'is not a step of the definition'
          : `is a ${step.kind}, whose result the engine computes`;
      report(problems, path, 'unknown_step', `${path} ${why}`);
      continue;
    }
    const outcome = parseOutcome(entry, path, step.kind, problems);
    if (outcome !== undefined) {
      outcomes.set(id, outcome);
    }
  }
  return problems.length === 0 ? { ok: true, outcomes } : { ok: false, problems };
}

function parseOutcome(
  entry: JsonValue,
  path: string,
  kind: string,
  problems: Problem[],
): Outcome | undefined {
  const object = expectObject(entry, path, problems);
  if (object === undefined) {
    return undefined;
  }
  if (kind === 'POLL' && !object.has('status')) {
    return parsePollOutcome(object, path, problems);
  }
  checkMembers(object, path, problems, { allowed: ['status', 'output'], required: ['status'] });
  const status = object.get('status');
  const statuses = STATUSES_BY_KIND[kind] ?? [];
  const at = pathKey(path, 'status');
  if (typeof status !== 'string' || !statuses.includes(status)) {
    const got = typeof status === 'string' ? `"${status}"` : describeKind(status ?? null);
    const message = `${at} of a ${kind} must be one of ${statuses.join(', ')} (got ${got})`;
    report(problems, at, 'invalid_value', message);
    return undefined;
  }
  if (status === 'SUCCEEDED') {
    return { type: 'status', status: 'SUCCEEDED', output: object.get('output') ?? null };
  }
  if (object.has('output')) {
    const output = pathKey(path, 'output');
    report(problems, output, 'unknown_field', `${output} is only for SUCCEEDED`);
  }
  return { type: 'status', status: status as 'FAILED' | 'NEEDS_REVIEW' | 'CANCELLED' };
}

/** `{ "results": [...], "final_signal": payload }`: query results in order, then the signal. */
function parsePollOutcome(
  object: JsonObject,
  path: string,
  problems: Problem[],
): Outcome | undefined {
  checkMembers(object, path, problems, { allowed: ['results', 'final_signal'], required: [] });
  const results = object.get('results') ?? [];
  if (!isArray(results)) {
    const at = pathKey(path, 'results');
    report(problems, at, 'invalid_type', `${at} must be a list of query results`);
    return undefined;
  }
  const payload = object.get('final_signal');
  return { type: 'poll', results, finalSignal: payload === undefined ? undefined : { payload } };
}
