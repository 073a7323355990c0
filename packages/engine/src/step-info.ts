import type { JsonValue } from '@weave/json';
import { EngineError } from './errors.js';
import { ROOT_STEP_ID } from './limits.js';
import type { CompiledDefinition, StepKind, StepNode } from './model.js';
import type { PollClassification } from './classify-poll.js';
import { classifyWith } from './classify-poll.js';
import { parseValuePath } from './reference.js';
import { copyJson } from './template-eval.js';

/**
 * Public, copied descriptions of a Program's steps: what storage needs to create the step rows
 * and what the console needs to draw the graph. Each call builds fresh objects, so changing one
 * cannot change the Program (E3.1).
 */
export interface PollClassifierInfo {
  /** Where the class value sits in a query result, e.g. `$.status`. */
  readonly path: string;
  readonly pending: readonly JsonValue[];
  readonly succeeded: readonly JsonValue[];
  readonly failed: readonly JsonValue[];
  readonly review: readonly JsonValue[];
}

export interface StepInfo {
  readonly id: string;
  readonly kind: StepKind;
  /** The enclosing BRANCH/PARALLEL, or `$root` for a top-level step. */
  readonly parentId: string;
  /** Case index (BRANCH; the default case is `cases.length`), branch name (PARALLEL), or 'steps'. */
  readonly block: number | string;
  /** Position within its sequence, from 0. */
  readonly position: number;
  /** JSON path of the step in the definition. */
  readonly definitionPath: string;
  /** TASK and POLL: the queue that runs its tasks. */
  readonly queue?: string;
  /** POLL only. */
  readonly classify?: PollClassifierInfo;
}

export function toStepInfo(definition: CompiledDefinition, node: StepNode): StepInfo {
  const root = definition.nodes.length;
  const owner = node.parent === root ? undefined : definition.nodes[node.parent];
  const blocks =
    owner === undefined ? [definition.rootBlock] : 'blocks' in owner ? owner.blocks : [];
  const block = blocks.find((candidate) => candidate.steps.includes(node.index));
  const base = {
    id: node.id,
    kind: node.kind,
    parentId: owner === undefined ? ROOT_STEP_ID : owner.id,
    block: block?.label ?? 'steps',
    position: block?.steps.indexOf(node.index) ?? 0,
    definitionPath: node.path,
  };
  if (node.kind === 'TASK') {
    return { ...base, queue: node.queue };
  }
  if (node.kind !== 'POLL') {
    return base;
  }
  const { classifier } = node;
  const copy = (values: readonly JsonValue[]): JsonValue[] => values.map(copyJson);
  return {
    ...base,
    queue: node.queue,
    classify: {
      path: classifier.pathText,
      pending: copy(classifier.pending),
      succeeded: copy(classifier.succeeded),
      failed: copy(classifier.failed),
      review: copy(classifier.review),
    },
  };
}

/**
 * Classifies a successful POLL query result (E3.14) with the classifier of `step`, a POLL's
 * `StepInfo` from `program.step(id)`. Throws `EngineError` `poll_unknown_value` or
 * `poll_unknown_type` for a result no class covers, and `invalid_argument` for a non-POLL step.
 *
 * @example classifyPoll(program.step('track')!, parse('{"status":"DELIVERED"}')) // 'SUCCEEDED'
 */
export function classifyPoll(step: StepInfo, result: JsonValue): PollClassification {
  const info = step.classify;
  const path = info === undefined ? { ok: false as const } : parseValuePath(info.path);
  if (info === undefined || !path.ok) {
    throw new EngineError('invalid_argument', `step "${step.id}" is not a POLL with a classifier`, {
      path: '$',
      stepId: step.id,
    });
  }
  return classifyWith({ ...info, pathText: info.path, path: path.value }, result);
}
