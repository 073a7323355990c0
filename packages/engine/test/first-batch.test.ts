import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compile } from '../src/index.js';
import { compileOk, definition, json, statusOf, step, summary, task } from './support/helpers.js';

// Seed 002 §2: what the first round (planned inside the Start transaction) returns per node kind.

test('[A2.1] TASK: the first batch activates the root and the task with its exact input', () => {
  const program = compileOk(
    definition([
      task('t', {
        input: { amount: '$.input.amount', n: { kind: 'number', text: '12345678901234567890' } },
      }),
    ]),
  );
  const round = step(program, program.initialSnapshot(json('{"amount":0.10}')));
  assert.deepEqual(summary(round.decisions), ['ACTIVATE $root', 'ACTIVATE t']);
  const activate = round.decisions[1];
  assert.ok(activate?.kind === 'ACTIVATE' && activate.node === 'TASK');
  assert.deepEqual(activate.input, json('{"amount":0.10,"n":12345678901234567890}'));
  assert.equal(statusOf(round.snapshot, 't'), 'ACTIVE');
});

test('[A2.2] BRANCH: the first batch saves the case index and SKIPs unchosen nodes, no business work', () => {
  const program = compileOk(
    definition([
      {
        id: 'br',
        kind: 'BRANCH',
        cases: [
          {
            when: { eq: ['$.input.kind', 'a'] },
            steps: [task('a1'), { id: 'nested', kind: 'PARALLEL', branches: { x: [task('x1')] } }],
          },
        ],
        default: [],
      },
      task('next'),
    ]),
  );
  const round = step(program, program.initialSnapshot(json('{"kind":"b"}')));
  assert.deepEqual(summary(round.decisions), [
    'ACTIVATE $root',
    'ACTIVATE br',
    'SKIP a1',
    'SKIP x1',
    'SKIP nested',
    'COMPLETE br',
    'ACTIVATE next',
  ]);
  assert.deepEqual(round.decisions[1], {
    kind: 'ACTIVATE',
    stepId: 'br',
    node: 'BRANCH',
    caseIndex: 1,
  });
});

test("[A2.3] PARALLEL: the first batch has the parent activation and each branch's initial work", () => {
  const program = compileOk(
    definition([
      {
        id: 'par',
        kind: 'PARALLEL',
        branches: {
          a: [task('a1'), task('a2')],
          b: [{ id: 'b1', kind: 'TIMER', duration: 'PT1S' }],
        },
      },
    ]),
  );
  const round = step(program, program.initialSnapshot(new Map()));
  assert.deepEqual(summary(round.decisions), [
    'ACTIVATE $root',
    'ACTIVATE par',
    'ACTIVATE a1',
    'ACTIVATE b1',
  ]);
  assert.equal(statusOf(round.snapshot, 'par'), 'ACTIVE');
});

test('[A2.4] SIGNAL: a WAITING activation with name, payload version and the exact correlation bytes', () => {
  const program = compileOk(
    definition([
      { id: 's', kind: 'SIGNAL', name: 'approval', correlation: '$.input.key', payload_version: 2 },
    ]),
  );
  const round = step(program, program.initialSnapshot(json('{"key":"Order 7 "}')));
  assert.deepEqual(round.decisions[1], {
    kind: 'ACTIVATE',
    stepId: 's',
    node: 'SIGNAL',
    signalName: 'approval',
    correlation: 'Order 7 ',
    payloadVersion: 2,
  });
  assert.equal(statusOf(round.snapshot, 's'), 'WAITING');
});

test('[A2.5] TIMER: a WAITING activation with a duration for DB time, no business task', () => {
  const program = compileOk(definition([{ id: 't', kind: 'TIMER', duration: 'PT90S' }]));
  const round = step(program, program.initialSnapshot(new Map()));
  assert.deepEqual(round.decisions[1], {
    kind: 'ACTIVATE',
    stepId: 't',
    node: 'TIMER',
    durationMs: 90_000,
  });
  assert.equal(statusOf(round.snapshot, 't'), 'WAITING');
});

test('[A2.6] POLL: fixed input, round budget and deadline, and the optional final signal', () => {
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
        classify: { path: '$.state', succeeded: ['DONE'] },
        final_signal: { name: 'done', correlation: '$.input.id' },
      },
    ]),
  );
  const round = step(program, program.initialSnapshot(json('{"id":"X"}')));
  assert.deepEqual(round.decisions[1], {
    kind: 'ACTIVATE',
    stepId: 'p',
    node: 'POLL',
    queue: 'carrier',
    input: json('{"id":"X"}'),
    intervalMs: 60_000,
    maxRounds: 10,
    timeoutMs: 3_600_000,
    finalSignal: { signalName: 'done', correlation: 'X', payloadVersion: 1 },
  });
  assert.equal(statusOf(round.snapshot, 'p'), 'ACTIVE');
});

test('[A2.8] an empty workflow completes in the first round, with its output mapping', () => {
  const empty = compileOk(definition([]));
  assert.deepEqual(empty.plan(empty.initialSnapshot(json('{"a":1}')), 32).decisions, [
    { kind: 'ACTIVATE', stepId: '$root', node: 'ROOT' },
    { kind: 'COMPLETE', stepId: '$root', output: null },
  ]);
  const mapped = compileOk(definition([], { output: { echo: '$.input.a' } }));
  assert.deepEqual(mapped.plan(mapped.initialSnapshot(json('{"a":1.50}')), 32).decisions[1], {
    kind: 'COMPLETE',
    stepId: '$root',
    output: json('{"echo":1.50}'),
  });
});

test('[A2.8] a pure-wait workflow has only waits in its first batch', () => {
  const program = compileOk(
    definition([
      {
        id: 'par',
        kind: 'PARALLEL',
        branches: {
          a: [{ id: 't', kind: 'TIMER', duration: 'PT1M' }],
          b: [{ id: 's', kind: 'SIGNAL', name: 'go', correlation: 'c' }],
        },
      },
    ]),
  );
  const round = step(program, program.initialSnapshot(new Map()));
  const leaves = round.decisions.filter(
    (d) => d.kind === 'ACTIVATE' && (d.node === 'TASK' || d.node === 'POLL'),
  );
  assert.deepEqual(leaves, []);
  assert.deepEqual(
    [statusOf(round.snapshot, 't'), statusOf(round.snapshot, 's')],
    ['WAITING', 'WAITING'],
  );
});

test('[A3.1] the hidden $root step is activated first and cannot be defined', () => {
  const program = compileOk(definition([task('a')]));
  assert.deepEqual(program.plan(program.initialSnapshot(new Map()), 1), {
    decisions: [{ kind: 'ACTIVATE', stepId: '$root', node: 'ROOT' }],
    more: true,
  });
  const result = compile(definition([task('$root')]));
  assert.equal(result.ok, false);
  assert.deepEqual(result.ok ? [] : result.problems.map((p) => p.code), ['invalid_id']);
  assert.equal(
    program.steps().some((s) => s.id === '$root'),
    false,
  );
});

test('[A3.1] a round never has more than 32 changes, whatever the definition', () => {
  const branches = Object.fromEntries(
    Array.from({ length: 64 }, (_, i) => [`b${i}`, [task(`t${i}`)]]),
  );
  const program = compileOk(definition([{ id: 'par', kind: 'PARALLEL', branches }]));
  let snapshot = program.initialSnapshot(new Map());
  const sizes: number[] = [];
  for (let more = true; more;) {
    const round = step(program, snapshot);
    sizes.push(round.decisions.length);
    snapshot = round.snapshot;
    more = round.more;
  }
  assert.deepEqual(sizes, [32, 32, 2]);
});
