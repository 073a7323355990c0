import { LIMITS } from './limits.js';
import { activateLeaf, chooseCase } from './activate.js';
import type { Decision, PlanResult, StepFailure } from './decisions.js';
import { EngineError } from './errors.js';
import { serializedSize } from './json-value.js';
import type { Block, CompiledDefinition } from './model.js';
import { isComposite } from './model.js';
import { compositeOutput, readContext, rootOutput } from './outputs.js';
import type { PlanState } from './plan-state.js';
import {
  isFailure,
  isInFlight,
  isScopeFailing,
  liveBlocks,
  nodeAt,
  parentOf,
  stepIdOf,
} from './plan-state.js';
import { checkSnapshot } from './check-snapshot.js';
import { loadState } from './load-snapshot.js';
import type { ReadContext } from './template-eval.js';

/**
 * One planning round (seed 000 §3): validate the whole snapshot, then advance the instance as
 * far as `limit` decisions allow, applying each decision to a working copy so later decisions
 * see earlier ones (a PARALLEL's activation, then its branches' first steps). The traversal is
 * depth-first in document order and is repeated until nothing changes, so the result is a pure
 * function of (program, snapshot, limit).
 */
interface Round {
  readonly state: PlanState;
  readonly context: ReadContext;
  readonly decisions: Decision[];
  /** One more than the limit: a decision past the limit only tells us that `more` is true. */
  readonly budget: number;
}

export function planRound(
  definition: CompiledDefinition,
  snapshot: unknown,
  limit: number,
): PlanResult {
  if (!Number.isInteger(limit) || limit < 1 || limit > LIMITS.maxDecisionsPerRound) {
    const message = `limit must be an integer from 1 to ${LIMITS.maxDecisionsPerRound} (got ${String(limit)})`;
    throw new EngineError('invalid_argument', message, {
      path: '$.limit',
      limit: LIMITS.maxDecisionsPerRound,
    });
  }
  const state = loadState(definition, snapshot);
  checkSnapshot(state);
  const round: Round = { state, context: readContext(state), decisions: [], budget: limit + 1 };
  let before = -1;
  while (round.decisions.length !== before && round.decisions.length < round.budget) {
    before = round.decisions.length;
    advanceRoot(round);
  }
  const more = round.decisions.length > limit;
  return { decisions: more ? round.decisions.slice(0, limit) : round.decisions, more };
}

function emit(round: Round, decision: Decision): boolean {
  if (round.decisions.length >= round.budget) {
    return false;
  }
  round.decisions.push(decision);
  return true;
}

function advanceRoot(round: Round): void {
  const { state } = round;
  if (state.status[state.root] === 'PENDING') {
    if (!state.allowNew || !emit(round, { kind: 'ACTIVATE', stepId: '$root', node: 'ROOT' })) {
      return;
    }
    state.status[state.root] = 'ACTIVE';
  }
  if (state.status[state.root] !== 'ACTIVE') {
    return;
  }
  advanceBlock(round, state.definition.rootBlock);
  settle(round, state.root);
}

/** Runs a sequence: skips past SUCCEEDED steps and acts on the first one that is not. */
function advanceBlock(round: Round, block: Block): void {
  const { state } = round;
  for (const index of block.steps) {
    const status = state.status[index];
    if (status === 'PENDING') {
      if (!state.allowNew || isScopeFailing(state, block.owner)) {
        return;
      }
      activate(round, index);
    } else if (status === 'ACTIVE' && isComposite(nodeAt(state, index))) {
      advanceComposite(round, index);
    } else if ((status === 'ACTIVE' || status === 'WAITING') && !state.cancelRequested[index]) {
      if (
        isScopeFailing(state, block.owner) &&
        emit(round, { kind: 'CANCEL', stepId: stepIdOf(state, index) })
      ) {
        state.cancelRequested[index] = true;
      }
    }
    if (state.status[index] !== 'SUCCEEDED') {
      return;
    }
  }
}

function activate(round: Round, index: number): void {
  const { state } = round;
  const node = nodeAt(state, index);
  if (node.kind === 'PARALLEL') {
    if (emit(round, { kind: 'ACTIVATE', stepId: node.id, node: 'PARALLEL' })) {
      state.status[index] = 'ACTIVE';
      advanceComposite(round, index);
    }
    return;
  }
  if (node.kind === 'BRANCH') {
    const chosen = chooseCase(node, round.context);
    if (!chosen.ok) {
      fail(round, index, chosen.failure);
    } else if (
      emit(round, { kind: 'ACTIVATE', stepId: node.id, node: 'BRANCH', caseIndex: chosen.value })
    ) {
      state.status[index] = 'ACTIVE';
      state.caseIndex[index] = chosen.value;
      advanceComposite(round, index);
    }
    return;
  }
  const activation = activateLeaf(node, round.context);
  if (!activation.ok) {
    fail(round, index, activation.failure);
  } else if (emit(round, activation.decision)) {
    state.status[index] = node.kind === 'SIGNAL' || node.kind === 'TIMER' ? 'WAITING' : 'ACTIVE';
  }
}

function advanceComposite(round: Round, index: number): void {
  const { state } = round;
  const node = nodeAt(state, index);
  for (const block of liveBlocks(state, index)) {
    advanceBlock(round, block);
  }
  if (node.kind === 'BRANCH' && state.failedChildren[index] === 0) {
    node.blocks.forEach((block, i) => {
      if (i !== state.caseIndex[index]) {
        skipBlock(round, block);
      }
    });
  }
  settle(round, index);
}

/** SKIPs every step of an unchosen case, children before their composite (E3.4, A2.2). */
function skipBlock(round: Round, block: Block): void {
  const { state } = round;
  for (const index of block.steps) {
    if (state.status[index] === 'SKIPPED') {
      continue;
    }
    const node = nodeAt(state, index);
    if (isComposite(node)) {
      node.blocks.forEach((inner) => skipBlock(round, inner));
    }
    if (!emit(round, { kind: 'SKIP', stepId: node.id })) {
      return;
    }
    state.status[index] = 'SKIPPED';
  }
}

/** Finishes an ACTIVE composite or root once nothing under it is in flight (E3.5). */
function settle(round: Round, index: number): void {
  const { state } = round;
  if (state.status[index] !== 'ACTIVE') {
    return;
  }
  const blocks = liveBlocks(state, index);
  const children = blocks.flatMap((block) => block.steps);
  if (children.some((child) => isInFlight(state.status[child] ?? 'PENDING'))) {
    return;
  }
  if (
    children.every((child) => state.status[child] === 'SUCCEEDED') &&
    unchosenSkipped(state, index)
  ) {
    complete(round, index);
  } else if (isScopeFailing(state, index)) {
    // A FAILED child is the cause; a CANCELLED one is usually a sibling the failure stopped.
    const failed =
      children.find((child) => state.status[child] === 'FAILED') ??
      children.find((child) => isFailure(state.status[child] ?? 'PENDING'));
    const error: StepFailure =
      failed === undefined
        ? { code: 'aborted', message: 'stopped because an enclosing scope failed' }
        : {
            code: 'child_failed',
            message: `step "${stepIdOf(state, failed)}" ${String(state.status[failed])}`,
            stepId: stepIdOf(state, failed),
          };
    fail(round, index, error);
  }
}

function unchosenSkipped(state: PlanState, index: number): boolean {
  if (index === state.root) {
    return true;
  }
  const node = nodeAt(state, index);
  if (node.kind !== 'BRANCH') {
    return true;
  }
  return node.blocks.every(
    (block, i) =>
      i === state.caseIndex[index] || block.steps.every((step) => state.status[step] === 'SKIPPED'),
  );
}

function complete(round: Round, index: number): void {
  const { state } = round;
  const limit = index === state.root ? LIMITS.maxConstructionBytes : LIMITS.maxCompositeOutputBytes;
  const node = index === state.root ? undefined : nodeAt(state, index);
  const result =
    node === undefined || !isComposite(node)
      ? rootOutput(state)
      : { ok: true as const, value: compositeOutput(state, node) };
  if (!result.ok) {
    fail(round, index, { code: result.code, message: result.message });
    return;
  }
  if (serializedSize(result.value, limit) > limit) {
    fail(round, index, { code: 'output_too_large', message: `the output is over ${limit} bytes` });
    return;
  }
  if (emit(round, { kind: 'COMPLETE', stepId: stepIdOf(state, index), output: result.value })) {
    state.status[index] = 'SUCCEEDED';
    state.output[index] = result.value;
  }
}

function fail(round: Round, index: number, error: StepFailure): void {
  const { state } = round;
  if (!emit(round, { kind: 'FAIL', stepId: stepIdOf(state, index), error })) {
    return;
  }
  state.status[index] = 'FAILED';
  if (index !== state.root) {
    const parent = parentOf(state, index);
    state.failedChildren[parent] = (state.failedChildren[parent] ?? 0) + 1;
  }
}
