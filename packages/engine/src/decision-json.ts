import type { JsonValue } from '@weave/json';
import { stringify } from '@weave/json';
import type { Decision, RetryParameters, SignalParameters } from './decisions.js';
import { integerNumber } from './json-value.js';

/**
 * Decisions as JSON (snake_case, for logs, fixtures and the CLI) and as one-line text.
 * Milliseconds and counts are integers; number text inside inputs and outputs is untouched.
 */
export function decisionToJson(decision: Decision): JsonValue {
  const entries: [string, JsonValue][] = [
    ['kind', decision.kind],
    ['step_id', decision.stepId],
  ];
  const add = (key: string, value: JsonValue | number | undefined): void => {
    if (value !== undefined) {
      entries.push([key, typeof value === 'number' ? integerNumber(value) : value]);
    }
  };
  switch (decision.kind) {
    case 'ACTIVATE':
      addActivation(decision, add);
      break;
    case 'COMPLETE':
      add('output', decision.output);
      break;
    case 'FAIL': {
      const error: [string, JsonValue][] = [
        ['code', decision.error.code],
        ['message', decision.error.message],
      ];
      if (decision.error.stepId !== undefined) {
        error.push(['step_id', decision.error.stepId]);
      }
      add('error', new Map(error));
      break;
    }
    default:
      break;
  }
  return new Map(entries);
}

type Add = (key: string, value: JsonValue | number | undefined) => void;

function addActivation(decision: Decision & { kind: 'ACTIVATE' }, add: Add): void {
  add('node', decision.node);
  switch (decision.node) {
    case 'TASK':
      add('queue', decision.queue);
      add('input', decision.input);
      add('timeout_ms', decision.timeoutMs);
      add('retry', retryToJson(decision.retry));
      add('idempotent', decision.idempotent);
      add('trace_key', decision.traceKey);
      add('resource_key', decision.resourceKey);
      return;
    case 'BRANCH':
      add('case_index', decision.caseIndex);
      return;
    case 'SIGNAL':
      addSignal(decision, add);
      add('timeout_ms', decision.timeoutMs);
      return;
    case 'TIMER':
      add('duration_ms', decision.durationMs);
      return;
    case 'POLL':
      add('queue', decision.queue);
      add('input', decision.input);
      add('interval_ms', decision.intervalMs);
      add('max_rounds', decision.maxRounds);
      add('timeout_ms', decision.timeoutMs);
      add('task_timeout_ms', decision.taskTimeoutMs);
      if (decision.finalSignal !== undefined) {
        const entries: [string, JsonValue][] = [];
        addSignal(decision.finalSignal, (key, value) => {
          entries.push([key, typeof value === 'number' ? integerNumber(value) : (value ?? null)]);
        });
        add('final_signal', new Map(entries));
      }
      return;
    default:
      return;
  }
}

function addSignal(signal: SignalParameters, add: Add): void {
  add('signal_name', signal.signalName);
  add('correlation', signal.correlation);
  add('payload_version', signal.payloadVersion);
}

function retryToJson(retry: RetryParameters): JsonValue {
  return new Map<string, JsonValue>([
    ['max_attempts', integerNumber(retry.maxAttempts)],
    ['initial_interval_ms', integerNumber(retry.initialIntervalMs)],
    ['backoff_coefficient', { kind: 'number', text: retry.backoffCoefficient }],
    ['max_interval_ms', integerNumber(retry.maxIntervalMs)],
    ['non_retryable_codes', [...retry.nonRetryableCodes]],
  ]);
}

/** One line per decision: `ACTIVATE reserve TASK queue=inventory … input={"order":"A1"}`. */
export function formatDecision(decision: Decision): string {
  const json = decisionToJson(decision) as ReadonlyMap<string, JsonValue>;
  const head = `${decision.kind} ${decision.stepId}`;
  const parts: string[] = [];
  for (const [key, value] of json) {
    if (key === 'kind' || key === 'step_id') {
      continue;
    }
    parts.push(key === 'node' ? formatValue(value) : `${key}=${formatValue(value)}`);
  }
  return parts.length === 0 ? head : `${head} ${parts.join(' ')}`;
}

/** Plain words stay bare; anything else (spaces, quotes, objects) is written as JSON. */
function formatValue(value: JsonValue): string {
  return typeof value === 'string' && /^[A-Za-z0-9_.:$-]+$/.test(value) ? value : stringify(value);
}
