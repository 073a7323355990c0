import type { JsonValue } from '@weave/json';
import { EngineError } from './errors.js';
import { integerNumber, isNumber } from './json-value.js';
import { pathKey } from './json-path.js';
import { smallInteger } from './number-text.js';
import type { Snapshot, StepState } from './snapshot.js';

/**
 * The snapshot as a JSON document (snake_case, as storage may persist or log it, and as the
 * golden fixtures hold it). `snapshotFromJson` checks only the shape; `plan` checks the meaning.
 *
 * { "allow_new": true, "input": {…},
 *   "steps": { "$root": { "kind": "ROOT", "status": "ACTIVE" },
 *              "big": { "kind": "BRANCH", "status": "ACTIVE", "case_index": 0 } } }
 */
export function snapshotToJson(snapshot: Snapshot): JsonValue {
  const steps = new Map<string, JsonValue>();
  for (const [id, step] of snapshot.steps) {
    steps.set(id, stepToJson(step));
  }
  return new Map<string, JsonValue>([
    ['allow_new', snapshot.allowNew],
    ['input', snapshot.input],
    ['steps', steps],
  ]);
}

function stepToJson(step: StepState): JsonValue {
  const entries: [string, JsonValue][] = [
    ['kind', step.kind],
    ['status', step.status],
  ];
  if (step.output !== undefined) {
    entries.push(['output', step.output]);
  }
  if (step.caseIndex !== undefined) {
    entries.push(['case_index', integerNumber(step.caseIndex)]);
  }
  if (step.completedBy !== undefined) {
    entries.push(['completed_by', step.completedBy]);
  }
  if (step.cancelRequested === true) {
    entries.push(['cancel_requested', true]);
  }
  return new Map(entries);
}

const STEP_FIELDS = ['kind', 'status', 'output', 'case_index', 'completed_by', 'cancel_requested'];

export function snapshotFromJson(value: JsonValue): Snapshot {
  const top = expectMap(value, '$');
  expectFields(top, '$', ['allow_new', 'input', 'steps']);
  const allowNew = top.get('allow_new');
  if (typeof allowNew !== 'boolean') {
    throw invalid('$.allow_new', 'must be true or false');
  }
  const input = top.get('input');
  if (input === undefined) {
    throw invalid('$.input', 'is required');
  }
  const steps = new Map<string, StepState>();
  for (const [id, raw] of expectMap(top.get('steps'), '$.steps')) {
    steps.set(id, stepFromJson(raw, pathKey('$.steps', id)));
  }
  return { input, allowNew, steps };
}

function stepFromJson(value: JsonValue, path: string): StepState {
  const object = expectMap(value, path);
  expectFields(object, path, STEP_FIELDS);
  const step: Record<string, unknown> = { kind: object.get('kind'), status: object.get('status') };
  if (object.has('output')) {
    step['output'] = object.get('output');
  }
  const caseIndex = object.get('case_index');
  if (caseIndex !== undefined) {
    const index = isNumber(caseIndex) ? smallInteger(caseIndex.text, 0, 1000) : undefined;
    if (index === undefined) {
      throw invalid(`${path}.case_index`, 'must be a non-negative integer');
    }
    step['caseIndex'] = index;
  }
  if (object.has('completed_by')) {
    step['completedBy'] = object.get('completed_by');
  }
  if (object.has('cancel_requested')) {
    step['cancelRequested'] = object.get('cancel_requested');
  }
  // Kind, status and flag values are checked by `plan` against the definition.
  return step as unknown as StepState;
}

function expectMap(value: JsonValue | undefined, path: string): ReadonlyMap<string, JsonValue> {
  if (!(value instanceof Map)) {
    throw invalid(path, 'must be an object');
  }
  return value;
}

function expectFields(
  object: ReadonlyMap<string, JsonValue>,
  path: string,
  allowed: readonly string[],
): void {
  for (const key of object.keys()) {
    if (!allowed.includes(key)) {
      throw invalid(pathKey(path, key), `is not a snapshot field (allowed: ${allowed.join(', ')})`);
    }
  }
}

function invalid(path: string, rule: string): EngineError {
  return new EngineError('invalid_snapshot', `${path} ${rule}`, { path });
}
