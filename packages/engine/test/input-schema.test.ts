import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compile } from '../src/index.js';
import { compileOk, definition, json } from './support/helpers.js';

const schema = {
  type: 'object',
  required: ['id', 'amount', 'note'],
  properties: {
    id: { type: 'string', description: 'order id' },
    amount: { type: 'number' },
    count: { type: 'integer' },
    note: { type: ['string', 'null'] },
    flag: { type: 'boolean' },
    tags: { type: 'array', items: { type: 'string' } },
    extra: { type: 'object', additional_properties: true },
    anything: {},
  },
};
const program = compileOk(definition([], { input: schema }));

function problems(text: string, rootPath?: string): { path: string; code: string }[] {
  return program.validateInput(json(text), rootPath).map(({ path, code }) => ({ path, code }));
}

test('[A4.1] a valid input has no problems; optional members may be missing', () => {
  assert.deepEqual(problems('{"id":"A","amount":1e400,"note":null}'), []);
  assert.deepEqual(
    problems(
      '{"id":"A","amount":-0.5,"note":"n","count":3,"flag":true,"tags":["x"],"extra":{"y":1},"anything":[{}]}',
    ),
    [],
  );
});

test('[A4.1] explicit null differs from a missing member', () => {
  assert.deepEqual(problems('{"id":"A","amount":1}'), [{ path: '$.note', code: 'missing_field' }]);
  assert.deepEqual(problems('{"id":"A","amount":1,"note":null,"flag":null}'), [
    { path: '$.flag', code: 'invalid_type' },
  ]);
});

test('[A4.1] integers are exact: 1.0 and 1e2 are integers, 1.5 and 1e-1 are not', () => {
  for (const ok of ['1', '1.0', '1e2', '-0', '12345678901234567890123', '1.50e1']) {
    assert.deepEqual(problems(`{"id":"A","amount":1,"note":null,"count":${ok}}`), [], ok);
  }
  for (const bad of ['1.5', '1e-1', '0.0000001', '1e400000000000000000001']) {
    const expected =
      bad === '1e400000000000000000001' ? [] : [{ path: '$.count', code: 'invalid_type' }];
    assert.deepEqual(problems(`{"id":"A","amount":1,"note":null,"count":${bad}}`), expected, bad);
  }
});

test('[A4.1] every problem is reported with its path, under a chosen root path', () => {
  assert.deepEqual(
    problems('{"id":5,"amount":"1","note":null,"tags":["a",2],"other":true}', '$.input'),
    [
      { path: '$.input.id', code: 'invalid_type' },
      { path: '$.input.amount', code: 'invalid_type' },
      { path: '$.input.tags[1]', code: 'invalid_type' },
      { path: '$.input.other', code: 'unknown_field' },
    ],
  );
  assert.deepEqual(problems('[]'), [{ path: '$', code: 'invalid_type' }]);
});

test('[A4.1] the input is at most 256 KiB as compact JSON', () => {
  const open = compileOk(definition([]));
  const fits = `"${'x'.repeat(256 * 1024 - 2)}"`;
  assert.deepEqual(open.validateInput(json(fits)), []);
  const over = `"${'x'.repeat(256 * 1024 - 1)}"`;
  assert.deepEqual(
    open.validateInput(json(over)).map((p) => p.code),
    ['payload_too_large'],
  );
});

test('schema mistakes are compile problems', () => {
  const result = compile(
    definition([], {
      input: { type: 'object', required: ['x'], properties: { a: { type: 'text' } }, items: {} },
    }),
  );
  assert.equal(result.ok, false);
  assert.deepEqual(result.ok ? [] : result.problems.map((p) => [p.path, p.code]), [
    ['$.input.items', 'invalid_schema'],
    ['$.input.properties.a.type', 'invalid_schema'],
    ['$.input.required[0]', 'invalid_schema'],
  ]);
});
