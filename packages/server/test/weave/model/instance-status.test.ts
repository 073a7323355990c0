/**
 * The instance status after a round (docs/design/runtime.md §2.2 "Instance status after any
 * round", §4.2 for `ending`), on post-round snapshots of the real planner.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Snapshot } from '@weave/engine';
import type { InstanceStatusInput } from '../../../src/weave/model/instance-status.js';
import { toInstanceStatus } from '../../../src/weave/model/instance-status.js';
import type { Round } from '../../support/weave-rounds.js';
import { json, planRound, programOf, settle } from '../../support/weave-rounds.js';

const task = (id: string) => ({ id, kind: 'TASK', queue: 'work' });
const timer = (id: string) => ({ id, kind: 'TIMER', duration: 'PT1M' });
const signal = (id: string) => ({ id, kind: 'SIGNAL', name: 'go', correlation: 'c' });

function statusAfter(
  round: Pick<Round, 'after' | 'more'>,
  ending: InstanceStatusInput['ending'] = null,
) {
  return toInstanceStatus({ steps: round.after.steps, ending, pendingAdvance: round.more });
}

function startOf(steps: unknown[], extra: Record<string, unknown> = {}, input = '{}') {
  const program = programOf(steps, extra);
  return { program, start: planRound(program, program.initialSnapshot(json(input))) };
}

test('[A2.8] an empty workflow is SUCCEEDED at admission, with its output', () => {
  const { start } = startOf([], { output: { echo: '$.input.n' } }, '{"n":12345678901234567890}');
  assert.deepEqual(statusAfter(start), {
    status: 'SUCCEEDED',
    terminal: true,
    output: json('{"echo":12345678901234567890}'),
  });
  const bare = startOf([]).start;
  assert.deepEqual(statusAfter(bare), { status: 'SUCCEEDED', terminal: true, output: null });
});

test('[A2.8] a pure-wait workflow is WAITING', () => {
  const { start } = startOf([
    { id: 'par', kind: 'PARALLEL', branches: { a: [timer('t')], b: [signal('s')] } },
  ]);
  assert.deepEqual(statusAfter(start), { status: 'WAITING', terminal: false });
});

test('[A2.8] a task in flight is RUNNING, even next to waits', () => {
  const { start } = startOf([
    { id: 'par', kind: 'PARALLEL', branches: { a: [timer('t')], b: [task('work')] } },
  ]);
  assert.deepEqual(statusAfter(start), { status: 'RUNNING', terminal: false });
});

test('[A2.8] a POLL in flight is RUNNING', () => {
  const { start } = startOf([
    {
      id: 'track',
      kind: 'POLL',
      queue: 'carrier',
      input: {},
      interval: 'PT5M',
      max_rounds: 3,
      timeout: 'PT1H',
      classify: { path: '$.status', pending: ['WAIT'], succeeded: ['DONE'] },
    },
  ]);
  assert.deepEqual(statusAfter(start), { status: 'RUNNING', terminal: false });
});

test('[A2.8] pending changes (a pending advance) are RUNNING, even with only waits in flight', () => {
  const timers = Object.fromEntries(
    Array.from({ length: 40 }, (_, i) => [`b${i}`, [timer(`t${i}`)]]),
  );
  const { start } = startOf([{ id: 'par', kind: 'PARALLEL', branches: timers }]);
  assert.equal(start.more, true);
  assert.deepEqual(statusAfter(start), { status: 'RUNNING', terminal: false });
  assert.deepEqual(statusAfter({ ...start, more: false }), { status: 'WAITING', terminal: false });
});

test('[E4.6] a NEEDS_REVIEW leaf holds the instance as NEEDS_REVIEW', () => {
  const { program, start } = startOf([task('a'), task('b')]);
  const review = planRound(program, settle(start.after, 'a', { status: 'NEEDS_REVIEW' }));
  assert.deepEqual(review.decisions, []);
  assert.deepEqual(statusAfter(review), { status: 'NEEDS_REVIEW', terminal: false });
});

test('a NEEDS_REVIEW leaf next to a running task is RUNNING', () => {
  const { program, start } = startOf([
    { id: 'par', kind: 'PARALLEL', branches: { a: [task('x')], b: [task('y')] } },
  ]);
  const review = planRound(program, settle(start.after, 'x', { status: 'NEEDS_REVIEW' }));
  assert.deepEqual(statusAfter(review), { status: 'RUNNING', terminal: false });
});

test('[E4.6] a FAILED root fails the instance once the in-flight sibling has settled', () => {
  const { program, start } = startOf([
    { id: 'par', kind: 'PARALLEL', branches: { a: [task('x')], b: [task('y')] } },
  ]);
  const failing = planRound(program, settle(start.after, 'x', { status: 'FAILED' }));
  assert.deepEqual(
    failing.decisions.map((d) => `${d.kind} ${d.stepId}`),
    ['CANCEL y'],
  );
  assert.deepEqual(statusAfter(failing), { status: 'RUNNING', terminal: false });
  const failed = planRound(program, settle(failing.after, 'y', { status: 'CANCELLED' }));
  assert.equal(failed.after.steps.get('$root')?.status, 'FAILED');
  assert.deepEqual(statusAfter(failed), { status: 'FAILED', terminal: true });
});

test('[E4.6] ending TIMED_OUT with nothing in flight is TIMED_OUT, not the FAILED its cancels cause', () => {
  const { program, start } = startOf([task('a'), task('b')]);
  const cancelled = planRound(
    program,
    settle({ ...start.after, allowNew: false }, 'a', { status: 'CANCELLED' }),
  );
  assert.equal(cancelled.after.steps.get('$root')?.status, 'FAILED');
  assert.deepEqual(statusAfter(cancelled, 'TIMED_OUT'), { status: 'TIMED_OUT', terminal: true });
});

test('ending TIMED_OUT with a PENDING successor never activated is TIMED_OUT', () => {
  const { program, start } = startOf([task('a'), task('b')]);
  const late = planRound(
    program,
    settle({ ...start.after, allowNew: false }, 'a', { status: 'SUCCEEDED', output: json('1') }),
  );
  assert.deepEqual(late.decisions, []);
  assert.deepEqual(statusAfter(late, 'TIMED_OUT'), { status: 'TIMED_OUT', terminal: true });
});

test('ending TIMED_OUT: a late success that completes $root still ends TIMED_OUT (the deadline decided first)', () => {
  const { program, start } = startOf([task('a')]);
  const late = planRound(
    program,
    settle({ ...start.after, allowNew: false }, 'a', { status: 'SUCCEEDED', output: json('1') }),
  );
  assert.equal(late.after.steps.get('$root')?.status, 'SUCCEEDED');
  assert.deepEqual(statusAfter(late, 'TIMED_OUT'), { status: 'TIMED_OUT', terminal: true });
});

test('ending TIMED_OUT with a task still in flight is RUNNING until it settles', () => {
  const { start } = startOf([task('a')]);
  assert.deepEqual(statusAfter(start, 'TIMED_OUT'), { status: 'RUNNING', terminal: false });
});

test('[E4.6] ending TIMED_OUT does not override a NEEDS_REVIEW leaf (unknown effect)', () => {
  const { program, start } = startOf([task('a')]);
  const review = planRound(
    program,
    settle({ ...start.after, allowNew: false }, 'a', { status: 'NEEDS_REVIEW' }),
  );
  assert.deepEqual(statusAfter(review, 'TIMED_OUT'), { status: 'NEEDS_REVIEW', terminal: false });
});

test('ending TIMED_OUT with a pending advance waits for the advance', () => {
  const { start } = startOf([timer('t')]);
  const idle: Snapshot = settle(start.after, 't', { status: 'CANCELLED' });
  assert.deepEqual(
    toInstanceStatus({ steps: idle.steps, ending: 'TIMED_OUT', pendingAdvance: true }),
    { status: 'RUNNING', terminal: false },
  );
});

test('a snapshot without $root, or a CANCELLED $root with no ending, is refused', () => {
  assert.throws(
    () => toInstanceStatus({ steps: new Map(), ending: null, pendingAdvance: false }),
    /no \$root/,
  );
  const steps = new Map([['$root', { kind: 'ROOT' as const, status: 'CANCELLED' as const }]]);
  assert.throws(() => toInstanceStatus({ steps, ending: null, pendingAdvance: false }), RangeError);
});
