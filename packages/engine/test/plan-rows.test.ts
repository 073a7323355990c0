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
} from './support/helpers.js';

// One test per row of seed 000 §3's table, plus the planner's own contract (E3.2): sequence,
// BRANCH and PARALLEL here; the rows per leaf kind, the pause gate and bounded advance in
// plan-steps.test.ts.

test('[E3.2] limit must be an integer from 1 to 32', () => {
  const program = compileOk(definition([task('a')]));
  const snapshot = program.initialSnapshot(new Map());
  for (const limit of [0, 33, 1.5, Number.NaN]) {
    assert.throws(() => program.plan(snapshot, limit), {
      code: 'invalid_argument',
      details: { path: '$.limit', limit: 32 },
    });
  }
  assert.equal(program.plan(snapshot, 1).decisions.length, 1);
  assert.equal(program.plan(snapshot, 32).decisions.length, 2);
});

test('[E3.2] planning is pure: the same snapshot gives the same decisions and is not changed', () => {
  const program = compileOk(definition([task('a', { input: { x: '$.input.x' } })]));
  const snapshot = program.initialSnapshot(json('{"x":[1,2]}'));
  const before = new Map(snapshot.steps);
  const first = program.plan(snapshot, 32);
  const second = program.plan(snapshot, 32);
  assert.deepEqual(first, second);
  assert.deepEqual(snapshot.steps, before);
});

test('[E3.3] a sequence activates each step only after its predecessor SUCCEEDED, reading its output', () => {
  const program = compileOk(
    definition([task('a'), task('b', { input: { prev: '$.steps.a.output.v' } }), task('c')]),
  );
  let round = step(program, program.initialSnapshot(new Map()));
  assert.deepEqual(summary(round.decisions), ['ACTIVATE $root', 'ACTIVATE a']);
  assert.deepEqual(program.plan(round.snapshot, 32).decisions, []);
  round = step(program, succeed(round.snapshot, 'a', json('{"v":12.50}')));
  assert.deepEqual(summary(round.decisions), ['ACTIVATE b']);
  const b = round.decisions[0];
  assert.ok(b?.kind === 'ACTIVATE' && b.node === 'TASK');
  assert.deepEqual(b.input, json('{"prev":12.50}'));
  round = step(program, succeed(round.snapshot, 'b'));
  round = step(program, succeed(round.snapshot, 'c', json('"done"')));
  assert.deepEqual(round.decisions, [{ kind: 'COMPLETE', stepId: '$root', output: 'done' }]);
});

const branchDefinition = definition(
  [
    {
      id: 'br',
      kind: 'BRANCH',
      cases: [
        {
          when: { gt: ['$.input.amount', 1000] },
          steps: [task('big1'), task('big2'), task('big3')],
        },
        { when: { eq: ['$.input.amount', 0] }, steps: [task('zero')] },
      ],
      default: [task('small')],
    },
    task('after', { input: { from: '$.steps.br.output' } }),
  ],
  { input: { type: 'object', properties: { amount: { type: 'number' } } } },
);

test('[E3.4] a BRANCH chooses by condition once, saves the case index, and SKIPs unchosen steps', () => {
  const program = compileOk(branchDefinition);
  const round = step(program, program.initialSnapshot(json('{"amount":5}')));
  assert.deepEqual(summary(round.decisions), [
    'ACTIVATE $root',
    'ACTIVATE br',
    'ACTIVATE small',
    'SKIP big1',
    'SKIP big2',
    'SKIP big3',
    'SKIP zero',
  ]);
  assert.deepEqual(round.decisions[1], {
    kind: 'ACTIVATE',
    stepId: 'br',
    node: 'BRANCH',
    caseIndex: 2,
  });
  assert.equal(round.snapshot.steps.get('br')?.caseIndex, 2);
  const done = step(program, succeed(round.snapshot, 'small', json('{"s":1}')));
  assert.deepEqual(summary(done.decisions), ['COMPLETE br', 'ACTIVATE after']);
  assert.deepEqual(done.decisions[0], { kind: 'COMPLETE', stepId: 'br', output: json('{"s":1}') });
});

test('[E3.4] a BRANCH re-advance reuses the saved case index, whatever the data says now', () => {
  const program = compileOk(branchDefinition);
  let snapshot = step(program, program.initialSnapshot(json('{"amount":5000}'))).snapshot;
  assert.equal(snapshot.steps.get('br')?.caseIndex, 0);
  // Storage hands a different input (it never would): the saved index still decides.
  snapshot = { ...succeed(snapshot, 'big1'), input: json('{"amount":0}') };
  const round = step(program, snapshot);
  assert.deepEqual(summary(round.decisions), ['ACTIVATE big2']);
  assert.equal(round.snapshot.steps.get('br')?.caseIndex, 0);
});

test('[E3.4] unchosen paths are SKIPPED in batches when the budget is small', () => {
  const program = compileOk(branchDefinition);
  let round = step(program, program.initialSnapshot(json('{"amount":5}')), 4);
  assert.deepEqual(summary(round.decisions), [
    'ACTIVATE $root',
    'ACTIVATE br',
    'ACTIVATE small',
    'SKIP big1',
  ]);
  assert.equal(round.more, true);
  round = step(program, round.snapshot, 2);
  assert.deepEqual(summary(round.decisions), ['SKIP big2', 'SKIP big3']);
  assert.equal(round.more, true);
  round = step(program, round.snapshot, 2);
  assert.deepEqual(summary(round.decisions), ['SKIP zero']);
  assert.equal(round.more, false);
  assert.equal(statusOf(round.snapshot, 'br'), 'ACTIVE');
});

test('[E3.5] PARALLEL branches see the data from before the node; the join exists only when all are done', () => {
  const program = compileOk(
    definition([
      task('before'),
      {
        id: 'par',
        kind: 'PARALLEL',
        branches: {
          left: [
            task('l1', { input: { b: '$.steps.before.output' } }),
            task('l2', { input: { l1: '$.steps.l1.output' } }),
          ],
          right: [task('r1', { input: { b: '$.steps.before.output' } })],
          empty: [],
        },
      },
      task('after', { input: { joined: '$.steps.par.output' } }),
    ]),
  );
  let round = step(
    program,
    succeed(step(program, program.initialSnapshot(new Map())).snapshot, 'before', json('7')),
  );
  assert.deepEqual(summary(round.decisions), ['ACTIVATE par', 'ACTIVATE l1', 'ACTIVATE r1']);
  for (const decision of round.decisions.slice(1)) {
    assert.ok(decision.kind === 'ACTIVATE' && decision.node === 'TASK');
    assert.deepEqual(decision.input, json('{"b":7}'));
  }
  round = step(program, succeed(round.snapshot, 'r1', json('"R"')));
  assert.deepEqual(round.decisions, []);
  round = step(program, succeed(round.snapshot, 'l1', json('"L1"')));
  assert.deepEqual(summary(round.decisions), ['ACTIVATE l2']);
  round = step(program, succeed(round.snapshot, 'l2', json('"L2"')));
  assert.deepEqual(summary(round.decisions), ['COMPLETE par', 'ACTIVATE after']);
  const joined = json('{"left":"L2","right":"R","empty":null}');
  assert.deepEqual(round.decisions[0], { kind: 'COMPLETE', stepId: 'par', output: joined });
  const after = round.decisions[1];
  assert.ok(after?.kind === 'ACTIVATE' && after.node === 'TASK');
  assert.deepEqual(after.input, toJson({ joined: { left: 'L2', right: 'R', empty: null } }));
});
