/**
 * Step rows ↔ the engine's snapshot (docs/design/engine.md "Snapshot", runtime.md §1.4, §5).
 * One `weave_steps` row is one `StepState`: status, output (parsed with `@weave/json`, SUCCEEDED
 * only), case index, completed-by, cancel-requested. After a round (`applyDecisions`) the reverse
 * gives the column values to write, with exact number text (E3.13). Pure: no I/O, no clock.
 */
import type { JsonValue } from '@weave/json';
import { parse, stringify } from '@weave/json';
import type {
  PollCompletion,
  Snapshot,
  SnapshotStepKind,
  StepInfo,
  StepState,
  StepStatus,
} from '@weave/engine';
import { EngineError, ROOT_STEP_ID } from '@weave/engine';
import type { StepRow } from './rows.js';

/** One row → one `StepState`; a row that breaks the output rule rejects the round (E3.12). */
export function toStepState(row: StepRow): StepState {
  const state: { -readonly [K in keyof StepState]: StepState[K] } = {
    kind: row.kind,
    status: row.status,
  };
  if (row.output !== null) {
    if (row.status !== 'SUCCEEDED') {
      throw rowError(row, 'snapshot_output_not_succeeded', `an output on a ${row.status} step`);
    }
    state.output = parseOutput(row, row.output);
  }
  if (row.caseIndex !== null) {
    state.caseIndex = row.caseIndex;
  }
  if (row.completedBy !== null) {
    state.completedBy = row.completedBy;
  }
  if (row.cancelRequested) {
    state.cancelRequested = true;
  }
  return state;
}

/** The snapshot a round plans from: every step row of the instance, `$root` included. */
export function toSnapshot(options: {
  readonly input: JsonValue;
  readonly allowNew: boolean;
  readonly rows: readonly StepRow[];
}): Snapshot {
  const steps = new Map<string, StepState>();
  for (const row of options.rows) {
    if (steps.has(row.stepId)) {
      throw new RangeError(`weave_steps: step ${row.stepId} has two rows in one instance`);
    }
    steps.set(row.stepId, toStepState(row));
  }
  return { input: options.input, allowNew: options.allowNew, steps };
}

/** The `weave_steps` columns a `StepState` decides. */
export interface StepStateColumns {
  readonly status: StepStatus;
  /** JSON text (`@weave/json` `stringify`: number text kept exactly), exactly when SUCCEEDED. */
  readonly output: string | null;
  readonly caseIndex: number | null;
  readonly completedBy: PollCompletion | null;
  readonly cancelRequested: boolean;
}

export function toStepStateColumns(state: StepState): StepStateColumns {
  return withOutput(state, state.output === undefined ? null : stringify(state.output));
}

function withOutput(state: StepState, output: string | null): StepStateColumns {
  return {
    status: state.status,
    output,
    caseIndex: state.caseIndex ?? null,
    completedBy: state.completedBy ?? null,
    cancelRequested: state.cancelRequested === true,
  };
}

/** A step row the round changed: the values to write and its next revision. */
export interface StepWrite extends StepStateColumns {
  readonly stepRowId: string;
  readonly stepId: string;
  /** The row's revision + 1 (E4.2). */
  readonly revision: bigint;
}

/**
 * The step rows to update after a round: `after` is the post-round snapshot (`applyDecisions` on
 * the snapshot the round planned from, leaf settlements included); `rows` are the rows as read.
 * A row whose columns come out equal is left alone (its revision stays), except `$root`, which
 * every applied round bumps: its revision is the checkpoint revision (runtime.md §5.4, A3.2).
 * Call it once per applied round.
 */
export function toStepWrites(rows: readonly StepRow[], after: Snapshot): StepWrite[] {
  if (rows.length !== after.steps.size) {
    throw new RangeError(`the round has ${after.steps.size} steps for ${rows.length} step rows`);
  }
  const writes: StepWrite[] = [];
  for (const row of rows) {
    const state = after.steps.get(row.stepId);
    if (state === undefined) {
      throw new RangeError(`the round has no state for step row ${row.stepId}`);
    }
    const columns = columnsAfter(row, state);
    if (row.stepId === ROOT_STEP_ID || !sameColumns(row, columns)) {
      writes.push({
        stepRowId: row.id,
        stepId: row.stepId,
        revision: row.revision + 1n,
        ...columns,
      });
    }
  }
  return writes;
}

/** A step row to insert at Start, already in its post-round state (runtime.md §2.2). */
export interface NewStepRow extends StepStateColumns {
  readonly stepId: string;
  readonly kind: SnapshotStepKind;
  /** Document order; `$root` = 0. */
  readonly position: number;
  /** 1 if the first round left it PENDING, 2 if it changed it. */
  readonly revision: bigint;
}

/**
 * Start writes each step row once: `$root` and every step of `program.steps()` (document order),
 * in the state `after` (the first round applied to `program.initialSnapshot`) gives them.
 */
export function toNewStepRows(steps: readonly StepInfo[], after: Snapshot): NewStepRow[] {
  const all: { id: string; kind: SnapshotStepKind }[] = [
    { id: ROOT_STEP_ID, kind: 'ROOT' },
    ...steps.map((step) => ({ id: step.id, kind: step.kind })),
  ];
  if (all.length !== after.steps.size) {
    throw new RangeError(`the round has ${after.steps.size} steps for ${all.length} steps`);
  }
  return all.map(({ id, kind }, position) => {
    const state = after.steps.get(id);
    if (state === undefined) {
      throw new RangeError(`the round has no state for step ${id}`);
    }
    const columns = toStepStateColumns(state);
    const untouched = sameColumns(PENDING_COLUMNS, columns);
    return { stepId: id, kind, position, revision: untouched ? 1n : 2n, ...columns };
  });
}

const PENDING_COLUMNS: StepStateColumns = {
  status: 'PENDING',
  output: null,
  caseIndex: null,
  completedBy: null,
  cancelRequested: false,
};

/**
 * A SUCCEEDED step stays as it is: no transition leaves SUCCEEDED (COMPLETE needs ACTIVE,
 * settlements start from ACTIVE/WAITING), so its stored output text is kept, never re-encoded.
 */
function columnsAfter(row: StepRow, state: StepState): StepStateColumns {
  if (row.status === 'SUCCEEDED' && state.status === 'SUCCEEDED') {
    return withOutput(state, row.output);
  }
  return toStepStateColumns(state);
}

function sameColumns(a: StepStateColumns, b: StepStateColumns): boolean {
  return (
    a.status === b.status &&
    a.output === b.output &&
    a.caseIndex === b.caseIndex &&
    a.completedBy === b.completedBy &&
    a.cancelRequested === b.cancelRequested
  );
}

function parseOutput(row: StepRow, text: string): JsonValue {
  try {
    return parse(text);
  } catch (error: unknown) {
    throw rowError(row, 'snapshot_type_mismatch', 'an output that is not JSON text', error);
  }
}

function rowError(
  row: StepRow,
  code: 'snapshot_output_not_succeeded' | 'snapshot_type_mismatch',
  what: string,
  cause?: unknown,
): EngineError {
  const path = `${stepPath(row.stepId)}.output`;
  return new EngineError(
    code,
    `${path}: weave_steps row ${row.id} has ${what}`,
    { path, stepId: row.stepId },
    cause === undefined ? undefined : { cause },
  );
}

/** `$.steps.<id>`, or `$.steps["$root"]`, as the engine writes snapshot paths. */
function stepPath(stepId: string): string {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(stepId)
    ? `$.steps.${stepId}`
    : `$.steps[${stringify(stepId)}]`;
}
