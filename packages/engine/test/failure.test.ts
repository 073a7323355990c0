import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  compileOk,
  definition,
  json,
  statusOf,
  step,
  succeed,
  summary,
  task,
  toJson,
  withStep,
} from './support/helpers.js';

// Failure semantics (docs/design/engine.md "Failure"): like Step Functions, a FAILED child fails
// its enclosing BRANCH/PARALLEL and, in the end, the root; in-flight siblings are cancelled first.

test('a FAILED task fails the root, naming the failed step', () => {
  const program = compileOk(definition([task('a'), task('b')]));
  const running = step(program, program.initialSnapshot(new Map())).snapshot;
  const round = step(program, withStep(running, 'a', { status: 'FAILED' }));
  assert.deepEqual(round.decisions, [
    {
      kind: 'FAIL',
      stepId: '$root',
      error: { code: 'child_failed', message: 'step "a" FAILED', stepId: 'a' },
    },
  ]);
  assert.equal(statusOf(round.snapshot, 'b'), 'PENDING', 'steps that never started stay PENDING');
  assert.deepEqual(program.plan(round.snapshot, 32).decisions, []);
});

const parallel = definition([
  {
    id: 'par',
    kind: 'PARALLEL',
    branches: {
      a: [task('a1'), task('a2')],
      b: [task('b1'), task('b2')],
      c: [{ id: 'c1', kind: 'SIGNAL', name: 'go', correlation: 'k' }],
      d: [{ id: 'inner', kind: 'PARALLEL', branches: { e: [task('e1')] } }],
    },
  },
  task('after'),
]);

test('a failed PARALLEL branch cancels the in-flight siblings, then fails the PARALLEL and the root', () => {
  const program = compileOk(parallel);
  let snapshot = step(program, program.initialSnapshot(new Map())).snapshot;
  snapshot = succeed(snapshot, 'b1');
  snapshot = withStep(snapshot, 'a1', { status: 'FAILED' });
  let round = step(program, snapshot);
  assert.deepEqual(summary(round.decisions), ['CANCEL c1', 'CANCEL e1']);
  assert.equal(statusOf(round.snapshot, 'b2'), 'PENDING', 'no new work in a failing scope');
  assert.deepEqual(program.plan(round.snapshot, 32).decisions, [], 'CANCEL is not repeated');
  round = step(program, withStep(round.snapshot, 'c1', { status: 'CANCELLED' }));
  assert.deepEqual(round.decisions, []);
  round = step(program, withStep(round.snapshot, 'e1', { status: 'CANCELLED' }));
  assert.deepEqual(
    round.decisions.map((d) =>
      d.kind === 'FAIL' ? [d.stepId, d.error.code, d.error.stepId] : d.kind,
    ),
    [
      ['inner', 'child_failed', 'e1'],
      ['par', 'child_failed', 'a1'],
      ['$root', 'child_failed', 'par'],
    ],
  );
  assert.equal(statusOf(round.snapshot, 'after'), 'PENDING');
});

test('[E4.6] child_failed names the FAILED child, not a sibling the failure cancelled that comes first', () => {
  const program = compileOk(
    definition([{ id: 'par', kind: 'PARALLEL', branches: { b: [task('b1')], a: [task('a1')] } }]),
  );
  let snapshot = step(program, program.initialSnapshot(new Map())).snapshot;
  let round = step(program, withStep(snapshot, 'a1', { status: 'FAILED' }));
  assert.deepEqual(summary(round.decisions), ['CANCEL b1']);
  snapshot = withStep(round.snapshot, 'b1', { status: 'CANCELLED' });
  round = step(program, snapshot);
  assert.deepEqual(
    round.decisions.map((d) => (d.kind === 'FAIL' ? [d.stepId, d.error.stepId] : d.kind)),
    [
      ['par', 'a1'],
      ['$root', 'par'],
    ],
  );
});

test('a sibling that needs review is not cancelled; the failing scope waits for it to settle', () => {
  const program = compileOk(
    definition([{ id: 'par', kind: 'PARALLEL', branches: { a: [task('a1')], b: [task('b1')] } }]),
  );
  let snapshot = step(program, program.initialSnapshot(new Map())).snapshot;
  snapshot = withStep(withStep(snapshot, 'a1', { status: 'FAILED' }), 'b1', {
    status: 'NEEDS_REVIEW',
  });
  assert.deepEqual(program.plan(snapshot, 32).decisions, []);
  const round = step(program, succeed(snapshot, 'b1'));
  assert.deepEqual(summary(round.decisions), ['FAIL par', 'FAIL $root']);
});

test('a step that needs review blocks its successors and the root', () => {
  const program = compileOk(definition([task('a'), task('b')]));
  const snapshot = withStep(step(program, program.initialSnapshot(new Map())).snapshot, 'a', {
    status: 'NEEDS_REVIEW',
  });
  assert.deepEqual(program.plan(snapshot, 32).decisions, []);
});

test('a cancelled step whose result arrives anyway (SUCCEEDED) settles the scope just the same', () => {
  const program = compileOk(
    definition([
      { id: 'par', kind: 'PARALLEL', branches: { a: [task('a1')], b: [task('b1'), task('b2')] } },
    ]),
  );
  let snapshot = step(program, program.initialSnapshot(new Map())).snapshot;
  snapshot = step(program, withStep(snapshot, 'a1', { status: 'FAILED' })).snapshot;
  assert.equal(snapshot.steps.get('b1')?.cancelRequested, true);
  const round = step(program, succeed(snapshot, 'b1'));
  assert.deepEqual(summary(round.decisions), ['FAIL par', 'FAIL $root']);
  assert.equal(statusOf(round.snapshot, 'b2'), 'PENDING');
});

test('data errors fail the step instead of activating it: missing reference, condition type error', () => {
  const program = compileOk(definition([task('t', { input: ['$.input.missing'] })]));
  const round = program.plan(program.initialSnapshot(json('{}')), 32);
  const fail = round.decisions[1];
  assert.ok(fail?.kind === 'FAIL');
  assert.equal(fail.error.code, 'reference_missing');
  assert.deepEqual(summary(round.decisions), ['ACTIVATE $root', 'FAIL t', 'FAIL $root']);

  const branch = compileOk(
    definition([
      { id: 'br', kind: 'BRANCH', cases: [{ when: { gt: ['$.input.v', 1] }, steps: [task('x')] }] },
    ]),
  );
  const decisions = branch.plan(branch.initialSnapshot(json('{"v":"text"}')), 32).decisions;
  assert.deepEqual(
    decisions.map((d) => (d.kind === 'FAIL' ? `${d.stepId}:${d.error.code}` : d.kind)),
    ['ACTIVATE', 'br:condition_type_error', '$root:child_failed'],
  );
  const missing = branch.plan(branch.initialSnapshot(json('{}')), 32).decisions[1];
  assert.ok(missing?.kind === 'FAIL' && missing.error.code === 'reference_missing');
});

test('an object member whose reference is missing is left out: missing stays missing, null stays null', () => {
  const program = compileOk(definition([task('t', { input: { note: '$.input.note', keep: 1 } })]));
  const absent = program.plan(program.initialSnapshot(json('{}')), 32).decisions[1];
  assert.ok(absent?.kind === 'ACTIVATE' && absent.node === 'TASK');
  assert.deepEqual(absent.input, json('{"keep":1}'));
  const explicit = program.plan(program.initialSnapshot(json('{"note":null}')), 32).decisions[1];
  assert.ok(explicit?.kind === 'ACTIVATE' && explicit.node === 'TASK');
  assert.deepEqual(explicit.input, json('{"note":null,"keep":1}'));
});

test('the output mapping and combined outputs have size limits; a missing mapped value fails the root', () => {
  const program = compileOk(
    definition([task('a')], { output: { v: '$.steps.a.output', w: ['$.steps.a.output.x'] } }),
  );
  const running = step(program, program.initialSnapshot(new Map())).snapshot;
  const missing = program.plan(succeed(running, 'a', json('{}')), 32).decisions;
  assert.deepEqual(
    missing.map((d) => (d.kind === 'FAIL' ? d.error.code : d.kind)),
    ['reference_missing'],
  );
  const big = program.plan(
    succeed(running, 'a', toJson({ x: 'y'.repeat(130 * 1024) })),
    32,
  ).decisions;
  assert.deepEqual(
    big.map((d) => (d.kind === 'FAIL' ? d.error.code : d.kind)),
    ['output_too_large'],
  );

  const par = compileOk(
    definition([{ id: 'p', kind: 'PARALLEL', branches: { a: [task('a')], b: [task('b')] } }]),
  );
  let snapshot = step(par, par.initialSnapshot(new Map())).snapshot;
  snapshot = succeed(
    succeed(snapshot, 'a', toJson('x'.repeat(128 * 1024))),
    'b',
    toJson('x'.repeat(128 * 1024)),
  );
  assert.deepEqual(summary(par.plan(snapshot, 32).decisions), ['FAIL p', 'FAIL $root']);
});
