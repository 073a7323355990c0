import assert from 'node:assert/strict';
import type { JsonInput, JsonValue } from '@weave/json';
import { parse, stringify } from '@weave/json';
import type { Decision, Program, Snapshot, StepState } from '../../src/index.js';
import { applyDecisions, compile } from '../../src/index.js';

/** Exact JSON from text: `json('{"a":1.50}')`. */
export function json(text: string): JsonValue {
  return parse(text);
}

/** Exact JSON from a plain JS value (numbers must be safe integers or `{ kind: 'number', text }`). */
export function toJson(value: JsonInput): JsonValue {
  return parse(stringify(value));
}

/** A definition around `steps` (plain JS), with optional extra top-level members. */
export function definition(steps: unknown[], extra: Record<string, unknown> = {}): JsonValue {
  return toJson({ schema_version: 1, name: 'test', steps, ...extra });
}

export function compileOk(value: JsonValue): Program {
  const result = compile(value);
  if (!result.ok) {
    assert.fail(`expected a valid definition, got ${stringify(result.problems)}`);
  }
  return result.program;
}

export function task(id: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { id, kind: 'TASK', queue: 'work', ...extra };
}

/** A step state change as the runtime would make it (a task result, a timer firing…). */
export function withStep(
  snapshot: Snapshot,
  id: string,
  change: Omit<StepState, 'kind'>,
): Snapshot {
  const current = snapshot.steps.get(id);
  assert.ok(current, `no step ${id}`);
  const steps = new Map(snapshot.steps);
  steps.set(id, { kind: current.kind, ...change });
  return { ...snapshot, steps };
}

export function succeed(snapshot: Snapshot, id: string, output: JsonValue = null): Snapshot {
  return withStep(snapshot, id, { status: 'SUCCEEDED', output });
}

/** Plans one round with `limit` and applies it; returns both. */
export function step(
  program: Program,
  snapshot: Snapshot,
  limit = 32,
): { snapshot: Snapshot; decisions: readonly Decision[]; more: boolean } {
  const result = program.plan(snapshot, limit);
  return {
    snapshot: applyDecisions(snapshot, result.decisions),
    decisions: result.decisions,
    more: result.more,
  };
}

/** `KIND id` for each decision, for compact assertions. */
export function summary(decisions: readonly Decision[]): string[] {
  return decisions.map((d) => `${d.kind} ${d.stepId}`);
}

export function statusOf(snapshot: Snapshot, id: string): string | undefined {
  return snapshot.steps.get(id)?.status;
}

/** The started snapshot: round 1 planned and applied. */
export function started(program: Program, input: JsonValue = new Map()): Snapshot {
  return step(program, program.initialSnapshot(input)).snapshot;
}

/** Asserts `fn` throws an `EngineError` with `code` and `details.path` (STYLE.md §5). */
export function assertRejected(fn: () => unknown, code: string, path?: string): void {
  assert.throws(fn, (error: unknown) => {
    const { code: actual, details } = error as { code?: unknown; details?: { path?: unknown } };
    assert.equal(actual, code, String(error));
    if (path !== undefined) {
      assert.equal(details?.path, path, String(error));
    }
    return true;
  });
}
