import assert from 'node:assert/strict';
import { test } from 'node:test';
import { stringify } from '@weave/json';
import { compileOk, definition, json } from './support/helpers.js';

// E3.13: exact numbers in references, construction and conditions; never float64.

function chooses(condition: unknown, input: string): boolean {
  const program = compileOk(
    definition([
      { id: 'br', kind: 'BRANCH', cases: [{ when: condition, steps: [] }], default: [] },
    ]),
  );
  const activate = program.plan(program.initialSnapshot(json(input)), 32).decisions[1];
  assert.ok(activate?.kind === 'ACTIVATE' && activate.node === 'BRANCH');
  return activate.caseIndex === 0;
}

test('[E3.13] adjacent big integers compare exactly: 9007199254740993 > 9007199254740992', () => {
  assert.equal(
    chooses({ gt: ['$.input.a', '$.input.b'] }, '{"a":9007199254740993,"b":9007199254740992}'),
    true,
  );
  assert.equal(
    chooses({ eq: ['$.input.a', '$.input.b'] }, '{"a":9007199254740993,"b":9007199254740992}'),
    false,
  );
  assert.equal(
    chooses({ lt: ['$.input.b', '$.input.a'] }, '{"a":9007199254740993,"b":9007199254740992}'),
    true,
  );
});

test('[E3.13] scientific notation beyond float64: 1e400 > 9.99e399', () => {
  assert.equal(chooses({ gt: ['$.input.a', '$.input.b'] }, '{"a":1e400,"b":9.99e399}'), true);
  assert.equal(chooses({ ge: ['$.input.b', '$.input.a'] }, '{"a":1e400,"b":9.99e399}'), false);
});

test('[E3.13] equal values in different text are equal: 0.1 == 1e-1, 1.0 == 1', () => {
  assert.equal(chooses({ eq: ['$.input.a', '$.input.b'] }, '{"a":0.1,"b":1e-1}'), true);
  assert.equal(chooses({ eq: ['$.input.a', '$.input.b'] }, '{"a":1.0,"b":1}'), true);
  assert.equal(chooses({ ne: ['$.input.a', '$.input.b'] }, '{"a":1.0,"b":1}'), false);
  assert.equal(chooses({ le: ['$.input.a', '$.input.b'] }, '{"a":1.0,"b":1}'), true);
  assert.equal(chooses({ in: ['$.input.a', '$.input.list'] }, '{"a":1.0,"list":[0,1e0]}'), true);
});

test('[E3.13] long decimals compare exactly', () => {
  const input = '{"a":0.30000000000000000001,"b":0.3}';
  assert.equal(chooses({ gt: ['$.input.a', '$.input.b'] }, input), true);
});

test('[E3.13] strings compare by code point; and/or/not/exists/is_null combine', () => {
  assert.equal(
    chooses({ lt: ['$.input.a', '$.input.b'] }, '{"a":"\uffff","b":"\ud83d\ude00"}'),
    true,
  );
  assert.equal(
    chooses({ and: [{ exists: '$.input.x' }, { is_null: '$.input.x' }] }, '{"x":null}'),
    true,
  );
  assert.equal(
    chooses({ or: [{ exists: '$.input.y' }, { not: { exists: '$.input.x' } }] }, '{}'),
    true,
  );
  assert.equal(chooses({ and: [{ exists: '$.input.y' }, { gt: ['$.input.y', 1] }] }, '{}'), false);
});

test('[E3.13] references and construction keep the raw number text', () => {
  const program = compileOk(
    definition([
      {
        id: 't',
        kind: 'TASK',
        queue: 'q',
        input: {
          a: '$.input.a',
          list: ['$.input.b', { kind: 'number', text: '1.000' }],
          nested: { c: '$.input.c' },
        },
      },
    ]),
  );
  const activate = program.plan(program.initialSnapshot(json('{"a":1e400,"b":0.10,"c":-0.0}')), 32)
    .decisions[1];
  assert.ok(activate?.kind === 'ACTIVATE' && activate.node === 'TASK');
  assert.equal(stringify(activate.input), '{"a":1e400,"list":[0.10,1.000],"nested":{"c":-0.0}}');
});
