import type { JsonValue } from '@weave/json';
import { LIMITS, ROOT_STEP_ID } from './limits.js';
import type { PollClassification } from './classify-poll.js';
import { classifyWith } from './classify-poll.js';
import { compileDefinition } from './compile-definition.js';
import type { PlanResult } from './decisions.js';
import { EngineError } from './errors.js';
import { serializedSize } from './json-value.js';
import type { CompiledDefinition } from './model.js';
import { planRound } from './plan.js';
import type { Recovery, Reopened } from './reopen.js';
import { reopenStep } from './reopen.js';
import type { Problem } from './problems.js';
import { validateValue } from './schema-validate.js';
import type { Snapshot, StepState } from './snapshot.js';
import type { StepInfo } from './step-info.js';
import { toStepInfo } from './step-info.js';

/**
 * A compiled definition: immutable, holding no reference to the caller's value, so one Program
 * may serve every instance of a version concurrently (E3.1). Everything it returns is a copy.
 */
export interface Program {
  readonly name: string;
  /** The instance timeout (default 365 days); storage adds DB time at Start. */
  readonly timeoutMs: number;
  /** Static steps at all nesting levels, without `$root`. */
  readonly stepCount: number;
  /** Every step in document order (parents before children). */
  steps(): StepInfo[];
  step(id: string): StepInfo | undefined;
  /** Queues of all TASK and POLL steps, sorted, without repeats (Start locks them: A1.3). */
  queues(): string[];
  /** Instance input problems against the input schema, paths under `rootPath` (A4.1). */
  validateInput(input: JsonValue, rootPath?: string): Problem[];
  /** The Start snapshot: every step and `$root` PENDING. */
  initialSnapshot(input: JsonValue, allowNew?: boolean): Snapshot;
  /** One planning round: 1 ≤ limit ≤ 32 (E3.2). Throws `EngineError` for an inconsistent snapshot. */
  plan(snapshot: Snapshot, limit: number): PlanResult;
  /** `classifyPoll` with this Program's classifier of POLL step `stepId`. */
  classifyPoll(stepId: string, result: JsonValue): PollClassification;
  /**
   * Operator recovery of a FAILED / NEEDS_REVIEW step (`reopen.ts`): the snapshot to persist
   * and, for a retry, the step's new activation. Throws `EngineError` (`recovery_*`, or a
   * consistency code for a bad snapshot).
   */
  reopen(snapshot: Snapshot, stepId: string, recovery: Recovery): Reopened;
}

export type CompileResult =
  | { readonly ok: true; readonly program: Program }
  | { readonly ok: false; readonly problems: readonly Problem[] };

/**
 * Validates a schema_version 1 definition and compiles it (docs/definitions.md). Reports every
 * problem with its JSON path; never throws for a bad definition.
 *
 * @example
 * const result = compile(parse(text));
 * if (!result.ok) for (const p of result.problems) console.log(p.path, p.code, p.message);
 */
export function compile(definition: JsonValue): CompileResult {
  const problems: Problem[] = [];
  const compiled = compileDefinition(definition, problems);
  if (compiled === undefined) {
    return { ok: false, problems };
  }
  return { ok: true, program: createProgram(compiled) };
}

function createProgram(definition: CompiledDefinition): Program {
  const queues = [
    ...new Set(definition.nodes.flatMap((node) => ('queue' in node ? [node.queue] : []))),
  ].sort();
  // Shared by every instance of a version: one shallow freeze keeps a caller from replacing a
  // method or property under the others (the data behind it is private to these closures).
  return Object.freeze<Program>({
    name: definition.name,
    timeoutMs: definition.timeoutMs,
    stepCount: definition.nodes.length,
    steps: () => definition.nodes.map((node) => toStepInfo(definition, node)),
    step: (id) => {
      const index = definition.ids.get(id);
      const node = index === undefined ? undefined : definition.nodes[index];
      return node === undefined ? undefined : toStepInfo(definition, node);
    },
    queues: () => [...queues],
    validateInput: (input, rootPath = '$') => validateInput(definition, input, rootPath),
    initialSnapshot: (input, allowNew = true) => initialSnapshot(definition, input, allowNew),
    plan: (snapshot, limit) => planRound(definition, snapshot, limit),
    reopen: (snapshot, stepId, recovery) => reopenStep(definition, snapshot, stepId, recovery),
    classifyPoll: (stepId, result) => {
      const index = definition.ids.get(stepId);
      const node = index === undefined ? undefined : definition.nodes[index];
      if (node?.kind !== 'POLL') {
        throw new EngineError(
          'invalid_argument',
          `"${stepId}" is not a POLL step of this definition`,
          { path: '$', stepId },
        );
      }
      return classifyWith(node.classifier, result);
    },
  });
}

function validateInput(
  definition: CompiledDefinition,
  input: JsonValue,
  rootPath: string,
): Problem[] {
  const size = serializedSize(input, LIMITS.maxInstanceInputBytes);
  if (size > LIMITS.maxInstanceInputBytes) {
    const message = `the input must be at most ${LIMITS.maxInstanceInputBytes} bytes as compact JSON`;
    return [{ path: rootPath, code: 'payload_too_large', message }];
  }
  const problems: Problem[] = [];
  validateValue(definition.inputType, input, rootPath, problems);
  return problems;
}

function initialSnapshot(
  definition: CompiledDefinition,
  input: JsonValue,
  allowNew: boolean,
): Snapshot {
  const steps = new Map<string, StepState>(
    definition.nodes.map((node) => [node.id, { kind: node.kind, status: 'PENDING' }]),
  );
  steps.set(ROOT_STEP_ID, { kind: 'ROOT', status: 'PENDING' });
  return { input, allowNew, steps };
}
