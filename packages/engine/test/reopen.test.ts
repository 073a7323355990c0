import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Program, Snapshot } from '../src/index.js';
import {
  assertRejected,
  compileOk,
  definition,
  json,
  statusOf,
  step,
  succeed,
  summary,
  task,
  withStep,
} from './support/helpers.js';

// Operator recovery (seed 000 §4 item 6, E4.6, A5.3; docs/design/engine.md "Recovery").

/** Plans and applies rounds until nothing more comes (a settled failure path). */
function settle(program: Program, snapshot: Snapshot): Snapshot {
  let current = snapshot;
  for (let i = 0; i < 10; i += 1) {
    const round = step(program, current);
    if (round.decisions.length === 0) {
      return current;
    }
    current = round.snapshot;
  }
  return current;
}

const parallel = definition([
  task('first'),
  {
    id: 'par',
    kind: 'PARALLEL',
    branches: {
      a: [task('a1', { input: { x: '$.input.x' } }), task('a2')],
      b: [task('b1')],
      c: [{ id: 'inner', kind: 'PARALLEL', branches: { d: [task('d1')] } }],
    },
  },
  task('after'),
]);

/** `par` failed for good: a1 FAILED, b1 and d1 cancelled, inner/par/$root FAILED. */
function failedInstance(program: Program): Snapshot {
  let snapshot = step(program, program.initialSnapshot(json('{"x":1.50}'))).snapshot;
  snapshot = step(program, succeed(snapshot, 'first')).snapshot;
  snapshot = step(program, withStep(snapshot, 'a1', { status: 'FAILED' })).snapshot;
  snapshot = withStep(snapshot, 'b1', { status: 'CANCELLED' });
  snapshot = withStep(snapshot, 'd1', { status: 'CANCELLED' });
  snapshot = settle(program, snapshot);
  assert.equal(statusOf(snapshot, '$root'), 'FAILED');
  assert.equal(statusOf(snapshot, 'inner'), 'FAILED');
  return snapshot;
}

test('[E4.6] retry of a FAILED TASK reopens its scopes; the cancelled siblings run again', () => {
  const program = compileOk(parallel);
  const failed = failedInstance(program);
  const result = program.reopen(failed, 'a1', { action: 'retry' });
  assert.deepEqual(result.reopened, ['$root', 'par', 'inner']);
  assert.deepEqual(result.reset, ['b1', 'd1']);
  assert.equal(statusOf(result.snapshot, 'a1'), 'ACTIVE');
  assert.equal(statusOf(result.snapshot, 'b1'), 'PENDING');
  assert.equal(result.snapshot.steps.get('b1')?.cancelRequested, undefined);
  assert.equal(statusOf(result.snapshot, 'after'), 'PENDING');
  assert.equal(result.activation?.node, 'TASK');
  assert.deepEqual(result.activation?.input, json('{"x":1.50}'));
  // Consistent (plan does not throw) and the planner continues: the reset leaves run again.
  const round = step(program, result.snapshot);
  assert.deepEqual(summary(round.decisions), ['ACTIVATE b1', 'ACTIVATE d1']);
  // Then the instance completes normally.
  let snapshot = round.snapshot;
  for (const id of ['a1', 'b1', 'd1']) {
    snapshot = step(program, succeed(snapshot, id)).snapshot;
  }
  snapshot = step(program, succeed(snapshot, 'a2')).snapshot;
  snapshot = step(program, succeed(snapshot, 'after')).snapshot;
  assert.equal(statusOf(snapshot, '$root'), 'SUCCEEDED');
});

test('[E4.6] retry with a corrected input keeps the exact number text', () => {
  const program = compileOk(parallel);
  const result = program.reopen(failedInstance(program), 'a1', {
    action: 'retry',
    input: json('{"x":1.500,"big":1e400}'),
  });
  const activation = result.activation;
  assert.ok(activation !== undefined && activation.node !== 'SIGNAL');
  assert.deepEqual(activation.input, json('{"x":1.500,"big":1e400}'));
});

test('[E4.6] resolve of a FAILED TASK: SUCCEEDED with the output, scopes reopened', () => {
  const program = compileOk(parallel);
  const result = program.reopen(failedInstance(program), 'a1', {
    action: 'resolve',
    output: json('{"ok":true}'),
  });
  assert.equal(result.activation, undefined);
  assert.deepEqual(result.snapshot.steps.get('a1'), {
    kind: 'TASK',
    status: 'SUCCEEDED',
    output: json('{"ok":true}'),
  });
  assert.deepEqual(summary(step(program, result.snapshot).decisions), [
    'ACTIVATE a2',
    'ACTIVATE b1',
    'ACTIVATE d1',
  ]);
});

test('[E4.6] NEEDS_REVIEW: retry, resolve and fail touch only the step', () => {
  const program = compileOk(definition([task('a'), task('b')]));
  const running = step(program, program.initialSnapshot(new Map())).snapshot;
  const review = withStep(running, 'a', { status: 'NEEDS_REVIEW' });
  const retried = program.reopen(review, 'a', { action: 'retry' });
  assert.deepEqual(retried.reopened, []);
  assert.equal(statusOf(retried.snapshot, 'a'), 'ACTIVE');
  assert.deepEqual(step(program, retried.snapshot).decisions, []);
  const resolved = program.reopen(review, 'a', { action: 'resolve', output: json('7') });
  assert.deepEqual(summary(step(program, resolved.snapshot).decisions), ['ACTIVATE b']);
  const failed = program.reopen(review, 'a', { action: 'fail' });
  assert.equal(statusOf(failed.snapshot, 'a'), 'FAILED');
  const round = step(program, failed.snapshot);
  assert.deepEqual(summary(round.decisions), ['FAIL $root']);
});

test('[E4.6] recovery refuses a step that is not FAILED or NEEDS_REVIEW, or of the wrong kind', () => {
  const program = compileOk(
    definition([task('a'), { id: 'w', kind: 'SIGNAL', name: 'go', correlation: 'k' }, task('b')]),
  );
  const running = step(program, program.initialSnapshot(new Map())).snapshot;
  assertRejected(
    () => program.reopen(running, 'a', { action: 'retry' }),
    'recovery_not_allowed',
    '$.steps.a.status',
  );
  assertRejected(
    () => program.reopen(running, 'nope', { action: 'retry' }),
    'recovery_not_allowed',
    '$.steps.nope',
  );
  const failed = settle(program, withStep(running, 'a', { status: 'FAILED' }));
  assertRejected(
    () => program.reopen(failed, 'a', { action: 'fail' }),
    'recovery_not_allowed',
    '$.steps.a.status',
  );
  let waiting = step(program, succeed(running, 'a')).snapshot;
  waiting = settle(program, withStep(waiting, 'w', { status: 'FAILED' }));
  assertRejected(
    () => program.reopen(waiting, 'w', { action: 'fail' }),
    'recovery_not_allowed',
    '$.steps.w.kind',
  );
  // A SIGNAL may be resolved with the payload the operator gives.
  const resolved = program.reopen(waiting, 'w', { action: 'resolve', output: json('{"p":1}') });
  assert.deepEqual(summary(step(program, resolved.snapshot).decisions), ['ACTIVATE b']);
});

test('[E4.6] another FAILED leaf in a reopened scope blocks the retry, naming it', () => {
  const program = compileOk(
    definition([{ id: 'par', kind: 'PARALLEL', branches: { a: [task('a1')], b: [task('b1')] } }]),
  );
  let snapshot = step(program, program.initialSnapshot(new Map())).snapshot;
  snapshot = withStep(snapshot, 'a1', { status: 'FAILED' });
  snapshot = withStep(snapshot, 'b1', { status: 'FAILED' });
  snapshot = settle(program, snapshot);
  assert.equal(statusOf(snapshot, '$root'), 'FAILED');
  assertRejected(
    () => program.reopen(snapshot, 'a1', { action: 'retry' }),
    'recovery_blocked',
    '$.steps.b1.status',
  );
  // A NEEDS_REVIEW step in a failing scope would be cancelled at once: refused too.
  let review = step(program, program.initialSnapshot(new Map())).snapshot;
  review = withStep(review, 'a1', { status: 'NEEDS_REVIEW' });
  review = settle(program, withStep(review, 'b1', { status: 'FAILED' }));
  assertRejected(
    () => program.reopen(review, 'a1', { action: 'retry' }),
    'recovery_blocked',
    '$.steps.b1.status',
  );
  // Resolving it settles the unknown effect; the scope then fails as before.
  const resolved = program.reopen(review, 'a1', { action: 'resolve', output: null });
  assert.deepEqual(summary(step(program, resolved.snapshot).decisions), ['FAIL par', 'FAIL $root']);
});

test('[A5.3] POLL retry and resolve: the output must classify as SUCCEEDED', () => {
  const program = compileOk(
    definition([
      {
        id: 'p',
        kind: 'POLL',
        queue: 'carrier',
        input: { id: '$.input.id' },
        interval: 'PT1M',
        max_rounds: 10,
        timeout: 'PT1H',
        classify: { path: '$.state', succeeded: ['DONE'], pending: ['WAIT'] },
      },
    ]),
  );
  const running = step(program, program.initialSnapshot(json('{"id":"X"}'))).snapshot;
  const failed = settle(program, withStep(running, 'p', { status: 'FAILED' }));
  const retried = program.reopen(failed, 'p', { action: 'retry' });
  assert.equal(retried.activation?.node, 'POLL');
  assert.equal(statusOf(retried.snapshot, '$root'), 'ACTIVE');
  assertRejected(
    () => program.reopen(failed, 'p', { action: 'resolve', output: json('{"state":"WAIT"}') }),
    'recovery_invalid_output',
    '$.output',
  );
  const resolved = program.reopen(failed, 'p', {
    action: 'resolve',
    output: json('{"state":"DONE"}'),
  });
  assert.equal(resolved.snapshot.steps.get('p')?.completedBy, 'QUERY');
  assert.equal(step(program, resolved.snapshot).decisions[0]?.kind, 'COMPLETE');
});

test('[E4.6] a step that failed at activation (broken reference) is retried with a corrected input', () => {
  const program = compileOk(definition([task('a', { input: ['$.input.missing'] })]));
  const failed = settle(program, program.initialSnapshot(new Map()));
  assert.equal(statusOf(failed, 'a'), 'FAILED');
  assertRejected(
    () => program.reopen(failed, 'a', { action: 'retry' }),
    'recovery_not_allowed',
    '$.input',
  );
  const fixed = program.reopen(failed, 'a', { action: 'retry', input: json('{"x":2}') });
  assert.ok(fixed.activation !== undefined && fixed.activation.node !== 'SIGNAL');
  assert.deepEqual(fixed.activation.input, json('{"x":2}'));
  assert.equal(fixed.activation?.node === 'TASK' && fixed.activation.queue, 'work');
});

test('[E4.6] retry is refused while no new work is allowed, and for an input over 256 KiB', () => {
  const program = compileOk(definition([task('a')]));
  const running = step(program, program.initialSnapshot(new Map())).snapshot;
  const review = withStep(running, 'a', { status: 'NEEDS_REVIEW' });
  assertRejected(
    () => program.reopen({ ...review, allowNew: false }, 'a', { action: 'retry' }),
    'recovery_not_allowed',
    '$.allow_new',
  );
  assertRejected(
    () => program.reopen(review, 'a', { action: 'retry', input: 'x'.repeat(256 * 1024) }),
    'recovery_invalid_input',
    '$.input',
  );
});

test('[A5.1] [E4.6] wait recovery: a timed-out SIGNAL is retried as a new wait, its scopes reopened; it takes no input', () => {
  const program = compileOk(
    definition([
      task('a'),
      { id: 'w', kind: 'SIGNAL', name: 'go', correlation: 'k', timeout: 'PT1M' },
      task('b'),
    ]),
  );
  let snapshot = step(program, program.initialSnapshot(new Map())).snapshot;
  snapshot = step(program, succeed(snapshot, 'a')).snapshot;
  snapshot = settle(program, withStep(snapshot, 'w', { status: 'FAILED' }));
  assert.equal(statusOf(snapshot, '$root'), 'FAILED');
  const retried = program.reopen(snapshot, 'w', { action: 'retry' });
  assert.equal(statusOf(retried.snapshot, 'w'), 'WAITING');
  assert.equal(statusOf(retried.snapshot, '$root'), 'ACTIVE');
  assert.ok(retried.activation?.node === 'SIGNAL');
  assert.equal(retried.activation.signalName, 'go');
  assert.equal(retried.activation.timeoutMs, 60_000);
  // The next round has nothing to do until the signal comes: the instance waits.
  assert.deepEqual(summary(step(program, retried.snapshot).decisions), []);
  assertRejected(
    () => program.reopen(snapshot, 'w', { action: 'retry', input: json('1') }),
    'recovery_invalid_input',
    '$.input',
  );
});
