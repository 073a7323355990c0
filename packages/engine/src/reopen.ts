import type { JsonValue } from '@weave/json';
import { activateLeaf } from './activate.js';
import { checkPollSuccess } from './classify-poll.js';
import { checkSnapshot } from './check-snapshot.js';
import type { ActivatePoll, ActivateSignal, ActivateTask } from './decisions.js';

/** The activation a retry creates: a TASK's task, a POLL's first round, a SIGNAL's wait. */
export type RetriedActivation = ActivateTask | ActivatePoll | ActivateSignal;
import { EngineError } from './errors.js';
import { pathKey } from './json-path.js';
import { serializedSize } from './json-value.js';
import { LIMITS } from './limits.js';
import { loadState } from './load-snapshot.js';
import type { CompiledDefinition } from './model.js';
import { isComposite } from './model.js';
import { readContext } from './outputs.js';
import type { PlanState } from './plan-state.js';
import { isFailure, liveBlocks, nodeAt, parentOf, stepIdOf } from './plan-state.js';
import type { Snapshot, StepState } from './snapshot.js';

/**
 * Operator recovery of one step (seed 000 §4 item 6, E4.6, A5.3; docs/design/engine.md
 * "Recovery"). Given a consistent snapshot and a FAILED or NEEDS_REVIEW leaf, it returns the
 * snapshot storage persists instead:
 *
 * - **retry** (TASK, POLL; a FAILED SIGNAL: wait recovery, WAITING on a new wait, no input): the
 *   step becomes ACTIVE and `activation` is the ACTIVATE decision
 *   storage applies for it (a new activation and task), with the operator's `input` instead of
 *   the definition's when one is given. The step is made ACTIVE here rather than PENDING because
 *   the planner would resolve the definition's input again and lose the corrected one.
 * - **resolve** (TASK, POLL, SIGNAL): SUCCEEDED with the operator's `output` (a POLL's must
 *   classify as SUCCEEDED; it counts as completed by QUERY).
 * - **fail** (a NEEDS_REVIEW TASK or POLL): FAILED; the next round fails its scope as usual.
 *
 * For retry and resolve every FAILED enclosing composite and `$root` is reopened (ACTIVE); in
 * the reopened scopes, leaves the failure path CANCELLED go back to PENDING (they run again)
 * and composites that failed or were cancelled because of it reopen recursively. A FAILED leaf
 * left in one of those scopes would fail it again (and cancel the retried step): that is
 * refused (`recovery_blocked`, naming it), as is anything else than the table above
 * (`recovery_not_allowed`). The result passes `plan`'s consistency checks; planning it gives
 * the rest of the round (the activations of the reopened PENDING steps, COMPLETEs, …).
 */
export type Recovery =
  | { readonly action: 'retry'; readonly input?: JsonValue }
  | { readonly action: 'resolve'; readonly output: JsonValue }
  | { readonly action: 'fail' };

export interface Reopened {
  /** Every step of the input snapshot, changed ones replaced. */
  readonly snapshot: Snapshot;
  /** retry: the step's new activation, in the order storage must apply it (before planning). */
  readonly activation?: RetriedActivation;
  /** Composites and `$root` reopened FAILED/CANCELLED → ACTIVE, outermost first. */
  readonly reopened: readonly string[];
  /** Leaves reset CANCELLED → PENDING, in document order. */
  readonly reset: readonly string[];
}

const ALLOWED = {
  retry: { kinds: ['TASK', 'POLL', 'SIGNAL'], statuses: ['FAILED', 'NEEDS_REVIEW'] },
  resolve: { kinds: ['TASK', 'POLL', 'SIGNAL'], statuses: ['FAILED', 'NEEDS_REVIEW'] },
  fail: { kinds: ['TASK', 'POLL'], statuses: ['NEEDS_REVIEW'] },
} as const;

export function reopenStep(
  definition: CompiledDefinition,
  snapshot: unknown,
  stepId: string,
  recovery: Recovery,
): Reopened {
  const state = loadState(definition, snapshot);
  checkSnapshot(state);
  const index = definition.ids.get(stepId);
  const path = pathKey('$.steps', stepId);
  if (index === undefined) {
    throw new EngineError('recovery_not_allowed', `${path}: no such step`, { path, stepId });
  }
  const node = nodeAt(state, index);
  const status = state.status[index] ?? 'PENDING';
  const allowed = ALLOWED[recovery.action];
  if (!(allowed.kinds as readonly string[]).includes(node.kind)) {
    const message = `${recovery.action} is for ${allowed.kinds.join('/')} steps; "${stepId}" is a ${node.kind}`;
    throw new EngineError('recovery_not_allowed', message, { path: `${path}.kind`, stepId });
  }
  if (!(allowed.statuses as readonly string[]).includes(status)) {
    const message = `${recovery.action} needs a ${allowed.statuses.join(' or ')} step; "${stepId}" is ${status}`;
    throw new EngineError('recovery_not_allowed', message, { path: `${path}.status`, stepId });
  }
  const changed = new Set<number>([index]);
  const reopened: number[] = [];
  const reset: number[] = [];
  let activation: RetriedActivation | undefined;
  if (recovery.action === 'fail') {
    state.status[index] = 'FAILED';
  } else {
    if (recovery.action === 'resolve') {
      resolveLeaf(state, index, recovery.output);
    } else {
      // A retried SIGNAL waits again (wait recovery); TASK and POLL run again.
      state.status[index] = nodeAt(state, index).kind === 'SIGNAL' ? 'WAITING' : 'ACTIVE';
      state.cancelRequested[index] = false;
    }
    if (status === 'FAILED' || recovery.action === 'retry') {
      reopenScopes(state, index, { changed, reopened, reset });
      refuseFailingScopes(state, index);
    }
    if (recovery.action === 'retry') {
      activation = retryActivation(state, index, recovery.input);
    }
  }
  const steps = new Map((snapshot as Snapshot).steps);
  for (const i of changed) {
    steps.set(stepIdOf(state, i), stateOf(state, i));
  }
  const result: Snapshot = { ...(snapshot as Snapshot), steps };
  return {
    snapshot: result,
    ...(activation === undefined ? {} : { activation }),
    reopened: reopened.map((i) => stepIdOf(state, i)),
    reset: reset.sort((a, b) => a - b).map((i) => stepIdOf(state, i)),
  };
}

function resolveLeaf(state: PlanState, index: number, output: JsonValue): void {
  const node = nodeAt(state, index);
  const stepId = node.id;
  const size = serializedSize(output, LIMITS.maxTaskInputBytes);
  if (size > LIMITS.maxTaskInputBytes) {
    const message = `the output is over ${LIMITS.maxTaskInputBytes} bytes`;
    throw new EngineError('recovery_invalid_output', message, {
      path: '$.output',
      stepId,
      limit: LIMITS.maxTaskInputBytes,
    });
  }
  if (node.kind === 'POLL') {
    try {
      checkPollSuccess(node, { completedBy: 'QUERY', output, path: '$' });
    } catch (error: unknown) {
      const message = error instanceof Error ? error.message : String(error);
      throw new EngineError(
        'recovery_invalid_output',
        `a POLL is resolved with a result its classifier calls SUCCEEDED: ${message}`,
        { path: '$.output', stepId },
        { cause: error },
      );
    }
  }
  state.status[index] = 'SUCCEEDED';
  state.output[index] = output;
}

interface Changes {
  readonly changed: Set<number>;
  readonly reopened: number[];
  readonly reset: number[];
}

/** FAILED ancestors → ACTIVE (outermost first), then each one's other children reopened. */
function reopenScopes(state: PlanState, index: number, changes: Changes): void {
  const path: number[] = [];
  for (let scope = parentOf(state, index); ; scope = parentOf(state, scope)) {
    path.unshift(scope);
    if (scope === state.root) {
      break;
    }
  }
  const onPath = new Set([...path, index]);
  for (const scope of path) {
    if (state.status[scope] === 'FAILED') {
      state.status[scope] = 'ACTIVE';
      changes.changed.add(scope);
      changes.reopened.push(scope);
      reopenChildren(state, scope, onPath, changes);
    }
  }
}

/** The children of a reopened scope that its failure stopped run again; a FAILED leaf blocks. */
function reopenChildren(
  state: PlanState,
  scope: number,
  skip: ReadonlySet<number>,
  changes: Changes,
): void {
  for (const block of liveBlocks(state, scope)) {
    for (const child of block.steps) {
      const status = state.status[child] ?? 'PENDING';
      if (skip.has(child) || !isFailure(status)) {
        continue;
      }
      const node = nodeAt(state, child);
      if (!isComposite(node)) {
        if (status === 'FAILED') {
          throw blocked(state, child, 'FAILED');
        }
        state.status[child] = 'PENDING';
        state.cancelRequested[child] = false;
        changes.changed.add(child);
        changes.reset.push(child);
        continue;
      }
      // A composite that failed by itself (a BRANCH whose condition broke, an output over its
      // bound) would fail again: only one stopped by a failure below or around it reopens.
      const children = liveBlocks(state, child).flatMap((b) => b.steps);
      if (
        state.caseIndex[child] === undefined && node.kind === 'BRANCH'
          ? true
          : children.length > 0 && children.every((c) => state.status[c] === 'SUCCEEDED')
      ) {
        throw blocked(state, child, status);
      }
      state.status[child] = 'ACTIVE';
      changes.changed.add(child);
      changes.reopened.push(child);
      reopenChildren(state, child, skip, changes);
    }
  }
}

/** After reopening, no scope around the step may still be failing (it would cancel it). */
function refuseFailingScopes(state: PlanState, index: number): void {
  for (let scope = parentOf(state, index); ; scope = parentOf(state, scope)) {
    for (const block of liveBlocks(state, scope)) {
      for (const child of block.steps) {
        const status = state.status[child] ?? 'PENDING';
        if (child !== index && isFailure(status)) {
          throw blocked(state, child, status);
        }
      }
    }
    if (scope === state.root) {
      return;
    }
  }
}

function blocked(state: PlanState, child: number, status: string): EngineError {
  const stepId = stepIdOf(state, child);
  const path = pathKey('$.steps', stepId);
  return new EngineError(
    'recovery_blocked',
    `step "${stepId}" is ${status} in a scope the recovery reopens; it would fail that scope again: recover it first`,
    { path: `${path}.status`, stepId },
  );
}

/** The retried step's ACTIVATE decision, with the operator's input when given. */
function retryActivation(
  state: PlanState,
  index: number,
  input: JsonValue | undefined,
): RetriedActivation {
  const node = nodeAt(state, index);
  const stepId = node.id;
  if (node.kind === 'SIGNAL' && input !== undefined) {
    throw new EngineError('recovery_invalid_input', `"${stepId}" is a SIGNAL: it takes no input`, {
      path: '$.input',
      stepId,
    });
  }
  if (!state.allowNew) {
    throw new EngineError(
      'recovery_not_allowed',
      `"${stepId}" cannot be retried while the instance admits no new work (paused or ending)`,
      { path: '$.allow_new', stepId },
    );
  }
  if (input !== undefined) {
    const size = serializedSize(input, LIMITS.maxTaskInputBytes);
    if (size > LIMITS.maxTaskInputBytes) {
      throw new EngineError(
        'recovery_invalid_input',
        `the input is over ${LIMITS.maxTaskInputBytes} bytes`,
        { path: '$.input', stepId, limit: LIMITS.maxTaskInputBytes },
      );
    }
  }
  // The definition's input template is resolved even when the operator gives the input: the
  // trace key, resource key and final-signal correlation still come from the definition.
  const planned = activateLeaf(node, readContext(state));
  if (!planned.ok) {
    if (input === undefined || planned.failure.code !== 'reference_missing') {
      throw new EngineError(
        'recovery_not_allowed',
        `"${stepId}" cannot be activated again: ${planned.failure.code}: ${planned.failure.message}` +
          (input === undefined ? ' (give a corrected input)' : ''),
        { path: input === undefined ? '$.input' : pathKey('$.steps', stepId), stepId },
      );
    }
    // The input template's reference broke: rebuild with the operator's input in its place.
    return activationWithInput(state, index, input);
  }
  const decision = planned.decision;
  if (decision.node === 'SIGNAL') {
    return decision;
  }
  if (decision.node !== 'TASK' && decision.node !== 'POLL') {
    throw new RangeError(`${decision.node} is not retried`);
  }
  return input === undefined ? decision : { ...decision, input };
}

/** The activation of a TASK/POLL whose input template cannot be resolved, with `input` instead. */
function activationWithInput(
  state: PlanState,
  index: number,
  input: JsonValue,
): ActivateTask | ActivatePoll {
  const node = nodeAt(state, index);
  if (node.kind !== 'TASK' && node.kind !== 'POLL') {
    throw new RangeError(`${node.kind} is not retried`);
  }
  const replaced = { ...node, input: { t: 'value' as const, value: null, size: 4 } };
  const planned = activateLeaf(replaced, readContext(state));
  if (!planned.ok || (planned.decision.node !== 'TASK' && planned.decision.node !== 'POLL')) {
    const message = planned.ok ? 'not a task' : planned.failure.message;
    throw new EngineError(
      'recovery_not_allowed',
      `"${node.id}" cannot be activated again: ${message}`,
      { path: pathKey('$.steps', node.id), stepId: node.id },
    );
  }
  return { ...planned.decision, input };
}

function stateOf(state: PlanState, index: number): StepState {
  const kind = index === state.root ? 'ROOT' : nodeAt(state, index).kind;
  const status = state.status[index] ?? 'PENDING';
  const out: { -readonly [K in keyof StepState]: StepState[K] } = { kind, status };
  const output = state.output[index];
  if (status === 'SUCCEEDED' && output !== undefined) {
    out.output = output;
    if (kind === 'POLL') {
      out.completedBy = 'QUERY';
    }
  }
  const caseIndex = state.caseIndex[index];
  if (caseIndex !== undefined) {
    out.caseIndex = caseIndex;
  }
  if (state.cancelRequested[index] === true && (status === 'ACTIVE' || status === 'WAITING')) {
    out.cancelRequested = true;
  }
  return out;
}
