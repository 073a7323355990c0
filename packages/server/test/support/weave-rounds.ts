/**
 * Rounds of the real planner for the pure model tests: compile a definition, plan, apply the
 * decisions with the engine's reference model (`applyDecisions`), and play the step rows the way
 * the database would hold them (inserted at Start, then updated by each round's writes).
 */
import assert from 'node:assert/strict';
import type { JsonValue } from '@weave/json';
import { parse, stringify } from '@weave/json';
import type { Decision, Program, Snapshot, StepState } from '@weave/engine';
import { applyDecisions, compile } from '@weave/engine';
import type { StepRow } from '../../src/weave/model/rows.js';
import type { NewStepRow, StepWrite } from '../../src/weave/model/snapshot-rows.js';

/** A program from definition steps (plain JS; exact numbers as `{ kind: 'number', text }`). */
export function programOf(steps: unknown[], extra: Record<string, unknown> = {}): Program {
  const result = compile(parse(stringify({ schema_version: 1, name: 'test', steps, ...extra })));
  if (!result.ok) {
    assert.fail(`expected a valid definition, got ${stringify(result.problems)}`);
  }
  return result.program;
}

export interface Round {
  readonly decisions: readonly Decision[];
  readonly more: boolean;
  readonly after: Snapshot;
}

export function planRound(program: Program, snapshot: Snapshot, limit = 32): Round {
  const { decisions, more } = program.plan(snapshot, limit);
  return { decisions, more, after: applyDecisions(snapshot, decisions) };
}

/** A leaf settled by storage from an outside event (a task result, a timer firing…). */
export function settle(
  snapshot: Snapshot,
  stepId: string,
  change: Omit<StepState, 'kind'>,
): Snapshot {
  const current = snapshot.steps.get(stepId);
  assert.ok(current !== undefined, stepId);
  const steps = new Map(snapshot.steps);
  steps.set(stepId, { kind: current.kind, ...change });
  return { ...snapshot, steps };
}

/** The rows Start inserted, with ids `100 + position` (what the RETURNING would give). */
export function insertedRows(rows: readonly NewStepRow[], updatedAt = 1n): StepRow[] {
  return rows.map((row) => ({
    id: String(100 + row.position),
    instanceId: '1',
    stepId: row.stepId,
    kind: row.kind,
    position: row.position,
    status: row.status,
    revision: row.revision,
    output: row.output,
    caseIndex: row.caseIndex,
    completedBy: row.completedBy,
    cancelRequested: row.cancelRequested,
    currentActivationId: null,
    activationCount: 0,
    errorCode: null,
    errorMessage: null,
    startedAt: null,
    finishedAt: null,
    updatedAt,
  }));
}

/** The rows after the batched `UPDATE weave_steps … CASE id` of one round. */
export function updatedRows(rows: readonly StepRow[], writes: readonly StepWrite[]): StepRow[] {
  const byId = new Map(writes.map((write) => [write.stepRowId, write]));
  return rows.map((row) => {
    const write = byId.get(row.id);
    if (write === undefined) {
      return row;
    }
    const { stepRowId: _id, stepId: _step, ...columns } = write;
    return { ...row, ...columns };
  });
}

export function json(text: string): JsonValue {
  return parse(text);
}

/** Status of every step by id, for short assertions. */
export function statuses(snapshot: Snapshot): Record<string, string> {
  return Object.fromEntries([...snapshot.steps].map(([id, step]) => [id, step.status]));
}
