/**
 * The SDK Worker's claim loop against a server it cannot reach: it reports each failure and
 * retries after a delay, and a delay that ends leaves no listener behind on the loop's stop
 * signal (found by the weave crash test: a worker whose server was SIGKILLed retried until Node
 * warned of a listener leak).
 */
import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { test } from 'node:test';
import { WeaveClient, Worker } from '../src/index.js';

test('a claim loop that keeps failing keeps one abort listener, not one per retry', async () => {
  const signals: AbortSignal[] = [];
  const unreachable = (_input: string | URL | Request, init?: RequestInit) => {
    if (init?.signal instanceof AbortSignal) {
      signals.push(init.signal);
    }
    return Promise.reject(new TypeError('fetch failed: connect ECONNREFUSED'));
  };
  const client = new WeaveClient({
    url: 'http://weave.test',
    namespace: 'ns',
    apiKey: 'k',
    fetch: unreachable,
  });
  let failures = 0;
  let thirdFailure: () => void = () => undefined;
  const third = new Promise<void>((resolve) => (thirdFailure = resolve));
  const worker = new Worker({
    client,
    handlers: { q: () => Promise.resolve(null) },
    onError: () => {
      if (++failures === 3) {
        thirdFailure();
      }
    },
  });
  worker.start();
  try {
    await third;
    const signal = signals[0];
    assert.ok(signal !== undefined, 'the claim was sent with the loop’s signal');
    assert.ok(signals.every((s) => s === signal));
    // Two retry delays have ended and the third is running: one listener, the running delay's.
    assert.equal(getEventListeners(signal, 'abort').length, 1);
  } finally {
    await worker.stop();
  }
});
