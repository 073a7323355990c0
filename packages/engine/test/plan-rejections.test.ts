import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { JsonValue } from '@weave/json';
import type { Snapshot } from '../src/index.js';
import { assertRejected, json, step, succeed, withStep } from './support/helpers.js';
import { atPoll, patch, program, running } from './support/rejection-fixtures.js';

// E3.12: an inconsistent snapshot rejects the whole round with a typed error, never a partial
// list. Shape and position problems here; outputs in plan-rejections-outputs.test.ts.

test('the fixtures of this file are consistent', () => {
  assert.equal(running().steps.get('wait')?.status, 'WAITING');
  program.plan(atPoll(), 32);
});

test('[E3.12] a type mismatch rejects the round: saved kind, output value, case index, flags', () => {
  assertRejected(
    () =>
      program.plan(patch(running(), 'a', { kind: 'TIMER', status: 'SUCCEEDED', output: null }), 32),
    'snapshot_type_mismatch',
    '$.steps.a.kind',
  );
  assertRejected(
    () =>
      program.plan(
        withStep(running(), 'a', { status: 'SUCCEEDED', output: 5 as unknown as JsonValue }),
        32,
      ),
    'snapshot_type_mismatch',
    '$.steps.a.output',
  );
  const nested = new Map<string, unknown>([['n', [json('1'), { k: 2 }]]]) as unknown as JsonValue;
  assertRejected(
    () => program.plan(withStep(running(), 'a', { status: 'SUCCEEDED', output: nested }), 32),
    'snapshot_type_mismatch',
    '$.steps.a.output.n[1]',
  );
  assertRejected(
    () => program.plan(withStep(running(), 'br', { status: 'ACTIVE', caseIndex: 2 }), 32),
    'snapshot_type_mismatch',
    '$.steps.br.case_index',
  );
  assertRejected(
    () => program.plan(withStep(running(), 'br', { status: 'ACTIVE' }), 32),
    'snapshot_type_mismatch',
    '$.steps.br.case_index',
  );
  assertRejected(
    () =>
      program.plan(
        withStep(running(), 'a', { status: 'SUCCEEDED', output: null, caseIndex: 0 }),
        32,
      ),
    'snapshot_type_mismatch',
    '$.steps.a.case_index',
  );
  assertRejected(
    () => program.plan(withStep(running(), 'x1', { status: 'PENDING', cancelRequested: true }), 32),
    'snapshot_type_mismatch',
    '$.steps.x1.cancel_requested',
  );
  assertRejected(
    () => program.plan({ ...running(), allowNew: 'yes' as unknown as boolean }, 32),
    'snapshot_type_mismatch',
    '$.allow_new',
  );
  assertRejected(
    () => program.plan({ ...running(), input: 1 as unknown as JsonValue }, 32),
    'snapshot_type_mismatch',
    '$.input',
  );
});

test('[E3.12] an unknown status, or a status the step cannot have, rejects the round', () => {
  assertRejected(
    () => program.plan(patch(running(), 'x1', { kind: 'TASK', status: 'RUNNING' }), 32),
    'snapshot_invalid_status',
    '$.steps.x1.status',
  );
  const timerFailed = withStep(running(), 'wait', { status: 'FAILED' });
  assertRejected(
    () => program.plan(timerFailed, 32),
    'snapshot_invalid_status',
    '$.steps.wait.status',
  );
  assertRejected(
    () => program.plan(withStep(running(), 'par', { status: 'WAITING' }), 32),
    'snapshot_invalid_status',
    '$.steps.par.status',
  );
  assertRejected(
    () => program.plan(withStep(running(), '$root', { status: 'SKIPPED' }), 32),
    'snapshot_invalid_status',
    '$.steps["$root"].status',
  );
  assertRejected(
    () => program.plan(withStep(running(), 'x1', { status: 'WAITING' }), 32),
    'snapshot_invalid_status',
    '$.steps.x1.status',
  );
  const skippedInSequence = withStep(step(program, succeed(running(), 'wait')).snapshot, 'x1', {
    status: 'SKIPPED',
  });
  assertRejected(
    () => program.plan(skippedInSequence, 32),
    'snapshot_invalid_status',
    '$.steps.x1.status',
  );
});

test('[E3.12] a missing or unknown step rejects the round', () => {
  const missing = new Map(running().steps);
  missing.delete('y1');
  assertRejected(
    () => program.plan({ ...running(), steps: missing }, 32),
    'snapshot_missing_step',
    '$.steps.y1',
  );
  const noRoot = new Map(running().steps);
  noRoot.delete('$root');
  assertRejected(
    () => program.plan({ ...running(), steps: noRoot }, 32),
    'snapshot_missing_step',
    '$.steps["$root"]',
  );
  assertRejected(
    () => program.plan(patch(running(), 'ghost', { kind: 'TASK', status: 'PENDING' }), 32),
    'snapshot_unknown_step',
    '$.steps.ghost',
  );
});

test('[E3.12] an unreachable activation rejects the round', () => {
  const cases: [string, Snapshot, string][] = [
    [
      'after a step that has not succeeded',
      withStep(running(), 'x1', { status: 'ACTIVE' }),
      '$.steps.x1.status',
    ],
    [
      'under a PENDING composite',
      withStep(
        withStep(running(), 'br', { status: 'SUCCEEDED', output: null, caseIndex: 1 }),
        'y1',
        { status: 'ACTIVE' },
      ),
      '$.steps.wait.status',
    ],
    ['in an unchosen case', withStep(running(), 'big', { status: 'ACTIVE' }), '$.steps.big.status'],
    [
      'while the root is PENDING',
      withStep(program.initialSnapshot(new Map()), 'a', { status: 'ACTIVE' }),
      '$.steps.a.status',
    ],
    [
      'a SUCCEEDED step under a PENDING PARALLEL',
      withStep(running(), 'x1', { status: 'SUCCEEDED', output: null }),
      '$.steps.x1.status',
    ],
  ];
  for (const [why, snapshot, path] of cases) {
    assert.throws(
      () => program.plan(snapshot, 32),
      (e: unknown) => {
        const { code, details } = e as { code: string; details: { path: string } };
        assert.ok(
          ['snapshot_unreachable_step', 'snapshot_unsettled_children'].includes(code),
          `${why}: ${code}`,
        );
        if (code === 'snapshot_unreachable_step') {
          assert.equal(details.path, path, why);
        }
        return true;
      },
    );
  }
});

test('[E3.12] a round is rejected whole: a consistent part does not yield a partial list', () => {
  const atParallel = step(program, succeed(running(), 'wait')).snapshot;
  // x1 done (x2 could be activated), but y1 claims a status it cannot have.
  const mixed = withStep(succeed(atParallel, 'x1'), 'y1', { status: 'SKIPPED' });
  assertRejected(() => program.plan(mixed, 32), 'snapshot_invalid_status', '$.steps.y1.status');
});
