import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parse, stringify } from '@weave/json';
import type { Decision } from '../src/index.js';
import {
  applyDecisions,
  decisionToJson,
  formatDecision,
  snapshotFromJson,
  snapshotToJson,
} from '../src/index.js';
import {
  assertRejected,
  compileOk,
  definition,
  json,
  step,
  succeed,
  task,
  withStep,
} from './support/helpers.js';

const program = compileOk(
  definition([
    task('a'),
    {
      id: 'br',
      kind: 'BRANCH',
      cases: [{ when: { exists: '$.input.x' }, steps: [task('b')] }],
      default: [],
    },
    {
      id: 'p',
      kind: 'POLL',
      queue: 'q',
      interval: 'PT1M',
      max_rounds: 2,
      timeout: 'PT1H',
      classify: { path: '$.s', succeeded: ['OK'] },
    },
  ]),
);

test('[E3.2] a snapshot survives a JSON round trip and plans identically', () => {
  let snapshot = step(program, program.initialSnapshot(json('{"x":1e400}'))).snapshot;
  snapshot = step(program, succeed(snapshot, 'a', json('{"v":0.10}'))).snapshot;
  snapshot = withStep(snapshot, 'b', { status: 'ACTIVE', cancelRequested: true });
  const text = stringify(snapshotToJson(snapshot));
  assert.equal(
    text,
    '{"allow_new":true,"input":{"x":1e400},"steps":{"a":{"kind":"TASK","status":"SUCCEEDED","output":{"v":0.10}},' +
      '"br":{"kind":"BRANCH","status":"ACTIVE","case_index":0},"b":{"kind":"TASK","status":"ACTIVE","cancel_requested":true},' +
      '"p":{"kind":"POLL","status":"PENDING"},"$root":{"kind":"ROOT","status":"ACTIVE"}}}',
  );
  const back = snapshotFromJson(parse(text));
  assert.deepEqual(back, snapshot);
  assert.deepEqual(program.plan(back, 32), program.plan(snapshot, 32));
});

test('snapshotFromJson checks the shape and names the path', () => {
  assertRejected(() => snapshotFromJson(json('[]')), 'invalid_snapshot', '$');
  assertRejected(
    () => snapshotFromJson(json('{"allow_new":1,"input":null,"steps":{}}')),
    'invalid_snapshot',
    '$.allow_new',
  );
  assertRejected(
    () => snapshotFromJson(json('{"allow_new":true,"steps":{}}')),
    'invalid_snapshot',
    '$.input',
  );
  assertRejected(
    () => snapshotFromJson(json('{"allow_new":true,"input":1,"steps":{},"x":1}')),
    'invalid_snapshot',
    '$.x',
  );
  assertRejected(
    () =>
      snapshotFromJson(
        json(
          '{"allow_new":true,"input":1,"steps":{"a":{"kind":"TASK","status":"ACTIVE","case_index":-1}}}',
        ),
      ),
    'invalid_snapshot',
    '$.steps.a.case_index',
  );
  assertRejected(
    () =>
      snapshotFromJson(
        json(
          '{"allow_new":true,"input":1,"steps":{"a":{"kind":"TASK","status":"ACTIVE","lease":1}}}',
        ),
      ),
    'invalid_snapshot',
    '$.steps.a.lease',
  );
});

test('decisions have a snake_case JSON form and a one-line text form', () => {
  const decisions: Decision[] = [
    { kind: 'ACTIVATE', stepId: '$root', node: 'ROOT' },
    {
      kind: 'ACTIVATE',
      stepId: 't',
      node: 'TASK',
      queue: 'q',
      input: json('{"a":1.50}'),
      timeoutMs: 1000,
      retry: {
        maxAttempts: 2,
        initialIntervalMs: 10,
        backoffCoefficient: '1.5',
        maxIntervalMs: 20,
        nonRetryableCodes: ['x'],
      },
      idempotent: false,
      traceKey: 'tr ace',
    },
    {
      kind: 'ACTIVATE',
      stepId: 'p',
      node: 'POLL',
      queue: 'q',
      input: null,
      intervalMs: 1,
      maxRounds: 2,
      timeoutMs: 3,
      finalSignal: { signalName: 's', correlation: 'c', payloadVersion: 1 },
    },
    { kind: 'COMPLETE', stepId: 'br', output: json('[1.0]') },
    { kind: 'FAIL', stepId: '$root', error: { code: 'child_failed', message: 'm', stepId: 'a' } },
    { kind: 'SKIP', stepId: 'x' },
    { kind: 'CANCEL', stepId: 'y' },
  ];
  assert.deepEqual(
    decisions.map((d) => stringify(decisionToJson(d))),
    [
      '{"kind":"ACTIVATE","step_id":"$root","node":"ROOT"}',
      '{"kind":"ACTIVATE","step_id":"t","node":"TASK","queue":"q","input":{"a":1.50},"timeout_ms":1000,' +
        '"retry":{"max_attempts":2,"initial_interval_ms":10,"backoff_coefficient":1.5,"max_interval_ms":20,"non_retryable_codes":["x"]},' +
        '"idempotent":false,"trace_key":"tr ace"}',
      '{"kind":"ACTIVATE","step_id":"p","node":"POLL","queue":"q","input":null,"interval_ms":1,"max_rounds":2,"timeout_ms":3,' +
        '"final_signal":{"signal_name":"s","correlation":"c","payload_version":1}}',
      '{"kind":"COMPLETE","step_id":"br","output":[1.0]}',
      '{"kind":"FAIL","step_id":"$root","error":{"code":"child_failed","message":"m","step_id":"a"}}',
      '{"kind":"SKIP","step_id":"x"}',
      '{"kind":"CANCEL","step_id":"y"}',
    ],
  );
  assert.equal(formatDecision(decisions[0]!), 'ACTIVATE $root ROOT');
  assert.equal(formatDecision(decisions[3]!), 'COMPLETE br output=[1.0]');
  assert.match(
    formatDecision(decisions[1]!),
    /^ACTIVATE t TASK queue=q input=\{"a":1.50\} timeout_ms=1000 .* trace_key="tr ace"$/,
  );
});

test('applyDecisions follows the documented transitions and refuses others', () => {
  const start = program.initialSnapshot(new Map());
  const applied = applyDecisions(start, [
    { kind: 'ACTIVATE', stepId: '$root', node: 'ROOT' },
    { kind: 'ACTIVATE', stepId: 'br', node: 'BRANCH', caseIndex: 1 },
    { kind: 'SKIP', stepId: 'b' },
    { kind: 'COMPLETE', stepId: 'br', output: null },
    { kind: 'FAIL', stepId: 'a', error: { code: 'aborted', message: 'm' } },
  ]);
  assert.deepEqual(applied.steps.get('br'), {
    kind: 'BRANCH',
    status: 'SUCCEEDED',
    caseIndex: 1,
    output: null,
  });
  assert.deepEqual(applied.steps.get('b'), { kind: 'TASK', status: 'SKIPPED' });
  assert.equal(start.steps.get('br')?.status, 'PENDING', 'the input snapshot is unchanged');
  assertRejected(
    () => applyDecisions(start, [{ kind: 'COMPLETE', stepId: 'a', output: null }]),
    'invalid_transition',
    '$.steps.a',
  );
  assertRejected(
    () => applyDecisions(start, [{ kind: 'CANCEL', stepId: 'a' }]),
    'invalid_transition',
  );
  assertRejected(
    () => applyDecisions(start, [{ kind: 'SKIP', stepId: 'zz' }]),
    'invalid_transition',
    '$.steps.zz',
  );
});
