/**
 * The grouped worker calls read every body and every claim request in one object shape
 * (docs/design/hot-path.md §57): `callBody` (worker-calls.ts) and `claimRequest`
 * (claim-tasks.ts) turn what a batch of completions, its riding claim and a long-poll send into
 * objects of one hidden class, values unchanged. V8's own `%HaveSameMap` is the check: the
 * shapes a function was compiled for are maps, and a second map at the same site is what throws
 * the compiled code away.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import v8 from 'node:v8';
import { claimRequest } from '../../src/pulse/claim-tasks.js';
import type { ClaimRequest } from '../../src/pulse/claim-tasks.js';
import { callBody } from '../../src/pulse/worker-calls.js';
import type { WorkerCallBody } from '../../src/pulse/worker-calls.js';

v8.setFlagsFromString('--allow-natives-syntax');
// eslint-disable-next-line @typescript-eslint/no-implied-eval -- V8's natives syntax, tests only
const sameMap = new Function('a', 'b', 'return %HaveSameMap(a, b)') as (
  a: object,
  b: object,
) => boolean;

/** What the long-poll route makes: the parsed claim's rest, spread behind the queue's names. */
function longPollRequest(): ClaimRequest {
  const parsed = { workerId: 'w-1', maxTasks: 6, start: true, waitMs: 20_000 };
  const { waitMs: _waitMs, ...claim } = parsed;
  return { namespaceId: '7', queueName: 'q1', ...claim };
}

/** What a grouped batch's riding claim becomes in the old way: its fields spread in. */
function ridingRequest(): ClaimRequest {
  const claim: Omit<ClaimRequest, 'namespaceId' | 'queueName'> = { workerId: 'w-2', maxTasks: 6 };
  return { ...claim, namespaceId: '7', queueName: 'q1' };
}

test('claimRequest: requests from the long-poll, a riding claim and a known queue share one map, values kept', () => {
  const shapes = [
    longPollRequest(),
    ridingRequest(),
    {
      namespaceId: '7',
      queueName: 'q1',
      workerId: 'w-3',
      maxTasks: 1,
      queue: { id: '5', paused: false },
    },
    { namespaceId: '7', queueName: 'q1', workerId: 'w-4', maxTasks: 2, leaseUs: 5_000_000n },
  ];
  // As sent, they differ: the check can fail.
  assert.equal(sameMap(shapes[0] as object, shapes[1] as object), false);
  const uniform = shapes.map(claimRequest);
  for (const request of uniform) {
    assert.ok(sameMap(uniform[0] as object, request), JSON.stringify(Object.keys(request)));
  }
  assert.deepEqual(uniform[0], {
    namespaceId: '7',
    queueName: 'q1',
    workerId: 'w-1',
    maxTasks: 6,
    leaseUs: undefined,
    start: true,
    queue: undefined,
  });
  assert.equal(uniform[1]?.start, false);
  assert.deepEqual(uniform[2]?.queue, { id: '5', paused: false });
  assert.equal(uniform[3]?.leaseUs, 5_000_000n);
});

test('callBody: a batch with a claim, a batch alone and a long-poll claim share one map, values kept', () => {
  const completion = {
    index: 3,
    namespaceId: '7',
    taskId: '11',
    attemptId: '12',
    permit: 'p',
    completion: { outcome: 'succeeded' as const, result: null },
    credentialId: '1',
    requestId: 'r',
  };
  const bodies: WorkerCallBody[] = [
    {
      namespaceId: '7',
      queueName: 'q1',
      completions: [completion],
      claim: { workerId: 'w-1', maxTasks: 6, start: false },
    },
    { namespaceId: '7', queueName: 'q1', completions: [completion] },
    { namespaceId: '7', queueName: 'q1', claim: { workerId: 'w-2', maxTasks: 1 } },
  ];
  assert.equal(sameMap(bodies[0] as object, bodies[2] as object), false);
  const uniform = bodies.map(callBody);
  for (const body of uniform) {
    assert.ok(sameMap(uniform[0] as object, body), JSON.stringify(Object.keys(body)));
  }
  assert.ok(sameMap(uniform[0]?.claim as object, uniform[2]?.claim as object));
  assert.deepEqual(uniform[0]?.completions, [completion]);
  assert.equal(uniform[1]?.claim, undefined);
  assert.equal(uniform[2]?.completions, undefined);
  assert.deepEqual(uniform[2]?.claim, {
    namespaceId: '7',
    queueName: 'q1',
    workerId: 'w-2',
    maxTasks: 1,
    leaseUs: undefined,
    start: false,
    queue: undefined,
  });
});
