/**
 * A workflow definition (docs/definitions.md) as a graph to draw: one node per step, edges by
 * sequence (a step follows the one before it), and for each BRANCH and PARALLEL an edge to the
 * first step of every case or branch, a join node where they meet again, and a cluster around
 * it so nesting shows. Pure: the definition in, nodes, edges and clusters out.
 */
export type NodeRole = 'step' | 'join';

export interface GraphNode {
  readonly id: string;
  readonly role: NodeRole;
  /** The step id (for a join: the id of its BRANCH or PARALLEL). */
  readonly stepId: string;
  readonly kind: string;
  /** One line under the id: the queue, signal name or duration. */
  readonly detail: string;
  readonly cluster?: string;
}

export interface GraphEdge {
  readonly from: string;
  readonly to: string;
  readonly label?: string;
}

export interface GraphCluster {
  readonly id: string;
  readonly label: string;
  readonly parent?: string;
}

export interface DefinitionGraph {
  readonly nodes: readonly GraphNode[];
  readonly edges: readonly GraphEdge[];
  readonly clusters: readonly GraphCluster[];
}

type Member = Readonly<Record<string, unknown>>;

interface Builder {
  readonly nodes: GraphNode[];
  readonly edges: GraphEdge[];
  readonly clusters: GraphCluster[];
}

/** The graph of a definition; a definition without a `steps` list gives an empty graph. */
export function toDefinitionGraph(definition: unknown): DefinitionGraph {
  const out: Builder = { nodes: [], edges: [], clusters: [] };
  addSequence(out, stepsOf(definition, 'steps'), undefined);
  return out;
}

/** Adds a sequence; returns its entry and exit node ids (undefined when empty). */
function addSequence(
  out: Builder,
  steps: readonly Member[],
  cluster: string | undefined,
): { entry: string; exit: string } | undefined {
  let first: string | undefined;
  let previousExit: string | undefined;
  for (const step of steps) {
    const { entry, exit } = addStep(out, step, cluster);
    if (previousExit !== undefined) {
      out.edges.push({ from: previousExit, to: entry });
    }
    first ??= entry;
    previousExit = exit;
  }
  return first === undefined || previousExit === undefined
    ? undefined
    : { entry: first, exit: previousExit };
}

function addStep(out: Builder, step: Member, cluster: string | undefined) {
  const id = typeof step['id'] === 'string' ? step['id'] : `?${out.nodes.length}`;
  const kind = typeof step['kind'] === 'string' ? step['kind'] : '?';
  const arms = armsOf(step, kind);
  if (arms === undefined) {
    out.nodes.push(
      withCluster({ id, role: 'step', stepId: id, kind, detail: detailOf(step) }, cluster),
    );
    return { entry: id, exit: id };
  }
  const inner = `cluster:${id}`;
  out.clusters.push(withCluster({ id: inner, label: `${kind} ${id}` }, cluster, 'parent'));
  const join = `${id}$join`;
  out.nodes.push(
    withCluster({ id, role: 'step', stepId: id, kind, detail: detailOf(step) }, inner),
  );
  out.nodes.push(withCluster({ id: join, role: 'join', stepId: id, kind, detail: '' }, inner));
  for (const arm of arms) {
    const sequence = addSequence(out, arm.steps, inner);
    if (sequence === undefined) {
      out.edges.push({ from: id, to: join, label: arm.label });
    } else {
      out.edges.push({ from: id, to: sequence.entry, label: arm.label });
      out.edges.push({ from: sequence.exit, to: join });
    }
  }
  return { entry: id, exit: join };
}

interface Arm {
  readonly label: string;
  readonly steps: readonly Member[];
}

/** The cases of a BRANCH (and its default) or the branches of a PARALLEL; else undefined. */
function armsOf(step: Member, kind: string): Arm[] | undefined {
  if (kind === 'BRANCH') {
    const cases = Array.isArray(step['cases']) ? (step['cases'] as unknown[]) : [];
    const arms = cases.map((c, i) => ({ label: `case ${i + 1}`, steps: stepsOf(c, 'steps') }));
    arms.push({ label: 'default', steps: stepsOf(step, 'default') });
    return arms;
  }
  if (kind === 'PARALLEL') {
    const branches = step['branches'];
    if (typeof branches !== 'object' || branches === null) {
      return [];
    }
    return Object.keys(branches).map((name) => ({ label: name, steps: stepsOf(branches, name) }));
  }
  return undefined;
}

function stepsOf(container: unknown, field: string): Member[] {
  if (typeof container !== 'object' || container === null) {
    return [];
  }
  const list = (container as Member)[field];
  return Array.isArray(list)
    ? list.filter((s): s is Member => typeof s === 'object' && s !== null)
    : [];
}

function detailOf(step: Member): string {
  for (const field of ['queue', 'name', 'duration', 'until']) {
    const value = step[field];
    if (typeof value === 'string') {
      return value;
    }
  }
  return '';
}

function withCluster<T extends object>(
  value: T,
  cluster: string | undefined,
  field: 'cluster' | 'parent' = 'cluster',
): T {
  return cluster === undefined ? value : { ...value, [field]: cluster };
}
