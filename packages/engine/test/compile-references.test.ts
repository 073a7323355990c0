import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { JsonValue } from '@weave/json';
import { compile } from '../src/index.js';
import { compileOk, definition, task } from './support/helpers.js';

// References, conditions and field checks: what compile reports, with JSON paths.

function problemsOf(value: JsonValue): { path: string; code: string }[] {
  const result = compile(value);
  assert.equal(result.ok, false, 'expected problems');
  return result.ok ? [] : result.problems.map(({ path, code }) => ({ path, code }));
}

test('[E3.3] a reference reads only steps that must have SUCCEEDED before it', () => {
  const value = definition([
    task('a', { input: { x: '$.steps.b.output' } }),
    task('b', {
      input: { x: '$.steps.a.output', self: '$.steps.b.output', nope: '$.steps.zz.output' },
    }),
  ]);
  assert.deepEqual(problemsOf(value), [
    { path: '$.steps[0].input.x', code: 'unreachable_reference' },
    { path: '$.steps[1].input.self', code: 'unreachable_reference' },
    { path: '$.steps[1].input.nope', code: 'unknown_step' },
  ]);
});

test('[E3.5] PARALLEL siblings are read only through the named join', () => {
  const par = {
    id: 'par',
    kind: 'PARALLEL',
    branches: { a: [task('x')], b: [task('y', { input: { v: '$.steps.x.output' } })] },
  };
  const after = task('z', {
    input: { ok: '$.steps.par.output.a', bad: '$.steps.x.output', none: '$.steps.par.output.c' },
  });
  assert.deepEqual(problemsOf(definition([par, after])), [
    { path: '$.steps[0].branches.b[0].input.v', code: 'unreachable_reference' },
    { path: '$.steps[1].input.bad', code: 'unreachable_reference' },
    { path: '$.steps[1].input.none', code: 'unknown_property' },
  ]);
});

test('[E3.4] steps inside a BRANCH case are not readable after the BRANCH; its output is', () => {
  const branch = {
    id: 'br',
    kind: 'BRANCH',
    cases: [{ when: { exists: '$.input.a' }, steps: [task('x')] }],
    default: [task('y')],
  };
  const ok = definition([branch, task('z', { input: { v: '$.steps.br.output' } })]);
  compileOk(ok);
  const bad = definition([branch, task('z', { input: { v: '$.steps.y.output' } })]);
  assert.deepEqual(problemsOf(bad), [
    { path: '$.steps[1].input.v', code: 'unreachable_reference' },
  ]);
});

test('references into the input follow its schema; unknown closed properties are problems', () => {
  const input = {
    type: 'object',
    required: ['a'],
    properties: { a: { type: 'string' }, o: { type: 'object', additional_properties: true } },
  };
  const value = definition(
    [
      task('t', {
        input: {
          a: '$.input.a',
          b: '$.input.b',
          c: '$.input.a.deeper',
          d: '$.input.o.any',
          e: '$input',
          f: '$$literal',
        },
      }),
    ],
    { input },
  );
  assert.deepEqual(problemsOf(value), [
    { path: '$.steps[0].input.b', code: 'unknown_property' },
    { path: '$.steps[0].input.c', code: 'invalid_reference' },
    { path: '$.steps[0].input.e', code: 'invalid_reference' },
  ]);
});

test('conditions are checked for operators and, where known, operand types', () => {
  const input = {
    type: 'object',
    properties: { n: { type: 'integer' }, s: { type: 'string' }, list: { type: 'array' } },
  };
  let count = 0;
  const when = (cond: unknown): unknown => ({
    id: `b${count++}`,
    kind: 'BRANCH',
    cases: [{ when: cond, steps: [] }],
  });
  const value = definition(
    [
      when({ gt: ['$.input.s', 5] }),
      when({ lt: [true, 1] }),
      when({ eq: ['$.input.n', 'x'] }),
      when({ in: ['$.input.n', '$.input.s'] }),
      when({ exists: 'literal' }),
      when({ xor: [] }),
      when({ and: [] }),
      when({ ge: ['$.input.n', 1.5], le: ['$.input.s', 'z'] }),
      when({
        and: [
          { in: ['$.input.n', '$.input.list'] },
          { not: { is_null: '$.input.s' } },
          { ne: ['$.input.s', 'z'] },
        ],
      }),
    ],
    { input },
  );
  assert.deepEqual(
    problemsOf(value).map((p) => p.code),
    [
      'condition_type_mismatch',
      'condition_type_mismatch',
      'condition_type_mismatch',
      'condition_type_mismatch',
      'invalid_condition',
      'invalid_condition',
      'invalid_condition',
      'invalid_condition',
    ],
  );
});

test('literal keys and correlations are checked against their byte bounds', () => {
  const value = definition([
    task('a', { trace_key: 'x'.repeat(256), resource_key: '' }),
    { id: 'w', kind: 'SIGNAL', name: 'n', correlation: 'é'.repeat(257) },
    { id: 'v', kind: 'SIGNAL', name: 'n', correlation: 5 },
  ]);
  assert.deepEqual(problemsOf(value), [
    { path: '$.steps[0].trace_key', code: 'invalid_value' },
    { path: '$.steps[0].resource_key', code: 'invalid_value' },
    { path: '$.steps[1].correlation', code: 'invalid_value' },
    { path: '$.steps[2].correlation', code: 'invalid_type' },
  ]);
});

test('retry, POLL and BRANCH fields are validated', () => {
  const value = definition([
    task('a', {
      retry: {
        max_attempts: 0,
        backoff_coefficient: 0.5,
        initial_interval: 'PT1M',
        max_interval: 'PT1S',
        bogus: 1,
      },
    }),
    {
      id: 'p',
      kind: 'POLL',
      queue: 'q',
      interval: 'PT2H',
      max_rounds: 1.5,
      timeout: 'PT1H',
      classify: { path: 'status', succeeded: ['A'], failed: ['A', {}] },
    },
    { id: 'b', kind: 'BRANCH', cases: [] },
  ]);
  assert.deepEqual(problemsOf(value), [
    { path: '$.steps[0].retry.bogus', code: 'unknown_field' },
    { path: '$.steps[0].retry.max_interval', code: 'invalid_value' },
    { path: '$.steps[0].retry.max_attempts', code: 'invalid_value' },
    { path: '$.steps[0].retry.backoff_coefficient', code: 'invalid_value' },
    { path: '$.steps[1].interval', code: 'invalid_value' },
    { path: '$.steps[1].max_rounds', code: 'invalid_value' },
    { path: '$.steps[1].classify.path', code: 'invalid_reference' },
    { path: '$.steps[1].classify.failed[0]', code: 'invalid_value' },
    { path: '$.steps[1].classify.failed[1]', code: 'invalid_type' },
    { path: '$.steps[2].cases', code: 'invalid_value' },
  ]);
});
