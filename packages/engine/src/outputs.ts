import type { JsonValue } from '@weave/json';
import { EngineError } from './errors.js';
import { pathKey } from './json-path.js';
import type { CompositeNode } from './model.js';
import type { PlanState } from './plan-state.js';
import { blockOutput, stepIdOf } from './plan-state.js';
import type { Evaluation, ReadContext } from './template-eval.js';
import { evaluateTemplate } from './template-eval.js';

/**
 * Outputs of composites and of the root, and the read context that lets constructions see saved
 * outputs. A read of a step that has not SUCCEEDED is refused (E3.12): the compiler's scoping
 * already makes it impossible for a consistent snapshot, so reaching it means corrupt data.
 */
export function readContext(state: PlanState): ReadContext {
  return {
    input: state.input,
    outputOf(node: number): JsonValue {
      const output = state.output[node];
      if (state.status[node] !== 'SUCCEEDED' || output === undefined) {
        const path = pathKey('$.steps', stepIdOf(state, node));
        const message = `${path} is read but is ${String(state.status[node])}: only SUCCEEDED outputs are readable`;
        throw new EngineError('snapshot_output_not_succeeded', message, {
          path,
          stepId: stepIdOf(state, node),
        });
      }
      return output;
    },
  };
}

/** BRANCH: the chosen case's output. PARALLEL: `{ <branch>: <branch output> }` in definition order. */
export function compositeOutput(state: PlanState, node: CompositeNode): JsonValue {
  if (node.kind === 'BRANCH') {
    const block = node.blocks[state.caseIndex[node.index] ?? -1];
    return block === undefined ? null : blockOutput(state, block);
  }
  return new Map(node.blocks.map((block) => [String(block.label), blockOutput(state, block)]));
}

/** The instance output: the output mapping, or the last top-level step's output. */
export function rootOutput(state: PlanState): Evaluation {
  const mapping = state.definition.output;
  if (mapping === undefined) {
    return { ok: true, value: blockOutput(state, state.definition.rootBlock) };
  }
  return evaluateTemplate(mapping, readContext(state));
}
