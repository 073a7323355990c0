import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Decision } from '../src/index.js';
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
  toJson,
  withStep,
} from './support/helpers.js';

// Seed 000 §3 table, continued: the rows per step kind, the pause gate and bounded advance.

test('[E3.6] TASK returns the resolved input and task parameters, never an execution right', () => {
  const program = compileOk(
    definition([
      task('t', {
        queue: 'billing',
        input: { order: '$.input.order', fixed: [{ kind: 'number', text: '1.0' }, '$$5'] },
        timeout: 'PT30S',
        retry: {
          max_attempts: 5,
          initial_interval: 'PT2S',
          backoff_coefficient: 1.5,
          max_interval: 'PT1M',
          non_retryable_codes: ['bad_card'],
        },
        idempotent: true,
        trace_key: '$.input.trace',
        resource_key: 'account-1',
      }),
    ]),
  );
  const decision = program.plan(
    program.initialSnapshot(json('{"order":{"id":"A-1","total":10.10},"trace":"t-9"}')),
    32,
  ).decisions[1];
  assert.deepEqual(decision, {
    kind: 'ACTIVATE',
    stepId: 't',
    node: 'TASK',
    queue: 'billing',
    input: json('{"order":{"id":"A-1","total":10.10},"fixed":[1.0,"$5"]}'),
    timeoutMs: 30_000,
    retry: {
      maxAttempts: 5,
      initialIntervalMs: 2000,
      backoffCoefficient: '1.5',
      maxIntervalMs: 60_000,
      nonRetryableCodes: ['bad_card'],
    },
    idempotent: true,
    traceKey: 't-9',
    resourceKey: 'account-1',
  });
});

test('[E3.6] TASK input and keys are checked against the Pulse bounds before activation', () => {
  const program = compileOk(
    definition([task('t', { input: '$.input.blob', trace_key: '$.input.key' })]),
  );
  const fits = program.plan(
    program.initialSnapshot(toJson({ blob: 'x'.repeat(256 * 1024 - 2), key: 'k' })),
    32,
  );
  assert.deepEqual(summary(fits.decisions), ['ACTIVATE $root', 'ACTIVATE t']);
  const big = program.plan(
    program.initialSnapshot(toJson({ blob: 'x'.repeat(256 * 1024 - 1), key: 'k' })),
    32,
  );
  assert.deepEqual(
    big.decisions.slice(1, 2).map((d) => d.kind === 'FAIL' && d.error.code),
    ['input_too_large'],
  );
  const key = program.plan(
    program.initialSnapshot(toJson({ blob: 'b', key: 'k'.repeat(256) })),
    32,
  );
  assert.deepEqual(
    key.decisions.slice(1, 2).map((d) => d.kind === 'FAIL' && d.error.code),
    ['invalid_task_key'],
  );
  // Keys are 1–255 UTF-8 bytes (Pulse's bound), trace and resource key alike: 255 pass.
  const keyed = compileOk(
    definition([task('t', { input: {}, trace_key: '$.input.t', resource_key: '$.input.r' })]),
  );
  const codes = (t: string, r: string) =>
    keyed
      .plan(keyed.initialSnapshot(toJson({ t, r })), 32)
      .decisions.slice(1, 2)
      .map((d) => (d.kind === 'FAIL' ? d.error.code : d.kind));
  assert.deepEqual(codes('k'.repeat(255), 'r'.repeat(255)), ['ACTIVATE']);
  assert.deepEqual(codes('é'.repeat(127), 'r'), ['ACTIVATE'], '254 bytes');
  assert.deepEqual(codes('é'.repeat(128), 'r'), ['invalid_task_key'], '256 bytes');
  assert.deepEqual(codes('t', 'r'.repeat(256)), ['invalid_task_key']);
  assert.deepEqual(codes('t', ''), ['invalid_task_key']);
});

test('[E3.7] SIGNAL freezes a non-empty correlation of at most 512 bytes, the name and payload version', () => {
  const program = compileOk(
    definition([
      {
        id: 'w',
        kind: 'SIGNAL',
        name: 'approval',
        correlation: '$.input.c',
        payload_version: 3,
        timeout: 'P2D',
      },
    ]),
  );
  const plan = (c: string): readonly Decision[] =>
    program.plan(program.initialSnapshot(toJson({ c })), 32).decisions;
  assert.deepEqual(plan('é'.repeat(256))[1], {
    kind: 'ACTIVATE',
    stepId: 'w',
    node: 'SIGNAL',
    signalName: 'approval',
    correlation: 'é'.repeat(256),
    payloadVersion: 3,
    timeoutMs: 172_800_000,
  });
  assert.deepEqual(plan('a ')[1], {
    kind: 'ACTIVATE',
    stepId: 'w',
    node: 'SIGNAL',
    signalName: 'approval',
    correlation: 'a ',
    payloadVersion: 3,
    timeoutMs: 172_800_000,
  });
  for (const bad of ['', 'é'.repeat(256) + 'x']) {
    const failed = plan(bad)[1];
    assert.ok(failed?.kind === 'FAIL');
    assert.equal(failed.error.code, 'invalid_correlation');
  }
  const waiting = step(program, program.initialSnapshot(toJson({ c: 'x' }))).snapshot;
  assert.equal(statusOf(waiting, 'w'), 'WAITING');
});

test('[E3.8] TIMER returns a durable wait command and no business worker', () => {
  const program = compileOk(
    definition([{ id: 't', kind: 'TIMER', duration: 'PT1H' }, task('next')]),
  );
  const round = step(program, program.initialSnapshot(new Map()));
  assert.deepEqual(round.decisions[1], {
    kind: 'ACTIVATE',
    stepId: 't',
    node: 'TIMER',
    durationMs: 3_600_000,
  });
  assert.equal(statusOf(round.snapshot, 't'), 'WAITING');
  assert.deepEqual(summary(step(program, succeed(round.snapshot, 't')).decisions), [
    'ACTIVATE next',
  ]);
});

const pollStep = {
  id: 'p',
  kind: 'POLL',
  queue: 'carrier',
  input: { label: '$.input.label', fixed: { kind: 'number', text: '1e400' } },
  interval: 'PT5M',
  max_rounds: 100,
  timeout: 'P3D',
  task_timeout: 'PT10S',
  classify: {
    path: '$.status',
    pending: ['IN_TRANSIT'],
    succeeded: ['DELIVERED'],
    failed: ['LOST'],
    review: ['EXCEPTION'],
  },
  final_signal: { name: 'delivered', correlation: '$.input.label', payload_version: 2 },
};

test('[E3.9] POLL returns its fixed query input and the optional final-signal correlation', () => {
  const program = compileOk(definition([pollStep, task('next')]));
  const decision = program.plan(program.initialSnapshot(json('{"label":"L-1"}')), 32).decisions[1];
  assert.deepEqual(decision, {
    kind: 'ACTIVATE',
    stepId: 'p',
    node: 'POLL',
    queue: 'carrier',
    input: json('{"label":"L-1","fixed":1e400}'),
    intervalMs: 300_000,
    maxRounds: 100,
    timeoutMs: 259_200_000,
    taskTimeoutMs: 10_000,
    finalSignal: { signalName: 'delivered', correlation: 'L-1', payloadVersion: 2 },
  });
});

test('[E3.9] a POLL advances its successors only once it SUCCEEDED through its classifier', () => {
  const program = compileOk(definition([pollStep, task('next', { input: '$.steps.p.output' })]));
  const active = step(program, program.initialSnapshot(json('{"label":"L"}'))).snapshot;
  assert.equal(program.classifyPoll('p', json('{"status":"IN_TRANSIT"}')), 'PENDING');
  assert.deepEqual(program.plan(active, 32).decisions, []);
  const done = withStep(active, 'p', {
    status: 'SUCCEEDED',
    output: json('{"status":"DELIVERED"}'),
    completedBy: 'QUERY',
  });
  assert.deepEqual(summary(program.plan(done, 32).decisions), ['ACTIVATE next']);
  const bySignal = withStep(active, 'p', {
    status: 'SUCCEEDED',
    output: json('{"any":1}'),
    completedBy: 'FINAL_SIGNAL',
  });
  assert.deepEqual(summary(program.plan(bySignal, 32).decisions), ['ACTIVATE next']);
});

test('[E3.10] the pause gate activates no new business work but still combines finished composites', () => {
  const program = compileOk(
    definition([
      { id: 'par', kind: 'PARALLEL', branches: { a: [task('x')], b: [task('y')] } },
      task('next'),
    ]),
  );
  assert.deepEqual(program.plan(program.initialSnapshot(new Map(), false), 32), {
    decisions: [],
    more: false,
  });
  let snapshot = step(program, program.initialSnapshot(new Map())).snapshot;
  snapshot = { ...succeed(succeed(snapshot, 'x', json('1')), 'y', json('2')), allowNew: false };
  const paused = step(program, snapshot);
  assert.deepEqual(summary(paused.decisions), ['COMPLETE par']);
  assert.deepEqual(program.plan(paused.snapshot, 32).decisions, []);
  assert.deepEqual(summary(program.plan({ ...paused.snapshot, allowNew: true }, 32).decisions), [
    'ACTIVATE next',
  ]);
});

test('[E3.11] more=true when the change budget ran out; the next round continues', () => {
  const branches = Object.fromEntries(
    Array.from({ length: 40 }, (_, i) => [`b${i}`, [task(`t${i}`)]]),
  );
  const program = compileOk(definition([{ id: 'par', kind: 'PARALLEL', branches }]));
  const first = step(program, program.initialSnapshot(new Map()));
  assert.equal(first.decisions.length, 32);
  assert.equal(first.more, true);
  const second = step(program, first.snapshot);
  assert.deepEqual(
    summary(second.decisions),
    Array.from({ length: 10 }, (_, i) => `ACTIVATE t${i + 30}`),
  );
  assert.equal(second.more, false);
  const exact = step(program, first.snapshot, 10);
  assert.equal(exact.more, false, 'exactly the remaining decisions: nothing more to do');
});

test('[E3.11] active branches are still validated when the budget is spent early', () => {
  const program = compileOk(
    definition([
      { id: 'par', kind: 'PARALLEL', branches: { a: [task('x'), task('x2')], b: [task('y')] } },
    ]),
  );
  const snapshot = step(program, program.initialSnapshot(new Map())).snapshot;
  const corrupt = withStep(snapshot, 'x2', { status: 'ACTIVE' });
  assertRejected(() => program.plan(corrupt, 1), 'snapshot_unreachable_step', '$.steps.x2.status');
});
