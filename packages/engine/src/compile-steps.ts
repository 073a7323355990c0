import type { JsonObject, JsonValue } from '@weave/json';
import { ID_PATTERN } from './limits.js';
import { compileCondition } from './condition.js';
import { TASK_FIELDS, compileTask } from './compile-task.js';
import {
  POLL_FIELDS,
  SIGNAL_FIELDS,
  TIMER_FIELDS,
  compilePoll,
  compileSignal,
  compileTimer,
} from './compile-wait.js';
import { pathIndex, pathKey } from './json-path.js';
import type { Block, StepKind, StepNode } from './model.js';
import { STEP_KINDS } from './model.js';
import type { Problems } from './problems.js';
import {
  checkMembers,
  describeKind,
  expectObject,
  readArray,
  readString,
  report,
} from './problems.js';
import type { ValueType } from './schema.js';
import { ANY_TYPE, typeOf } from './schema.js';
import type { StepBinding } from './template.js';

/**
 * Walks the step tree in document order, numbering nodes and scoping references: a step sees the
 * steps before it in its own sequence and, through every enclosing composite, the steps before
 * that composite. A composite's inner steps are invisible outside it: its output is the only way
 * out (the "named join" of a PARALLEL, the chosen case of a BRANCH).
 */
export interface StepContext {
  readonly problems: Problems;
  readonly nodes: StepNode[];
  readonly allIds: ReadonlySet<string>;
  readonly seenIds: Set<string>;
  readonly inputType: ValueType;
}

type Visible = ReadonlyMap<string, StepBinding>;

const COMMON_FIELDS = ['id', 'kind', 'description'];
const FIELDS: Record<StepKind, readonly string[]> = {
  TASK: TASK_FIELDS,
  BRANCH: ['cases', 'default'],
  PARALLEL: ['branches'],
  SIGNAL: SIGNAL_FIELDS,
  TIMER: TIMER_FIELDS,
  POLL: POLL_FIELDS,
};
const REQUIRED: Record<StepKind, readonly string[]> = {
  TASK: ['queue'],
  BRANCH: ['cases'],
  PARALLEL: ['branches'],
  SIGNAL: ['name', 'correlation'],
  TIMER: ['duration'],
  POLL: ['queue', 'interval', 'max_rounds', 'timeout', 'classify'],
};

export function compileBlock(
  list: JsonValue | undefined,
  path: string,
  where: { readonly owner: number; readonly label: number | string; readonly visible: Visible },
  context: StepContext,
): Block {
  const steps: number[] = [];
  const visible = new Map(where.visible);
  if (!Array.isArray(list)) {
    const message = `${path} must be a list of steps (got ${list === undefined ? 'nothing' : describeKind(list)})`;
    report(context.problems, path, 'invalid_type', message);
    return { owner: where.owner, label: where.label, steps };
  }
  (list as readonly JsonValue[]).forEach((item, i) => {
    const node = compileStep(item, pathIndex(path, i), { parent: where.owner, visible }, context);
    if (node !== undefined) {
      steps.push(node.index);
      visible.set(node.id, { node: node.index, type: outputType(node) });
    }
  });
  return { owner: where.owner, label: where.label, steps };
}

function compileStep(
  value: JsonValue,
  path: string,
  where: { readonly parent: number; readonly visible: Visible },
  context: StepContext,
): StepNode | undefined {
  const { problems } = context;
  const object = expectObject(value, path, problems);
  if (object === undefined) {
    return undefined;
  }
  const kind = readString(object, 'kind', path, problems);
  if (kind === undefined || !(STEP_KINDS as readonly string[]).includes(kind)) {
    const message = `${pathKey(path, 'kind')} must be one of ${STEP_KINDS.join(', ')}`;
    report(
      problems,
      pathKey(path, 'kind'),
      kind === undefined ? 'missing_field' : 'invalid_value',
      message,
    );
    return undefined;
  }
  const stepKind = kind as StepKind;
  checkMembers(object, path, problems, {
    allowed: [...COMMON_FIELDS, ...FIELDS[stepKind]],
    required: ['id', ...REQUIRED[stepKind]],
  });
  const id = readId(object, path, context);
  const index = context.nodes.length;
  context.nodes.push(undefined as unknown as StepNode);
  const scope = { inputType: context.inputType, visible: where.visible, allIds: context.allIds };
  const spec = compileSpec({ kind: stepKind, object, path, index }, scope, context);
  const node = {
    index,
    id,
    path,
    parent: where.parent,
    end: context.nodes.length,
    ...spec,
  } as StepNode;
  context.nodes[index] = node;
  return node;
}

function compileSpec(
  step: {
    readonly kind: StepKind;
    readonly object: JsonObject;
    readonly path: string;
    readonly index: number;
  },
  scope: {
    readonly inputType: ValueType;
    readonly visible: Visible;
    readonly allIds: ReadonlySet<string>;
  },
  context: StepContext,
): object {
  const { kind, object, path, index } = step;
  const local = { scope, problems: context.problems };
  switch (kind) {
    case 'TASK':
      return compileTask(object, path, scope, context.problems);
    case 'SIGNAL':
      return compileSignal(object, path, local);
    case 'TIMER':
      return compileTimer(object, path, context.problems);
    case 'POLL':
      return compilePoll(object, path, local);
    case 'BRANCH':
      return compileBranch(object, path, { index, visible: scope.visible }, context);
    case 'PARALLEL':
      return compileParallel(object, path, { index, visible: scope.visible }, context);
  }
}

/** The step id (and the type of its optional description). */
function readId(object: JsonObject, path: string, context: StepContext): string {
  if (object.has('description') && typeof object.get('description') !== 'string') {
    const at = pathKey(path, 'description');
    report(context.problems, at, 'invalid_type', `${at} must be a string`);
  }
  const id = readString(object, 'id', path, context.problems);
  const at = pathKey(path, 'id');
  if (id === undefined) {
    return '';
  }
  if (!ID_PATTERN.test(id)) {
    report(
      context.problems,
      at,
      'invalid_id',
      `${at} must match ^[a-z][a-z0-9_]{0,62}$ (got "${id}")`,
    );
  } else if (context.seenIds.has(id)) {
    report(context.problems, at, 'duplicate_id', `${at} "${id}" is already the id of another step`);
  }
  context.seenIds.add(id);
  return id;
}

function compileBranch(
  object: JsonObject,
  path: string,
  where: { readonly index: number; readonly visible: Visible },
  context: StepContext,
): object {
  const { problems } = context;
  const scope = { inputType: context.inputType, visible: where.visible, allIds: context.allIds };
  const cases = readArray(object, 'cases', path, problems) ?? [];
  const conditions = [];
  const blocks: Block[] = [];
  const casesPath = pathKey(path, 'cases');
  if (object.has('cases') && cases.length === 0) {
    report(problems, casesPath, 'invalid_value', `${casesPath} must list at least one case`);
  }
  for (const [i, item] of cases.entries()) {
    const at = pathIndex(casesPath, i);
    const entry = expectObject(item, at, problems) ?? new Map<string, JsonValue>();
    checkMembers(entry, at, problems, { allowed: ['when', 'steps'], required: ['when', 'steps'] });
    conditions.push(
      compileCondition(entry.get('when') ?? new Map(), pathKey(at, 'when'), scope, problems),
    );
    const where2 = { owner: where.index, label: i, visible: where.visible };
    blocks.push(compileBlock(entry.get('steps') ?? [], pathKey(at, 'steps'), where2, context));
  }
  const defaultWhere = { owner: where.index, label: cases.length, visible: where.visible };
  blocks.push(
    compileBlock(object.get('default') ?? [], pathKey(path, 'default'), defaultWhere, context),
  );
  return { kind: 'BRANCH', conditions, blocks };
}

function compileParallel(
  object: JsonObject,
  path: string,
  where: { readonly index: number; readonly visible: Visible },
  context: StepContext,
): object {
  const at = pathKey(path, 'branches');
  const branches = object.has('branches')
    ? expectObject(object.get('branches') ?? null, at, context.problems)
    : undefined;
  const blocks: Block[] = [];
  if (branches !== undefined && branches.size === 0) {
    report(context.problems, at, 'invalid_value', `${at} must name at least one branch`);
  }
  for (const [name, list] of branches ?? []) {
    if (!ID_PATTERN.test(name)) {
      const message = `branch name "${name}" must match ^[a-z][a-z0-9_]{0,62}$`;
      report(context.problems, pathKey(at, name), 'invalid_id', message);
    }
    const branchWhere = { owner: where.index, label: name, visible: where.visible };
    blocks.push(compileBlock(list, pathKey(at, name), branchWhere, context));
  }
  return { kind: 'PARALLEL', blocks };
}

/** What the compiler knows about a step's output, for checking references into it. */
export function outputType(node: StepNode): ValueType {
  if (node.kind === 'TIMER') {
    return typeOf(['null']);
  }
  if (node.kind === 'PARALLEL') {
    const names = node.blocks.map((block) => String(block.label));
    return {
      ...typeOf(['object']),
      properties: new Map(names.map((name) => [name, ANY_TYPE])),
      required: new Set(names),
    };
  }
  return ANY_TYPE;
}
