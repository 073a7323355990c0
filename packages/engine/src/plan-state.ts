import type { JsonValue } from '@weave/json';
import type { Block, CompiledDefinition, StepNode } from './model.js';
import type { StepStatus } from './snapshot.js';

/**
 * The mutable working copy one `plan` call builds from a snapshot and advances decision by
 * decision. Arrays are indexed by node number; the root sits at index `nodes.length`.
 * Nothing here outlives the call.
 */
export interface PlanState {
  readonly definition: CompiledDefinition;
  readonly root: number;
  readonly input: JsonValue;
  readonly allowNew: boolean;
  readonly status: StepStatus[];
  readonly output: (JsonValue | undefined)[];
  readonly caseIndex: (number | undefined)[];
  readonly cancelRequested: boolean[];
  /** Per composite and root: direct children that are FAILED or CANCELLED. */
  readonly failedChildren: number[];
}

export function nodeAt(state: PlanState, index: number): StepNode {
  const node = state.definition.nodes[index];
  if (node === undefined) {
    throw new RangeError(`no node ${index}`);
  }
  return node;
}

export function stepIdOf(state: PlanState, index: number): string {
  return index === state.root ? '$root' : nodeAt(state, index).id;
}

export function parentOf(state: PlanState, index: number): number {
  return nodeAt(state, index).parent;
}

/** Work that is still going on: it must settle before its composite may finish. */
export function isInFlight(status: StepStatus): boolean {
  return status === 'ACTIVE' || status === 'WAITING' || status === 'NEEDS_REVIEW';
}

export function isFailure(status: StepStatus): boolean {
  return status === 'FAILED' || status === 'CANCELLED';
}

/** The blocks whose steps run: the chosen case, every PARALLEL branch, the root sequence. */
export function liveBlocks(state: PlanState, owner: number): readonly Block[] {
  if (owner === state.root) {
    return [state.definition.rootBlock];
  }
  const node = nodeAt(state, owner);
  if (node.kind === 'PARALLEL') {
    return node.blocks;
  }
  if (node.kind === 'BRANCH') {
    const chosen = state.caseIndex[owner];
    const block = chosen === undefined ? undefined : node.blocks[chosen];
    return block === undefined ? [] : [block];
  }
  return [];
}

/** A scope fails when one of its direct children, or of an enclosing scope's, failed. */
export function isScopeFailing(state: PlanState, owner: number): boolean {
  for (let scope = owner; ; scope = parentOf(state, scope)) {
    if ((state.failedChildren[scope] ?? 0) > 0) {
      return true;
    }
    if (scope === state.root) {
      return false;
    }
  }
}

/** The output a block gives: its last step's output, or null when it has no steps. */
export function blockOutput(state: PlanState, block: Block): JsonValue {
  const last = block.steps[block.steps.length - 1];
  return last === undefined ? null : (state.output[last] ?? null);
}
