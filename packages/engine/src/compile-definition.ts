import type { JsonObject, JsonValue } from '@weave/json';
import { DEFAULT_INSTANCE_TIMEOUT_MS, LIMITS, NAME_PATTERN } from './limits.js';
import { collectIds } from './collect-ids.js';
import type { StepContext } from './compile-steps.js';
import { compileBlock, outputType } from './compile-steps.js';
import { isNumber, serializedSize } from './json-value.js';
import { pathKey } from './json-path.js';
import type { Block, CompiledDefinition, StepNode } from './model.js';
import type { Problems } from './problems.js';
import { checkMembers, expectObject, readString, report } from './problems.js';
import { readDuration } from './read-fields.js';
import { ANY_TYPE, compileSchema } from './schema.js';
import type { StepBinding } from './template.js';
import { compileTemplate } from './template.js';

/**
 * Compiles a schema_version 1 definition into the private model, appending every problem found.
 * Returns undefined when there were problems (the model would be half-built).
 */
const TOP_FIELDS = ['schema_version', 'name', 'description', 'timeout', 'input', 'steps', 'output'];

export function compileDefinition(
  definition: JsonValue,
  problems: Problems,
): CompiledDefinition | undefined {
  const top = readTop(definition, problems);
  if (top === undefined) {
    return undefined;
  }
  const census = collectIds(top.get('steps'));
  if (census.count > LIMITS.maxSteps) {
    const message = `a definition has at most ${LIMITS.maxSteps} steps at all nesting levels (got ${census.count})`;
    report(problems, '$.steps', 'too_many_steps', message);
  }
  const schema = top.get('input');
  const inputType = schema === undefined ? ANY_TYPE : compileSchema(schema, '$.input', problems);
  const { nodes, rootBlock } = compileRoot(top.get('steps'), {
    problems,
    nodes: [],
    allIds: census.ids,
    seenIds: new Set<string>(),
    inputType,
  });
  const visible = rootVisible(nodes, rootBlock);
  const outputValue = top.get('output');
  const scope = { inputType, visible, allIds: census.ids };
  const output =
    outputValue === undefined
      ? undefined
      : compileTemplate(outputValue, '$.output', scope, problems).template;
  if (problems.length > 0) {
    return undefined;
  }
  return {
    name: readString(top, 'name', '$', []) ?? '',
    timeoutMs: readDuration(top, 'timeout', '$', []) ?? DEFAULT_INSTANCE_TIMEOUT_MS,
    inputType,
    nodes,
    ids: new Map(nodes.map((node) => [node.id, node.index])),
    rootBlock,
    output,
  };
}

/** The output mapping sees the top-level steps, all SUCCEEDED when the root completes. */
function rootVisible(nodes: readonly StepNode[], rootBlock: Block): Map<string, StepBinding> {
  const visible = new Map<string, StepBinding>();
  for (const index of rootBlock.steps) {
    const node = nodes[index];
    if (node !== undefined) {
      visible.set(node.id, { node: index, type: outputType(node) });
    }
  }
  return visible;
}

/** The top-level object, after the size limit, member and header checks. */
function readTop(definition: JsonValue, problems: Problems): JsonObject | undefined {
  const size = serializedSize(definition, LIMITS.maxDefinitionBytes);
  if (size > LIMITS.maxDefinitionBytes) {
    const message = `the definition must be at most ${LIMITS.maxDefinitionBytes} bytes as compact JSON`;
    report(problems, '$', 'too_large', message);
    return undefined;
  }
  const top = expectObject(definition, '$', problems);
  if (top !== undefined) {
    const required = ['schema_version', 'name', 'steps'];
    checkMembers(top, '$', problems, { allowed: TOP_FIELDS, required });
    checkHeader(top, problems);
  }
  return top;
}

/**
 * The root is numbered after every static node, which is known only after the walk: top-level
 * steps are compiled with owner -1 and re-pointed at the root index afterwards.
 */
function compileRoot(
  steps: JsonValue | undefined,
  context: StepContext,
): { nodes: StepNode[]; rootBlock: Block } {
  const where = { owner: -1, label: 'steps', visible: new Map<string, StepBinding>() };
  const provisional = compileBlock(steps, '$.steps', where, context);
  const root = context.nodes.length;
  const nodes = context.nodes.map((node) =>
    node.parent === -1 ? { ...node, parent: root } : node,
  );
  return { nodes, rootBlock: { owner: root, label: 'steps', steps: provisional.steps } };
}

function checkHeader(top: ReadonlyMap<string, JsonValue>, problems: Problems): void {
  const version = top.get('schema_version');
  if (version !== undefined && !isNumberOne(version)) {
    const message = '$.schema_version must be 1, the only version this engine understands';
    report(problems, '$.schema_version', 'unsupported_schema_version', message);
  }
  const name = readString(top, 'name', '$', problems);
  if (name !== undefined && !NAME_PATTERN.test(name)) {
    report(
      problems,
      '$.name',
      'invalid_name',
      `$.name must match ^[a-z0-9][a-z0-9_.-]{0,62}$ (got "${name}")`,
    );
  }
  const description = top.get('description');
  if (description !== undefined && typeof description !== 'string') {
    report(problems, pathKey('$', 'description'), 'invalid_type', '$.description must be a string');
  }
  readDuration(top, 'timeout', '$', problems);
}

function isNumberOne(value: JsonValue): boolean {
  return isNumber(value) && value.text === '1';
}
