/**
 * Step rows ↔ the engine's snapshot (docs/design/engine.md "Snapshot", runtime.md §2.2, §5):
 * rounds of the real planner, with the rows played as the database would hold them.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { JsonValue } from '@weave/json';
import type { Snapshot } from '@weave/engine';
import type { StepRow } from '../../../src/weave/model/rows.js';
import {
  toNewStepRows,
  toSnapshot,
  toStepState,
  toStepStateColumns,
  toStepWrites,
} from '../../../src/weave/model/snapshot-rows.js';
import {
  insertedRows,
  json,
  planRound,
  programOf,
  settle,
  statuses,
  updatedRows,
} from '../../support/weave-rounds.js';

const task = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  kind: 'TASK',
  queue: 'work',
  ...extra,
});

const EXACT = '{"n":12345678901234567890,"x":1e400,"d":0.10}';

/** What a round reads: the rows mapped back (input and allowNew come from the instance row). */
function read(input: JsonValue, rows: readonly StepRow[]): Snapshot {
  return toSnapshot({ input, allowNew: true, rows });
}

test('[A1.6] Start writes $root and every static step once, in document order, in the post-round state', () => {
  const program = programOf([
    task('a'),
    {
      id: 'br',
      kind: 'BRANCH',
      cases: [{ when: { eq: ['$.input.kind', 'x'] }, steps: [task('x1')] }],
      default: [task('d1')],
    },
    { id: 't', kind: 'TIMER', duration: 'PT1M' },
  ]);
  const start = planRound(program, program.initialSnapshot(json('{"kind":"x"}')));
  const rows = toNewStepRows(program.steps(), start.after);
  assert.deepEqual(
    rows.map((r) => [r.stepId, r.kind, r.position, r.status, r.revision]),
    [
      ['$root', 'ROOT', 0, 'ACTIVE', 2n],
      ['a', 'TASK', 1, 'ACTIVE', 2n],
      ['br', 'BRANCH', 2, 'PENDING', 1n],
      ['x1', 'TASK', 3, 'PENDING', 1n],
      ['d1', 'TASK', 4, 'PENDING', 1n],
      ['t', 'TIMER', 5, 'PENDING', 1n],
    ],
  );
  assert.deepEqual(read(json('{"kind":"x"}'), insertedRows(rows)).steps, start.after.steps);
});

test('[A3.1] $root is a step row of kind ROOT and the snapshot holds it under "$root"', () => {
  const program = programOf([]);
  const start = planRound(program, program.initialSnapshot(json('{}')));
  const [root] = insertedRows(toNewStepRows(program.steps(), start.after));
  assert.ok(root !== undefined);
  assert.deepEqual([root.stepId, root.kind, root.position], ['$root', 'ROOT', 0]);
  assert.deepEqual(toStepState(root), { kind: 'ROOT', status: 'SUCCEEDED', output: null });
  assert.equal(root.output, 'null');
  assert.deepEqual([...read(json('{}'), [root]).steps.keys()], ['$root']);
});

test('[E4.3] a whole run: every round plans from exactly what the previous round wrote', () => {
  const program = programOf(
    [
      task('a'),
      {
        id: 'br',
        kind: 'BRANCH',
        cases: [{ when: { eq: ['$.input.kind', 'x'] }, steps: [task('x1')] }],
        default: [],
      },
      {
        id: 'p',
        kind: 'PARALLEL',
        branches: { l: [task('l1')], r: [{ id: 'r1', kind: 'TIMER', duration: 'PT1S' }] },
      },
    ],
    { output: { a: '$.steps.a.output', p: '$.steps.p.output' } },
  );
  const input = json('{"kind":"x"}');
  const start = planRound(program, program.initialSnapshot(input));
  let rows = insertedRows(toNewStepRows(program.steps(), start.after));
  const events: [string, JsonValue][] = [
    ['a', json(EXACT)],
    ['x1', json('{"ok":true}')],
    ['r1', null],
    ['l1', json('[1.0,2e5]')],
  ];
  for (const [stepId, output] of events) {
    const settled = settle(read(input, rows), stepId, { status: 'SUCCEEDED', output });
    const round = planRound(program, settled);
    rows = updatedRows(rows, toStepWrites(rows, round.after));
    assert.deepEqual(read(input, rows).steps, round.after.steps, `after ${stepId}`);
  }
  const byId = new Map(rows.map((r) => [r.stepId, r]));
  assert.deepEqual(statuses(read(input, rows)), {
    $root: 'SUCCEEDED',
    a: 'SUCCEEDED',
    br: 'SUCCEEDED',
    x1: 'SUCCEEDED',
    p: 'SUCCEEDED',
    l1: 'SUCCEEDED',
    r1: 'SUCCEEDED',
  });
  assert.equal(byId.get('a')?.output, EXACT);
  assert.equal(byId.get('r1')?.output, 'null');
  assert.equal(byId.get('$root')?.output, `{"a":${EXACT},"p":{"l":[1.0,2e5],"r":null}}`);
  assert.equal(byId.get('br')?.caseIndex, 0);
});

test('[E3.13] exact numbers go through the output text unchanged: 1e400 and 12345678901234567890', () => {
  const output = json(EXACT);
  const columns = toStepStateColumns({ kind: 'TASK', status: 'SUCCEEDED', output });
  assert.equal(columns.output, EXACT);
  const [row] = insertedRows([
    { stepId: 'a', kind: 'TASK', position: 1, revision: 2n, ...columns },
  ]);
  assert.ok(row !== undefined);
  const back = toStepState(row).output;
  assert.deepEqual(back, output);
  assert.ok(back instanceof Map);
  assert.deepEqual(back.get('n'), { kind: 'number', text: '12345678901234567890' });
  assert.deepEqual(back.get('x'), { kind: 'number', text: '1e400' });
  assert.deepEqual(back.get('d'), { kind: 'number', text: '0.10' });
});

test('[E4.2] a round bumps the revision of the rows it changed, and $root every time', () => {
  const program = programOf([task('a'), task('b'), task('c')]);
  const input = json('{}');
  const start = planRound(program, program.initialSnapshot(input));
  const rows = insertedRows(toNewStepRows(program.steps(), start.after));
  const settled = settle(read(input, rows), 'a', { status: 'SUCCEEDED', output: json('1') });
  const writes = toStepWrites(rows, planRound(program, settled).after);
  assert.deepEqual(
    writes.map((w) => [w.stepId, w.status, w.revision]),
    [
      ['$root', 'ACTIVE', 3n],
      ['a', 'SUCCEEDED', 3n],
      ['b', 'ACTIVE', 2n],
    ],
  );
  assert.deepEqual(
    writes.map((w) => w.stepRowId),
    ['100', '101', '102'],
  );
  const quiet = planRound(program, read(input, updatedRows(rows, writes)));
  assert.deepEqual(quiet.decisions, []);
  assert.deepEqual(
    toStepWrites(updatedRows(rows, writes), quiet.after).map((w) => [w.stepId, w.revision]),
    [['$root', 4n]],
  );
});

test('a SUCCEEDED step keeps its stored output text: it is never re-encoded', () => {
  const program = programOf([task('a'), task('b')]);
  const input = json('{}');
  const start = planRound(program, program.initialSnapshot(input));
  const rows = insertedRows(toNewStepRows(program.steps(), start.after)).map((row) =>
    row.stepId === 'a' ? { ...row, status: 'SUCCEEDED' as const, output: '{ "a" : 1.50 }' } : row,
  );
  const round = planRound(program, read(input, rows));
  assert.deepEqual(
    round.decisions.map((d) => `${d.kind} ${d.stepId}`),
    ['ACTIVATE b'],
  );
  const writes = toStepWrites(rows, round.after);
  assert.deepEqual(
    writes.map((w) => w.stepId),
    ['$root', 'b'],
  );
});

test('BRANCH case_index, POLL completed_by and cancel_requested are written and read back', () => {
  const program = programOf([
    {
      id: 'p',
      kind: 'PARALLEL',
      branches: {
        l: [
          {
            id: 'track',
            kind: 'POLL',
            queue: 'carrier',
            input: { label: 'L1' },
            interval: 'PT5M',
            max_rounds: 3,
            timeout: 'PT1H',
            classify: {
              path: '$.status',
              pending: ['WAIT'],
              succeeded: ['DONE'],
              failed: ['LOST'],
            },
          },
        ],
        m: [
          {
            id: 'br',
            kind: 'BRANCH',
            cases: [{ when: { eq: [1, 2] }, steps: [task('never')] }],
            default: [task('slow')],
          },
        ],
        r: [task('boom')],
      },
    },
  ]);
  const input = json('{}');
  const start = planRound(program, program.initialSnapshot(input));
  let rows = insertedRows(toNewStepRows(program.steps(), start.after));
  assert.equal(rows.find((r) => r.stepId === 'br')?.caseIndex, 1);
  const polled = settle(read(input, rows), 'track', {
    status: 'SUCCEEDED',
    output: json('{"status":"DONE"}'),
    completedBy: 'QUERY',
  });
  let round = planRound(program, polled);
  rows = updatedRows(rows, toStepWrites(rows, round.after));
  const failed = settle(read(input, rows), 'boom', { status: 'FAILED' });
  round = planRound(program, failed);
  assert.deepEqual(
    round.decisions.map((d) => `${d.kind} ${d.stepId}`),
    ['CANCEL slow'],
  );
  const writes = toStepWrites(rows, round.after);
  assert.deepEqual(
    writes.map((w) => [w.stepId, w.status, w.cancelRequested]),
    [
      ['$root', 'ACTIVE', false],
      ['slow', 'ACTIVE', true],
      ['boom', 'FAILED', false],
    ],
  );
  rows = updatedRows(rows, writes);
  const byId = new Map(rows.map((r) => [r.stepId, r]));
  assert.deepEqual(toStepState(byId.get('track') as StepRow), {
    kind: 'POLL',
    status: 'SUCCEEDED',
    output: json('{"status":"DONE"}'),
    completedBy: 'QUERY',
  });
  assert.deepEqual(toStepState(byId.get('slow') as StepRow), {
    kind: 'TASK',
    status: 'ACTIVE',
    cancelRequested: true,
  });
  assert.deepEqual(toStepState(byId.get('br') as StepRow), {
    kind: 'BRANCH',
    status: 'ACTIVE',
    caseIndex: 1,
  });
  assert.deepEqual(read(input, rows).steps, round.after.steps);
});

test('[E3.12] an output on a step that is not SUCCEEDED rejects the round', () => {
  const [row] = insertedRows([
    {
      stepId: 'a',
      kind: 'TASK',
      position: 1,
      revision: 2n,
      ...toStepStateColumns({ kind: 'TASK', status: 'ACTIVE' }),
      output: '1',
    },
  ]);
  assert.ok(row !== undefined);
  assert.throws(() => toStepState(row), {
    code: 'snapshot_output_not_succeeded',
    details: { path: '$.steps.a.output', stepId: 'a' },
  });
});

test('[E3.12] stored output text that is not JSON rejects the round', () => {
  const [row] = insertedRows([
    {
      stepId: '$root',
      kind: 'ROOT',
      position: 0,
      revision: 2n,
      ...toStepStateColumns({ kind: 'ROOT', status: 'SUCCEEDED', output: null }),
      output: '{"a":',
    },
  ]);
  assert.ok(row !== undefined);
  assert.throws(() => toStepState(row), {
    code: 'snapshot_type_mismatch',
    details: { path: '$.steps["$root"].output', stepId: '$root' },
  });
});

test('[E3.12] a saved kind is passed through, so the planner rejects one that is not the definition’s', () => {
  const program = programOf([task('a')]);
  const start = planRound(program, program.initialSnapshot(json('{}')));
  const rows = insertedRows(toNewStepRows(program.steps(), start.after)).map((row) =>
    row.stepId === 'a' ? { ...row, kind: 'TIMER' as const, status: 'WAITING' as const } : row,
  );
  assert.throws(() => program.plan(read(json('{}'), rows), 32), {
    code: 'snapshot_type_mismatch',
  });
});

test('writes are refused for a post-round snapshot that does not match the rows', () => {
  const program = programOf([task('a'), task('b')]);
  const start = planRound(program, program.initialSnapshot(json('{}')));
  const rows = insertedRows(toNewStepRows(program.steps(), start.after));
  assert.throws(() => toStepWrites(rows.slice(1), start.after), RangeError);
  const other = programOf([task('a'), task('c')]);
  const elsewhere = planRound(other, other.initialSnapshot(json('{}')));
  assert.throws(() => toStepWrites(rows, elsewhere.after), /no state for step row b/);
  assert.throws(() => toNewStepRows(other.steps(), start.after), /no state for step c/);
  assert.throws(() => read(json('{}'), [...rows, ...rows.slice(1, 2)]), /two rows/);
});
