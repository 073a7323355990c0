import type { JsonValue } from '@weave/json';
import { EngineError } from './errors.js';
import { ROOT_STEP_ID } from './limits.js';
import { findInvalidJson } from './json-value.js';
import { pathKey } from './json-path.js';
import type { CompiledDefinition, StepNode } from './model.js';
import type { PlanState } from './plan-state.js';
import type { SnapshotStepKind, StepState, StepStatus } from './snapshot.js';
import { POLL_COMPLETIONS, STEP_STATUSES } from './snapshot.js';
import { checkPollSuccess } from './classify-poll.js';

/**
 * Turns a snapshot into a working state, checking each step on its own: known id, every id
 * present, the saved kind, a status from the fixed set that the kind can have, and the fields
 * that status allows (E3.12). Position rules (who may be active given the others) are
 * `check-snapshot.ts`'s.
 */
const STATUSES_BY_KIND: Record<SnapshotStepKind, readonly StepStatus[]> = {
  TASK: ['PENDING', 'ACTIVE', 'SUCCEEDED', 'FAILED', 'SKIPPED', 'NEEDS_REVIEW', 'CANCELLED'],
  POLL: ['PENDING', 'ACTIVE', 'SUCCEEDED', 'FAILED', 'SKIPPED', 'NEEDS_REVIEW', 'CANCELLED'],
  SIGNAL: ['PENDING', 'WAITING', 'SUCCEEDED', 'FAILED', 'SKIPPED', 'CANCELLED'],
  TIMER: ['PENDING', 'WAITING', 'SUCCEEDED', 'SKIPPED', 'CANCELLED'],
  BRANCH: ['PENDING', 'ACTIVE', 'SUCCEEDED', 'FAILED', 'SKIPPED', 'CANCELLED'],
  PARALLEL: ['PENDING', 'ACTIVE', 'SUCCEEDED', 'FAILED', 'SKIPPED', 'CANCELLED'],
  ROOT: ['PENDING', 'ACTIVE', 'SUCCEEDED', 'FAILED', 'CANCELLED'],
};

export function loadState(definition: CompiledDefinition, snapshot: unknown): PlanState {
  const { input, allowNew, steps } = readTop(snapshot);
  const root = definition.nodes.length;
  const state: PlanState = {
    definition,
    root,
    input,
    allowNew,
    status: new Array<StepStatus>(root + 1),
    output: new Array<JsonValue | undefined>(root + 1),
    caseIndex: new Array<number | undefined>(root + 1),
    cancelRequested: new Array<boolean>(root + 1).fill(false),
    failedChildren: new Array<number>(root + 1).fill(0),
  };
  for (const id of steps.keys()) {
    if (typeof id !== 'string' || (id !== ROOT_STEP_ID && !definition.ids.has(id))) {
      const path = typeof id === 'string' ? pathKey('$.steps', id) : '$.steps';
      throw new EngineError('snapshot_unknown_step', `${path} is not a step of this definition`, {
        path,
      });
    }
  }
  for (const node of definition.nodes) {
    loadStep(state, node.index, steps.get(node.id), node);
  }
  loadStep(state, root, steps.get(ROOT_STEP_ID), undefined);
  return state;
}

function readTop(snapshot: unknown): {
  input: JsonValue;
  allowNew: boolean;
  steps: ReadonlyMap<unknown, unknown>;
} {
  if (typeof snapshot !== 'object' || snapshot === null) {
    throw mismatch('$', 'the snapshot must be an object');
  }
  const { input, allowNew, steps } = snapshot as {
    input?: unknown;
    allowNew?: unknown;
    steps?: unknown;
  };
  const badInput = input === undefined ? '$.input' : findInvalidJson(input, '$.input');
  if (badInput !== undefined) {
    throw mismatch(badInput, `${badInput} is not a JSON value`);
  }
  if (typeof allowNew !== 'boolean') {
    throw mismatch('$.allow_new', '$.allow_new must be true or false');
  }
  if (!(steps instanceof Map)) {
    throw mismatch('$.steps', '$.steps must be a map of step id to step state');
  }
  return { input: input as JsonValue, allowNew, steps: steps as ReadonlyMap<unknown, unknown> };
}

function loadStep(state: PlanState, index: number, raw: unknown, node: StepNode | undefined): void {
  const id = node === undefined ? ROOT_STEP_ID : node.id;
  const path = pathKey('$.steps', id);
  if (raw === undefined) {
    const message = `${path} is missing: storage keeps a row for every step`;
    throw new EngineError('snapshot_missing_step', message, { path, stepId: id });
  }
  if (typeof raw !== 'object' || raw === null) {
    throw mismatch(path, `${path} must be an object`, id);
  }
  const step = raw as Partial<Record<keyof StepState, unknown>>;
  const kind: SnapshotStepKind = node === undefined ? 'ROOT' : node.kind;
  if (step.kind !== kind) {
    const message = `${path}.kind must be ${kind}, as in the definition (got ${String(step.kind)})`;
    throw mismatch(`${path}.kind`, message, id);
  }
  state.status[index] = readStatus(step.status, { path, id, kind });
  loadOutput(state, { index, path, id }, step.output);
  loadFlags(state, { index, path, id, kind, node }, step);
}

/** A status from the fixed set that this kind of step can have. */
function readStatus(
  status: unknown,
  at: { readonly path: string; readonly id: string; readonly kind: SnapshotStepKind },
): StepStatus {
  const details = { path: `${at.path}.status`, stepId: at.id };
  if (typeof status !== 'string' || !(STEP_STATUSES as readonly string[]).includes(status)) {
    const message = `${at.path}.status is not a step status (got ${String(status)})`;
    throw new EngineError('snapshot_invalid_status', message, details);
  }
  if (!STATUSES_BY_KIND[at.kind].includes(status as StepStatus)) {
    const message = `${at.path}.status: a ${at.kind} step cannot be ${status}`;
    throw new EngineError('snapshot_invalid_status', message, details);
  }
  return status as StepStatus;
}

function loadOutput(
  state: PlanState,
  at: { index: number; path: string; id: string },
  output: unknown,
): void {
  const status = state.status[at.index];
  if (status !== 'SUCCEEDED') {
    if (output !== undefined) {
      const message = `${at.path}.output is present but the step is ${String(status)}: outputs are read only from SUCCEEDED steps`;
      throw new EngineError('snapshot_output_not_succeeded', message, {
        path: `${at.path}.output`,
        stepId: at.id,
      });
    }
    return;
  }
  if (output === undefined) {
    throw new EngineError(
      'snapshot_output_missing',
      `${at.path} is SUCCEEDED without its saved output`,
      { path: `${at.path}.output`, stepId: at.id },
    );
  }
  const bad = findInvalidJson(output, `${at.path}.output`);
  if (bad !== undefined) {
    throw mismatch(bad, `${bad} is not a JSON value`, at.id);
  }
  state.output[at.index] = output as JsonValue;
}

interface At {
  readonly index: number;
  readonly path: string;
  readonly id: string;
  readonly kind: SnapshotStepKind;
  readonly node: StepNode | undefined;
}

function loadFlags(
  state: PlanState,
  at: At,
  step: Partial<Record<keyof StepState, unknown>>,
): void {
  loadCaseIndex(state, at, step.caseIndex);
  loadCompletedBy(state, at, step.completedBy);
  const cancel = step.cancelRequested;
  if (cancel !== undefined && cancel !== false) {
    const status = state.status[at.index];
    const leaf = at.kind !== 'BRANCH' && at.kind !== 'PARALLEL' && at.kind !== 'ROOT';
    if (cancel !== true || !leaf || (status !== 'ACTIVE' && status !== 'WAITING')) {
      const message = `${at.path}.cancel_requested is only for an ACTIVE or WAITING leaf step`;
      throw mismatch(`${at.path}.cancel_requested`, message, at.id);
    }
    state.cancelRequested[at.index] = true;
  }
}

/** A BRANCH keeps the case chosen at activation for good (E3.4): required once ACTIVE. */
function loadCaseIndex(state: PlanState, at: At, chosen: unknown): void {
  const { index, path, id, kind, node } = at;
  const status = state.status[index] ?? 'PENDING';
  if (chosen === undefined) {
    if (kind === 'BRANCH' && (status === 'ACTIVE' || status === 'SUCCEEDED')) {
      const message = `${path} is ${status} without the case index chosen at activation`;
      throw mismatch(`${path}.case_index`, message, id);
    }
    return;
  }
  const cases = node?.kind === 'BRANCH' ? node.blocks.length : 0;
  const allowed = kind === 'BRANCH' && status !== 'PENDING' && status !== 'SKIPPED';
  const valid =
    typeof chosen === 'number' && Number.isInteger(chosen) && chosen >= 0 && chosen < cases;
  if (!allowed || !valid) {
    const got = typeof chosen === 'number' ? String(chosen) : typeof chosen;
    const message = `${path}.case_index must be a case index (0–${cases - 1}) of an activated BRANCH (got ${got})`;
    throw mismatch(`${path}.case_index`, message, id);
  }
  state.caseIndex[index] = chosen;
}

function loadCompletedBy(state: PlanState, at: At, completedBy: unknown): void {
  const { index, path, id, node } = at;
  const succeededPoll = node?.kind === 'POLL' && state.status[index] === 'SUCCEEDED';
  if (!succeededPoll) {
    if (completedBy !== undefined) {
      throw mismatch(
        `${path}.completed_by`,
        `${path}.completed_by is only for a SUCCEEDED POLL`,
        id,
      );
    }
    return;
  }
  if (
    typeof completedBy !== 'string' ||
    !(POLL_COMPLETIONS as readonly string[]).includes(completedBy)
  ) {
    throw mismatch(
      `${path}.completed_by`,
      `${path}.completed_by must be QUERY or FINAL_SIGNAL for a SUCCEEDED POLL`,
      id,
    );
  }
  checkPollSuccess(node, { completedBy, output: state.output[index] ?? null, path });
}

function mismatch(path: string, message: string, stepId?: string): EngineError {
  return new EngineError(
    'snapshot_type_mismatch',
    message,
    stepId === undefined ? { path } : { path, stepId },
  );
}
