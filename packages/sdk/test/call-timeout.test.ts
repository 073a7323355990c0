/**
 * `withTimeout` (call-timeout.ts), the time limit on each call of the Worker: a call that ends
 * takes its listener off the long-lived stop signal with it (one left per call would add up over
 * a worker's life), a stop aborts the call, and a call that runs out of time fails with a
 * `TimeoutError` that names it.
 */
import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { test } from 'node:test';
import { withTimeout } from '../src/call-timeout.js';

test('a call that ends leaves no listener on the stop signal; a stop aborts the call', async () => {
  const stop = new AbortController();
  await withTimeout(() => Promise.resolve('answer'), {
    what: 'a call',
    timeoutMs: 1_000,
    stop: stop.signal,
  });
  await assert.rejects(
    withTimeout(() => Promise.reject(new TypeError('fetch failed')), {
      what: 'a call',
      timeoutMs: 1_000,
      stop: stop.signal,
    }),
    { name: 'TypeError' },
  );
  assert.equal(getEventListeners(stop.signal, 'abort').length, 0);
  const waiting = withTimeout(
    (signal) =>
      new Promise((_, reject) =>
        signal.addEventListener('abort', () => reject(signal.reason as Error)),
      ),
    { what: 'a call', timeoutMs: 60_000, stop: stop.signal },
  );
  stop.abort(new Error('stopping'));
  await assert.rejects(waiting, { message: 'stopping' });
});

test('a call that runs out of time is aborted and fails with a TimeoutError naming it', async () => {
  let seen: AbortSignal | undefined;
  await assert.rejects(
    withTimeout(
      (signal) => {
        seen = signal;
        return new Promise((_, reject) =>
          signal.addEventListener('abort', () => reject(new Error('aborted'))),
        );
      },
      { what: 'heartbeat of task 7', timeoutMs: 20 },
    ),
    { name: 'TimeoutError', message: 'heartbeat of task 7: no answer within 20 ms' },
  );
  assert.equal(seen?.aborted, true);
});
