import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { JsonValue } from '@weave/json';
import { compile } from '../src/index.js';
import { compileOk, definition, json, summary, task } from './support/helpers.js';

function problemsOf(value: JsonValue): { path: string; code: string }[] {
  const result = compile(value);
  assert.equal(result.ok, false, 'expected problems');
  return result.ok ? [] : result.problems.map(({ path, code }) => ({ path, code }));
}

test('[E3.1] the Program is a deep copy: mutating the definition afterwards changes nothing', () => {
  const value = definition([task('a', { input: { n: 1, list: [1] } })]);
  const program = compileOk(value);
  const steps = (value as Map<string, JsonValue>).get('steps') as JsonValue[];
  const first = steps[0] as Map<string, JsonValue>;
  const input = first.get('input') as Map<string, JsonValue>;
  input.set('n', 'changed');
  (input.get('list') as JsonValue[]).push(json('2'));
  first.set('queue', 'other');
  steps.push(json('{"id":"b","kind":"TASK","queue":"work"}'));
  const [, activate] = program.plan(program.initialSnapshot(new Map()), 32).decisions;
  assert.ok(activate?.kind === 'ACTIVATE' && activate.node === 'TASK');
  assert.equal(activate.queue, 'work');
  assert.deepEqual(activate.input, json('{"n":1,"list":[1]}'));
  assert.equal(program.stepCount, 1);
});

test('[E3.1] a returned step copy or decision cannot change the Program', () => {
  const program = compileOk(
    definition([
      task('a', { input: { n: 1 }, retry: { non_retryable_codes: ['X'] } }),
      {
        id: 'p',
        kind: 'POLL',
        queue: 'q',
        interval: 'PT1M',
        max_rounds: 3,
        timeout: 'PT1H',
        classify: { path: '$.s', succeeded: ['DONE'] },
      },
    ]),
  );
  const info = program.step('p');
  assert.ok(info?.classify);
  (info.classify.succeeded as JsonValue[]).push('OTHER');
  (program.steps() as unknown as { id: string }[])[0]!.id = 'zzz';
  assert.equal(program.classifyPoll('p', json('{"s":"DONE"}')), 'SUCCEEDED');
  assert.throws(() => program.classifyPoll('p', json('{"s":"OTHER"}')), {
    code: 'poll_unknown_value',
  });
  const first = program.plan(program.initialSnapshot(new Map()), 32).decisions[1];
  assert.ok(first?.kind === 'ACTIVATE' && first.node === 'TASK');
  (first.input as Map<string, JsonValue>).set('n', 'x');
  (first.retry.nonRetryableCodes as string[]).push('Y');
  const again = program.plan(program.initialSnapshot(new Map()), 32).decisions[1];
  assert.ok(again?.kind === 'ACTIVATE' && again.node === 'TASK');
  assert.deepEqual(again.input, json('{"n":1}'));
  assert.deepEqual(again.retry.nonRetryableCodes, ['X']);
  assert.equal(program.step('a')?.id, 'a');
  assert.throws(() => {
    (program as { name: string }).name = 'other';
  }, TypeError);
});

function chain(count: number): unknown[] {
  return Array.from({ length: count }, (_, i) => task(`s${i}`));
}

test('[A3.1] 128 static nodes compile; 129 are rejected', () => {
  assert.equal(compileOk(definition(chain(128))).stepCount, 128);
  assert.deepEqual(problemsOf(definition(chain(129))), [
    { path: '$.steps', code: 'too_many_steps' },
  ]);
});

test('[A3.1] nested steps count towards the 128-node limit', () => {
  const inner = chain(126);
  const nested = [
    { id: 'par', kind: 'PARALLEL', branches: { a: inner.slice(0, 63), b: inner.slice(63) } },
  ];
  assert.equal(compileOk(definition([...nested, task('last')])).stepCount, 128);
  const over = definition([...nested, task('last'), task('extra')]);
  assert.deepEqual(problemsOf(over), [{ path: '$.steps', code: 'too_many_steps' }]);
});

test('ids must be unique at every nesting level and well formed', () => {
  const value = definition([
    task('a'),
    { id: 'b', kind: 'BRANCH', cases: [{ when: { exists: '$.input.x' }, steps: [task('a')] }] },
    task('Bad-Id'),
  ]);
  assert.deepEqual(problemsOf(value), [
    { path: '$.steps[1].cases[0].steps[0].id', code: 'duplicate_id' },
    { path: '$.steps[2].id', code: 'invalid_id' },
  ]);
});

test('queue and signal names must match the name pattern', () => {
  const value = definition([
    task('a', { queue: 'Upper' }),
    { id: 'w', kind: 'SIGNAL', name: '-x', correlation: 'c' },
    task('b', { queue: `q${'x'.repeat(63)}` }),
  ]);
  assert.deepEqual(problemsOf(value), [
    { path: '$.steps[0].queue', code: 'invalid_name' },
    { path: '$.steps[1].name', code: 'invalid_name' },
    { path: '$.steps[2].queue', code: 'invalid_name' },
  ]);
});

test('durations are ISO 8601 with fixed-length units, positive, at most 365 days', () => {
  const value = definition([
    task('a', { timeout: 'P1M' }),
    task('b', { timeout: 'PT0S' }),
    task('c', { timeout: 'P366D' }),
    task('d', { timeout: 'PT0.0001S' }),
    { id: 'e', kind: 'TIMER', duration: 'P1DT1.5S' },
    { id: 'f', kind: 'TIMER', duration: 'P2W' },
  ]);
  assert.deepEqual(
    problemsOf(value).map((p) => p.path),
    ['$.steps[0].timeout', '$.steps[1].timeout', '$.steps[2].timeout', '$.steps[3].timeout'],
  );
  const program = compileOk(definition([{ id: 'e', kind: 'TIMER', duration: 'P1DT1.5S' }]));
  const timer = program.plan(program.initialSnapshot(new Map()), 32).decisions[1];
  assert.ok(timer?.kind === 'ACTIVATE' && timer.node === 'TIMER');
  assert.equal(timer.durationMs, 86_401_500);
});

test('a definition reports all its problems at once, each with a JSON path', () => {
  const value = json(`{"schema_version":2,"name":"Bad Name","extra":1,
    "steps":[{"id":"a","kind":"TASK"},{"id":"b","kind":"NOPE"},{"kind":"TIMER","duration":"soon"}]}`);
  assert.deepEqual(problemsOf(value), [
    { path: '$.extra', code: 'unknown_field' },
    { path: '$.schema_version', code: 'unsupported_schema_version' },
    { path: '$.name', code: 'invalid_name' },
    { path: '$.steps[0].queue', code: 'missing_field' },
    { path: '$.steps[1].kind', code: 'invalid_value' },
    { path: '$.steps[2].id', code: 'missing_field' },
    { path: '$.steps[2].duration', code: 'invalid_duration' },
  ]);
});

test('the definition text has a size limit', () => {
  const big = definition([task('a', { input: { blob: 'x'.repeat(1024 * 1024) } })]);
  assert.deepEqual(problemsOf(big), [{ path: '$', code: 'too_large' }]);
});

test('the Program lists its steps, queues and timeout', () => {
  const program = compileOk(
    definition(
      [
        task('a', { queue: 'zeta' }),
        {
          id: 'par',
          kind: 'PARALLEL',
          branches: { one: [task('b', { queue: 'alpha' })], two: [] },
        },
      ],
      { timeout: 'P7D' },
    ),
  );
  assert.deepEqual(program.queues(), ['alpha', 'zeta']);
  assert.equal(program.timeoutMs, 7 * 86_400_000);
  assert.deepEqual(
    program.steps().map((s) => [s.id, s.kind, s.parentId, s.block, s.position]),
    [
      ['a', 'TASK', '$root', 'steps', 0],
      ['par', 'PARALLEL', '$root', 'steps', 1],
      ['b', 'TASK', 'par', 'one', 0],
    ],
  );
  assert.deepEqual(summary(program.plan(program.initialSnapshot(new Map()), 32).decisions), [
    'ACTIVATE $root',
    'ACTIVATE a',
  ]);
});
