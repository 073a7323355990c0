import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  formatProblems,
  formatSimulation,
  simulate,
  validateDefinitionText,
} from '../src/index.js';

const order = `{ "schema_version": 1, "name": "order",
  "input": { "type": "object", "required": ["id", "amount"],
             "properties": { "id": {"type": "string"}, "amount": {"type": "number"} } },
  "steps": [
    { "id": "reserve", "kind": "TASK", "queue": "inventory", "input": { "order": "$.input.id" } },
    { "id": "big", "kind": "BRANCH",
      "cases": [ { "when": { "gt": ["$.input.amount", 1000] },
                   "steps": [ { "id": "approve", "kind": "SIGNAL", "name": "approval", "correlation": "$.input.id" } ] } ],
      "default": [] },
    { "id": "cool", "kind": "TIMER", "duration": "PT1H" },
    { "id": "track", "kind": "POLL", "queue": "carrier", "input": { "r": "$.steps.reserve.output" },
      "interval": "PT5M", "max_rounds": 3, "timeout": "P3D",
      "classify": { "path": "$.status", "pending": ["IN_TRANSIT"], "succeeded": ["DELIVERED"], "failed": ["LOST"] },
      "final_signal": { "name": "delivered", "correlation": "$.input.id" } } ],
  "output": { "tracking": "$.steps.track.output" } }`;

test('validateDefinitionText reports syntax errors with line and column, and compile problems', () => {
  const syntax = validateDefinitionText('{"schema_version": 1,\n "name": }');
  assert.equal(syntax.ok, false);
  assert.deepEqual(syntax.ok ? [] : syntax.problems.map((p) => p.code), ['malformed_json']);
  assert.match(syntax.ok ? '' : (syntax.problems[0]?.message ?? ''), /line 2, column 10/);
  const duplicate = validateDefinitionText('{"name":"a","name":"b"}');
  assert.deepEqual(duplicate.ok ? [] : duplicate.problems.map((p) => [p.path, p.code]), [
    ['$', 'duplicate_key'],
  ]);
  const invalid = validateDefinitionText(
    '{"schema_version":1,"name":"x","steps":[{"id":"a","kind":"TASK","queue":"Q"}]}',
  );
  assert.deepEqual(invalid.ok ? [] : formatProblems(invalid.problems), [
    '$.steps[0].queue: $.steps[0].queue must match ^[a-z0-9][a-z0-9_.-]{0,62}$ (got "Q") (invalid_name)',
  ]);
  assert.equal(validateDefinitionText(order).ok, true);
});

test('validateDefinitionText measures the 1 MiB limit on compact JSON, as publishing does', () => {
  // Indentation is free: 2 MiB of whitespace around a small definition passes.
  const padded = `${order}${' '.repeat(2 * 1024 * 1024)}`;
  assert.equal(validateDefinitionText(padded).ok, true);
  // 1 MiB of content is over it, however it is laid out.
  const big = JSON.stringify({
    schema_version: 1,
    name: 'big',
    steps: [{ id: 'a', kind: 'TASK', queue: 'q', input: { pad: 'x'.repeat(1024 * 1024) } }],
  });
  const refused = validateDefinitionText(big);
  assert.deepEqual(refused.ok ? [] : refused.problems.map((p) => [p.path, p.code]), [
    ['$', 'too_large'],
  ]);
});

test('simulate plays rounds against the results file and prints each round', () => {
  const simulation = simulate({
    definitionText: order,
    inputText: '{"id":"A1","amount":1000.01}',
    resultsText: `{ "reserve": { "status": "SUCCEEDED", "output": {"n": 1e400} },
                    "approve": { "status": "SUCCEEDED", "output": {"by": "ann"} },
                    "track": { "results": [ {"status": "IN_TRANSIT"}, {"status": "DELIVERED", "at": 1.0} ] } }`,
  });
  assert.ok(simulation.ok);
  assert.equal(simulation.rootStatus, 'SUCCEEDED');
  assert.deepEqual(formatSimulation(simulation), [
    'round 1 (start)',
    '  ACTIVATE $root ROOT',
    '  ACTIVATE reserve TASK queue=inventory input={"order":"A1"} retry={"max_attempts":1,"initial_interval_ms":1000,"backoff_coefficient":2,"max_interval_ms":100000,"non_retryable_codes":[]} idempotent=false',
    'round 2 (reserve SUCCEEDED)',
    '  ACTIVATE big BRANCH case_index=0',
    '  ACTIVATE approve SIGNAL signal_name=approval correlation=A1 payload_version=1',
    'round 3 (approve SUCCEEDED)',
    '  COMPLETE big output={"by":"ann"}',
    '  ACTIVATE cool TIMER duration_ms=3600000',
    'round 4 (cool fired)',
    '  ACTIVATE track POLL queue=carrier input={"r":{"n":1e400}} interval_ms=300000 max_rounds=3 timeout_ms=259200000 final_signal={"signal_name":"delivered","correlation":"A1","payload_version":1}',
    'round 5 (track query 1: PENDING)',
    '  (no decisions)',
    'round 6 (track query 2: SUCCEEDED)',
    '  COMPLETE $root output={"tracking":{"status":"DELIVERED","at":1.0}}',
    'instance SUCCEEDED output={"tracking":{"status":"DELIVERED","at":1.0}}',
  ]);
});

test('simulate shows where an instance waits, and bounded rounds with more=true', () => {
  const simulation = simulate({
    definitionText: order,
    inputText: '{"id":"A1","amount":5}',
    resultsText: '{}',
    limit: 1,
  });
  assert.ok(simulation.ok);
  assert.equal(simulation.rootStatus, 'ACTIVE');
  assert.deepEqual(simulation.waiting, ['reserve']);
  assert.deepEqual(
    simulation.rounds.map((r) => [r.trigger, r.decisions.length, r.more]),
    [
      ['start', 1, true],
      ['continue (more)', 1, false],
    ],
  );
});

test('simulate: POLL rounds run out, final signals win, failures propagate', () => {
  const base = { definitionText: order, inputText: '{"id":"A1","amount":5}' };
  const exhausted = simulate({
    ...base,
    resultsText:
      '{"reserve":{"status":"SUCCEEDED"},"track":{"results":[{"status":"IN_TRANSIT"},{"status":"IN_TRANSIT"},{"status":"IN_TRANSIT"}]}}',
  });
  assert.ok(exhausted.ok);
  assert.equal(exhausted.rootStatus, 'FAILED');
  assert.equal(exhausted.rounds.at(-1)?.trigger, 'track query 3: PENDING, max rounds used, FAILED');
  const signalled = simulate({
    ...base,
    resultsText: '{"reserve":{"status":"SUCCEEDED"},"track":{"final_signal":{"ok":true}}}',
  });
  assert.ok(signalled.ok);
  assert.deepEqual(
    [signalled.rootStatus, signalled.rounds.at(-1)?.trigger],
    ['SUCCEEDED', 'track final signal'],
  );
  const review = simulate({
    ...base,
    resultsText: '{"reserve":{"status":"SUCCEEDED"},"track":{"results":[{"status":"WHAT"}]}}',
  });
  assert.ok(review.ok);
  assert.deepEqual([review.rootStatus, review.waiting], ['ACTIVE', ['track']]);
  const failed = simulate({ ...base, resultsText: '{"reserve":{"status":"FAILED"}}' });
  assert.ok(failed.ok);
  assert.equal(failed.rootStatus, 'FAILED');
});

test('simulate reports problems of the input and the results file by stage', () => {
  const badInput = simulate({ definitionText: order, inputText: '{"id":1}', resultsText: '{}' });
  assert.deepEqual(badInput.ok ? [] : [badInput.stage, ...badInput.problems.map((p) => p.path)], [
    'input',
    '$.id',
    '$.amount',
  ]);
  const badResults = simulate({
    definitionText: order,
    inputText: '{"id":"a","amount":1}',
    resultsText:
      '{"nope":{},"big":{"status":"SUCCEEDED"},"cool":{"status":"FAILED"},"reserve":{"status":"FAILED","output":1}}',
  });
  assert.deepEqual(
    badResults.ok
      ? []
      : [badResults.stage, ...badResults.problems.map((p) => `${p.path} ${p.code}`)],
    [
      'results',
      '$.nope unknown_step',
      '$.big unknown_step',
      '$.cool.status invalid_value',
      '$.reserve.output unknown_field',
    ],
  );
  const badDefinition = simulate({ definitionText: '{', inputText: '{}', resultsText: '{}' });
  assert.equal(badDefinition.ok ? '' : badDefinition.stage, 'definition');
  assert.match(formatSimulation(badDefinition)[0] ?? '', /definition has problems/);
});
