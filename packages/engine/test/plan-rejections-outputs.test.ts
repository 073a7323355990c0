import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compileDefinition } from '../src/compile-definition.js';
import { loadState } from '../src/load-snapshot.js';
import { readContext } from '../src/outputs.js';
import {
  assertRejected,
  compileOk,
  definition,
  json,
  step,
  succeed,
  task,
  withStep,
} from './support/helpers.js';
import { atPoll, program, running } from './support/rejection-fixtures.js';

// E3.12, E3.14: unsettled children, forged outputs and reads of outputs that were never saved
// reject the whole round.

test('[E3.12] a finished composite with unsettled children rejects the round', () => {
  const atParallel = step(program, succeed(running(), 'wait')).snapshot;
  const parDone = withStep(atParallel, 'par', {
    status: 'SUCCEEDED',
    output: json('{"x":null,"y":null}'),
  });
  assertRejected(
    () => program.plan(parDone, 32),
    'snapshot_unsettled_children',
    '$.steps.x1.status',
  );
  const parFailed = withStep(withStep(atParallel, 'par', { status: 'FAILED' }), 'x1', {
    status: 'FAILED',
  });
  assertRejected(
    () => program.plan(parFailed, 32),
    'snapshot_unsettled_children',
    '$.steps.y1.status',
  );
  const branchDone = withStep(running(), 'br', { status: 'SUCCEEDED', output: null, caseIndex: 1 });
  const unskipped = withStep(
    withStep(branchDone, 'wait', { status: 'SUCCEEDED', output: null }),
    'big',
    { status: 'PENDING' },
  );
  assertRejected(
    () => program.plan(unskipped, 32),
    'snapshot_unsettled_children',
    '$.steps.big.status',
  );
  const rootDone = withStep(running(), '$root', { status: 'SUCCEEDED', output: null });
  assertRejected(
    () => program.plan(rootDone, 32),
    'snapshot_unsettled_children',
    '$.steps.br.status',
  );
});

test('[E3.12] a forged composite or root output rejects the round', () => {
  const atParallel = step(program, succeed(running(), 'wait')).snapshot;
  const branch = atParallel.steps.get('br');
  assert.equal(branch?.status, 'SUCCEEDED');
  assertRejected(
    () => program.plan(withStep(atParallel, 'br', { ...branch, output: json('"forged"') }), 32),
    'snapshot_forged_output',
    '$.steps.br.output',
  );
  const done = succeed(
    succeed(succeed(atParallel, 'x1', json('1')), 'x2', json('2')),
    'y1',
    json('3'),
  );
  const joined = step(program, done).snapshot;
  assert.deepEqual(joined.steps.get('par')?.output, json('{"x":2,"y":3}'));
  assert.doesNotThrow(() =>
    program.plan(
      withStep(joined, 'par', { status: 'SUCCEEDED', output: json('{"y":3,"x":2.0}') }),
      32,
    ),
  );
  for (const forged of ['{"x":2}', '{"x":2,"y":4}', '{"x":2,"y":3,"z":1}', '[2,3]']) {
    assertRejected(
      () =>
        program.plan(withStep(joined, 'par', { status: 'SUCCEEDED', output: json(forged) }), 32),
      'snapshot_forged_output',
      '$.steps.par.output',
    );
  }
  const finished = step(
    program,
    withStep(atPoll(), 'poll', {
      status: 'SUCCEEDED',
      output: json('{"s":"OK"}'),
      completedBy: 'QUERY',
    }),
  ).snapshot;
  assert.equal(finished.steps.get('$root')?.status, 'SUCCEEDED');
  assertRejected(
    () =>
      program.plan(
        withStep(finished, '$root', { status: 'SUCCEEDED', output: json('{"s":"NO"}') }),
        32,
      ),
    'snapshot_forged_output',
    '$.steps["$root"].output',
  );
  assertRejected(
    () => program.plan(withStep(finished, '$root', { status: 'SUCCEEDED' }), 32),
    'snapshot_output_missing',
    '$.steps["$root"].output',
  );
});

test('[E3.12] outputs are read only from SUCCEEDED steps', () => {
  const withOutput = withStep(running(), 'wait', { status: 'WAITING', output: json('1') });
  assertRejected(
    () => program.plan(withOutput, 32),
    'snapshot_output_not_succeeded',
    '$.steps.wait.output',
  );
  assertRejected(
    () => program.plan(withStep(running(), 'a', { status: 'SUCCEEDED' }), 32),
    'snapshot_output_missing',
    '$.steps.a.output',
  );
  const value = definition([task('a'), task('b', { input: '$.steps.a.output' })]);
  const compiled = compileDefinition(value, []);
  assert.ok(compiled);
  const state = loadState(compiled, compileOk(value).initialSnapshot(new Map()));
  assertRejected(
    () => readContext(state).outputOf(0),
    'snapshot_output_not_succeeded',
    '$.steps.a',
  );
});

test('[E3.14] a SUCCEEDED POLL whose result does not classify as SUCCEEDED never advances', () => {
  for (const [output, completedBy] of [
    ['{"s":"P"}', 'QUERY'],
    ['{"s":"BAD"}', 'QUERY'],
    ['{"s":"HUH"}', 'QUERY'],
    ['{"s":"??"}', 'QUERY'],
    ['{"t":1}', 'QUERY'],
    ['{"s":"OK"}', 'FINAL_SIGNAL'],
  ] as const) {
    const forged = withStep(atPoll(), 'poll', {
      status: 'SUCCEEDED',
      output: json(output),
      completedBy,
    });
    assertRejected(() => program.plan(forged, 32), 'snapshot_poll_not_succeeded');
  }
  const noMarker = withStep(atPoll(), 'poll', { status: 'SUCCEEDED', output: json('{"s":"OK"}') });
  assertRejected(
    () => program.plan(noMarker, 32),
    'snapshot_type_mismatch',
    '$.steps.poll.completed_by',
  );
});
