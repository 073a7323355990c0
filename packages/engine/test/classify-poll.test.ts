import assert from 'node:assert/strict';
import { test } from 'node:test';
import { classifyPoll } from '../src/index.js';
import { assertRejected, compileOk, definition, json } from './support/helpers.js';

const program = compileOk(
  definition([
    {
      id: 'p',
      kind: 'POLL',
      queue: 'q',
      interval: 'PT1M',
      max_rounds: 3,
      timeout: 'PT1H',
      classify: {
        path: '$.result["state"][0]',
        pending: ['WAIT', 0],
        succeeded: ['DONE', true, { kind: 'number', text: '1.0' }],
        failed: ['LOST', null],
        review: ['ODD', { kind: 'number', text: '1e400' }],
      },
    },
    { id: 't', kind: 'TASK', queue: 'q' },
  ]),
);

const poll = program.step('p');
const result = (value: string): ReturnType<typeof json> => json(`{"result":{"state":[${value}]}}`);

test('[E3.14] classifyPoll maps a successful query result to PENDING, SUCCEEDED, FAILED or NEEDS_REVIEW', () => {
  assert.ok(poll);
  const cases: [string, string][] = [
    ['"WAIT"', 'PENDING'],
    ['0.0', 'PENDING'],
    ['"DONE"', 'SUCCEEDED'],
    ['true', 'SUCCEEDED'],
    ['1', 'SUCCEEDED'],
    ['10e-1', 'SUCCEEDED'],
    ['"LOST"', 'FAILED'],
    ['null', 'FAILED'],
    ['"ODD"', 'NEEDS_REVIEW'],
    ['10e399', 'NEEDS_REVIEW'],
  ];
  for (const [value, expected] of cases) {
    assert.equal(classifyPoll(poll, result(value)), expected, value);
    assert.equal(program.classifyPoll('p', result(value)), expected, value);
  }
});

test('[E3.14] unknown values and types are rejected', () => {
  assert.ok(poll);
  assertRejected(
    () => classifyPoll(poll, result('"done"')),
    'poll_unknown_value',
    '$.result["state"][0]',
  );
  assertRejected(() => classifyPoll(poll, result('2')), 'poll_unknown_value');
  assertRejected(() => classifyPoll(poll, result('false')), 'poll_unknown_value');
  assertRejected(() => classifyPoll(poll, result('{}')), 'poll_unknown_type');
  assertRejected(() => classifyPoll(poll, result('[1]')), 'poll_unknown_type');
  assertRejected(() => classifyPoll(poll, json('{"result":{}}')), 'poll_unknown_value');
  assertRejected(() => classifyPoll(poll, json('"DONE"')), 'poll_unknown_value');
});

test('[E3.9] classifyPoll is only for POLL steps', () => {
  const taskInfo = program.step('t');
  assert.ok(taskInfo);
  assertRejected(() => classifyPoll(taskInfo, json('{}')), 'invalid_argument');
  assertRejected(() => program.classifyPoll('t', json('{}')), 'invalid_argument');
  assertRejected(() => program.classifyPoll('nope', json('{}')), 'invalid_argument');
});

test('[E3.14] a string class value never matches a number and vice versa', () => {
  const strict = compileOk(
    definition([
      {
        id: 'p',
        kind: 'POLL',
        queue: 'q',
        interval: 'PT1M',
        max_rounds: 3,
        timeout: 'PT1H',
        classify: { path: '$', succeeded: ['1'] },
      },
    ]),
  );
  assert.equal(strict.classifyPoll('p', json('"1"')), 'SUCCEEDED');
  assertRejected(() => strict.classifyPoll('p', json('1')), 'poll_unknown_type', '$');
});
