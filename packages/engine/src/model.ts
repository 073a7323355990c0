import type { JsonValue } from '@weave/json';
import type { Condition } from './condition.js';
import type { ValueType } from './schema.js';
import type { Segment } from './schema-lookup.js';
import type { Template } from './template.js';

/**
 * The compiled form of a definition, private to the package. Nodes are numbered in document
 * (pre-)order, so the subtree of node `i` is exactly `[i, end)`. The hidden root is numbered
 * `nodes.length`; every block names its owner (a composite node or the root).
 */
export const STEP_KINDS = ['TASK', 'BRANCH', 'PARALLEL', 'SIGNAL', 'TIMER', 'POLL'] as const;
export type StepKind = (typeof STEP_KINDS)[number];

/** A sequence of steps that run one after another. */
export interface Block {
  readonly owner: number;
  /** Case index (BRANCH, default = number of cases), branch name (PARALLEL), or 'steps' (root). */
  readonly label: number | string;
  readonly steps: readonly number[];
}

export interface RetryPolicy {
  readonly maxAttempts: number;
  readonly initialIntervalMs: number;
  /** Exact number text (≥ 1, ≤ 10), as Pulse stores it. */
  readonly backoffCoefficient: string;
  readonly maxIntervalMs: number;
  readonly nonRetryableCodes: readonly string[];
}

export interface Classifier {
  readonly pathText: string;
  readonly path: readonly Segment[];
  readonly pending: readonly JsonValue[];
  readonly succeeded: readonly JsonValue[];
  readonly failed: readonly JsonValue[];
  readonly review: readonly JsonValue[];
}

export interface SignalSpec {
  readonly signalName: string;
  readonly correlation: Template;
  readonly payloadVersion: number;
}

interface NodeBase {
  readonly index: number;
  readonly id: string;
  /** JSON path of the node in the definition. */
  readonly path: string;
  /** Owner of the block this node is in (a composite's index, or the root's). */
  readonly parent: number;
  /** End (exclusive) of this node's subtree in document order. */
  readonly end: number;
}

export interface TaskNode extends NodeBase {
  readonly kind: 'TASK';
  readonly queue: string;
  readonly input: Template;
  readonly timeoutMs: number | undefined;
  readonly retry: RetryPolicy;
  readonly idempotent: boolean;
  readonly traceKey: Template | undefined;
  readonly resourceKey: Template | undefined;
}

export interface BranchNode extends NodeBase {
  readonly kind: 'BRANCH';
  readonly conditions: readonly Condition[];
  /** One block per case, then the default block (index = number of cases). */
  readonly blocks: readonly Block[];
}

export interface ParallelNode extends NodeBase {
  readonly kind: 'PARALLEL';
  /** One block per branch, labelled with the branch name, in definition order. */
  readonly blocks: readonly Block[];
}

export interface SignalNode extends NodeBase, SignalSpec {
  readonly kind: 'SIGNAL';
  readonly timeoutMs: number | undefined;
}

export interface TimerNode extends NodeBase {
  readonly kind: 'TIMER';
  readonly durationMs: number;
}

export interface PollNode extends NodeBase {
  readonly kind: 'POLL';
  readonly queue: string;
  readonly input: Template;
  readonly intervalMs: number;
  readonly maxRounds: number;
  readonly timeoutMs: number;
  readonly taskTimeoutMs: number | undefined;
  readonly classifier: Classifier;
  readonly finalSignal: SignalSpec | undefined;
}

export type StepNode = TaskNode | BranchNode | ParallelNode | SignalNode | TimerNode | PollNode;
export type CompositeNode = BranchNode | ParallelNode;

export interface CompiledDefinition {
  readonly name: string;
  readonly timeoutMs: number;
  readonly inputType: ValueType;
  readonly nodes: readonly StepNode[];
  readonly ids: ReadonlyMap<string, number>;
  /** The top-level sequence, owned by the root (index `nodes.length`). */
  readonly rootBlock: Block;
  /** The output mapping; undefined means "the output of the last top-level step". */
  readonly output: Template | undefined;
}

export function isComposite(node: StepNode): node is CompositeNode {
  return node.kind === 'BRANCH' || node.kind === 'PARALLEL';
}
