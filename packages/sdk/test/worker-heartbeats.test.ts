/**
 * Heartbeats end with the permit: after a `permit_stale` answer none is sent again and the
 * handler's signal is aborted (docs/sdk.md), and an answer that arrives after the handler
 * returned is ignored. Found by review: the timer kept sending the dead permit every
 * `heartbeatMs` until the handler returned, reporting each refusal, and a heartbeat in flight
 * while the completion committed reported a spurious `permit_stale`.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { WeaveClient, Worker, isWeaveApiError } from '../src/node/index.js';
import {
  claimedTask,
  completionsByTask,
  startFakeWeave,
  waitFor,
  stopBoth,
} from './support/fake-weave.js';
import type { FakeCall } from './support/fake-weave.js';

const PERMIT_STALE = { error: { code: 'permit_stale', message: 'the lease has ended' } };

test('after permit_stale no heartbeat is sent again and the handler’s signal is aborted', async () => {
  const fake = await startFakeWeave((call) => {
    if (call.kind !== 'heartbeat') {
      return false;
    }
    call.answer(409, PERMIT_STALE);
    return true;
  });
  const errors: unknown[] = [];
  let abortReason: unknown;
  const worker = new Worker({
    client: new WeaveClient({ url: fake.url, namespace: 'ns', apiKey: 'k' }),
    heartbeatMs: 40,
    handlers: {
      q: async (_input, ctx) => {
        await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
        abortReason = ctx.signal.reason;
        // Ten heartbeat intervals more before returning, as a handler slow to stop would.
        await new Promise((resolve) => setTimeout(resolve, 400));
        return 'stopped';
      },
    },
    onError: (e) => errors.push(e),
  });
  fake.offer(claimedTask(1));
  worker.start();
  try {
    await waitFor(() => completionsByTask(fake.calls).has('1'), { what: 'the completion' });
  } finally {
    await stopBoth(worker, fake);
  }
  // One, or two on a loaded machine: the next may leave before the first one's answer is back.
  const heartbeats = fake.calls.filter((call) => call.kind === 'heartbeat').length;
  assert.ok(heartbeats <= 2, `${heartbeats} heartbeats`);
  assert.ok(isWeaveApiError(abortReason) && abortReason.code === 'permit_stale');
  assert.equal(errors.length, 1, 'the lost permit is reported once');
});

test('a heartbeat answered after the handler returned is not reported', async () => {
  const held: FakeCall[] = [];
  const fake = await startFakeWeave((call) => {
    if (call.kind !== 'heartbeat') {
      return false;
    }
    held.push(call); // answered below, once the completion is in
    return true;
  });
  const errors: unknown[] = [];
  const worker = new Worker({
    client: new WeaveClient({ url: fake.url, namespace: 'ns', apiKey: 'k' }),
    heartbeatMs: 20,
    handlers: {
      q: async () => {
        await waitFor(() => held.length > 0, { what: 'a heartbeat in flight' });
        return 'done';
      },
    },
    onError: (e) => errors.push(e),
  });
  fake.offer(claimedTask(1));
  worker.start();
  try {
    await waitFor(() => completionsByTask(fake.calls).has('1'), { what: 'the completion' });
    // The completion committed: the server refuses the heartbeats still in flight.
    held.forEach((call) => call.answer(409, PERMIT_STALE));
    // Nothing to wait for but the answers' arrival: what is checked is that nothing happens.
    await new Promise((resolve) => setTimeout(resolve, 100));
  } finally {
    await stopBoth(worker, fake);
  }
  assert.ok(held.length >= 1);
  assert.deepEqual(errors, []);
});
