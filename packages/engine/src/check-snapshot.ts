import type { JsonValue } from '@weave/json';
import { equalJson } from '@weave/json';
import type { EngineErrorCode } from './errors.js';
import { EngineError } from './errors.js';
import { pathKey } from './json-path.js';
import type { Block, CompositeNode } from './model.js';
import { isComposite } from './model.js';
import type { PlanState } from './plan-state.js';
import { blockOutput, isFailure, isInFlight, nodeAt, stepIdOf } from './plan-state.js';
import type { StepStatus } from './snapshot.js';
import { rootOutput } from './outputs.js';
import { isObject } from './json-value.js';

/**
 * Whole-snapshot consistency (E3.12), checked before any decision so a round is rejected whole:
 * - in a running sequence, steps succeed in order and at most one is past PENDING but not done;
 * - nothing below a PENDING composite has started; nothing in an unchosen case but SKIPPED;
 * - a finished composite has no unsettled children, and a SUCCEEDED one has exactly the output
 *   its children give (no forged outputs).
 * It also counts each scope's failed children for the planner.
 */
export function checkSnapshot(state: PlanState): void {
  const status = statusOf(state, state.root);
  if (status === 'PENDING') {
    requireRange(state, { from: 0, to: state.root, allowed: ['PENDING'], under: state.root });
    return;
  }
  checkLiveBlock(state, state.definition.rootBlock, status);
  if (status === 'SUCCEEDED') {
    const computed = rootOutput(state);
    const saved = state.output[state.root];
    if (!computed.ok || saved === undefined || !equalJson(saved, computed.value)) {
      throw forged(state, state.root, 'the output mapping');
    }
  }
}

function statusOf(state: PlanState, index: number): StepStatus {
  return state.status[index] ?? 'PENDING';
}

function pathOf(state: PlanState, index: number): string {
  return pathKey('$.steps', stepIdOf(state, index));
}

function checkLiveBlock(state: PlanState, block: Block, ownerStatus: StepStatus): void {
  let blocker: number | undefined;
  for (const index of block.steps) {
    const status = statusOf(state, index);
    if (status === 'SKIPPED') {
      const message = `${pathOf(state, index)} is SKIPPED, but only steps of an unchosen BRANCH case are skipped`;
      throw new EngineError('snapshot_invalid_status', message, {
        path: `${pathOf(state, index)}.status`,
        stepId: stepIdOf(state, index),
      });
    }
    if (blocker !== undefined && status !== 'PENDING') {
      const message = `${pathOf(state, index)} is ${status} although "${stepIdOf(state, blocker)}" before it has not succeeded`;
      throw new EngineError('snapshot_unreachable_step', message, {
        path: `${pathOf(state, index)}.status`,
        stepId: stepIdOf(state, index),
      });
    }
    if (status !== 'SUCCEEDED') {
      blocker ??= index;
    }
    if (isFailure(status)) {
      state.failedChildren[block.owner] = (state.failedChildren[block.owner] ?? 0) + 1;
    }
    checkSettled(state, { index, status, owner: block.owner, ownerStatus });
    const node = nodeAt(state, index);
    if (isComposite(node)) {
      checkComposite(state, node);
    }
  }
}

function checkSettled(
  state: PlanState,
  step: { index: number; status: StepStatus; owner: number; ownerStatus: StepStatus },
): void {
  const { index, status, owner, ownerStatus } = step;
  const unsettled =
    (ownerStatus === 'SUCCEEDED' && status !== 'SUCCEEDED') ||
    ((ownerStatus === 'FAILED' || ownerStatus === 'CANCELLED') && isInFlight(status));
  if (unsettled) {
    const message = `${pathOf(state, owner)} is ${ownerStatus} but its child "${stepIdOf(state, index)}" is ${status}`;
    throw new EngineError('snapshot_unsettled_children', message, {
      path: `${pathOf(state, index)}.status`,
      stepId: stepIdOf(state, index),
    });
  }
}

function checkComposite(state: PlanState, node: CompositeNode): void {
  const status = statusOf(state, node.index);
  if (status === 'PENDING' || status === 'SKIPPED') {
    requireRange(state, {
      from: node.index + 1,
      to: node.end,
      allowed: [status],
      under: node.index,
    });
    return;
  }
  const chosen = state.caseIndex[node.index];
  if (node.kind === 'BRANCH' && chosen === undefined) {
    // A BRANCH that failed while choosing (a condition error): nothing below it ever started.
    requireRange(state, {
      from: node.index + 1,
      to: node.end,
      allowed: ['PENDING'],
      under: node.index,
    });
    return;
  }
  node.blocks.forEach((block, i) => {
    if (node.kind === 'PARALLEL' || i === chosen) {
      checkLiveBlock(state, block, status);
    } else {
      checkUnchosen(state, block, status === 'SUCCEEDED');
    }
  });
  if (status === 'SUCCEEDED' && !outputMatches(state, node)) {
    throw forged(state, node.index, 'its children');
  }
}

/** An unchosen case holds only PENDING and SKIPPED steps; a SKIPPED composite only SKIPPED ones. */
function checkUnchosen(state: PlanState, block: Block, allSkipped: boolean): void {
  const first = block.steps[0];
  const last = block.steps[block.steps.length - 1];
  if (first === undefined || last === undefined) {
    return;
  }
  const end = nodeAt(state, last).end;
  requireRange(state, {
    from: first,
    to: end,
    allowed: ['PENDING', 'SKIPPED'],
    under: block.owner,
  });
  if (allSkipped) {
    const range = { from: first, to: end, allowed: ['SKIPPED'] as const, under: block.owner };
    requireRange(state, range, 'snapshot_unsettled_children');
  }
  for (let index = first; index < end; index++) {
    const node = nodeAt(state, index);
    if (isComposite(node) && statusOf(state, index) === 'SKIPPED') {
      requireRange(state, { from: index + 1, to: node.end, allowed: ['SKIPPED'], under: index });
    }
  }
}

function requireRange(
  state: PlanState,
  range: { from: number; to: number; allowed: readonly StepStatus[]; under: number },
  code: EngineErrorCode = 'snapshot_unreachable_step',
): void {
  for (let index = range.from; index < range.to; index++) {
    const status = statusOf(state, index);
    if (!range.allowed.includes(status)) {
      const owner = stepIdOf(state, range.under);
      const message = `${pathOf(state, index)} is ${status}, but under "${owner}" (${statusOf(state, range.under)}) only ${range.allowed.join('/')} is possible`;
      throw new EngineError(code, message, {
        path: `${pathOf(state, index)}.status`,
        stepId: stepIdOf(state, index),
      });
    }
  }
}

function outputMatches(state: PlanState, node: CompositeNode): boolean {
  const saved = state.output[node.index];
  if (saved === undefined) {
    return false;
  }
  if (node.kind === 'BRANCH') {
    const block = node.blocks[state.caseIndex[node.index] ?? -1];
    return block !== undefined && equalJson(saved, blockOutput(state, block));
  }
  if (!isObject(saved) || saved.size !== node.blocks.length) {
    return false;
  }
  return node.blocks.every((block) => {
    const value: JsonValue | undefined = saved.get(String(block.label));
    return value !== undefined && equalJson(value, blockOutput(state, block));
  });
}

function forged(state: PlanState, index: number, source: string): EngineError {
  const message = `${pathOf(state, index)}.output differs from what ${source} give`;
  return new EngineError('snapshot_forged_output', message, {
    path: `${pathOf(state, index)}.output`,
    stepId: stepIdOf(state, index),
  });
}
