/**
 * The SDK Worker's claim loop against a server it cannot reach: it reports each failure and
 * retries after a delay, and neither a claim nor a delay that ends leaves a listener behind on
 * the loop's stop signal (found by the weave crash test: a worker whose server was SIGKILLed
 * retried until Node warned of a listener leak).
 */
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { test } from 'node:test';
import { WeaveClient, Worker } from '../src/index.js';

test('a claim loop that keeps failing leaves no abort listener behind, per claim or per retry', async () => {
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
  const warnings: string[] = [];
  const onWarning = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);
  process.on('warning', onWarning);
  // The loop's stop signal is made by `start()`. An EventTarget reads the listener limit when it
  // is made: with a limit of 1 on it, a second listener left behind by a claim (its time limit,
  // call-timeout.ts) or by a retry delay makes Node warn of a leak.
  const defaultMax = EventEmitter.defaultMaxListeners;
  EventEmitter.defaultMaxListeners = 1;
  try {
    worker.start();
  } finally {
    EventEmitter.defaultMaxListeners = defaultMax;
  }
  try {
    await third;
    // A warning is emitted on the next tick of the listener that crossed the limit.
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(signals.length, 3, 'each claim was sent with a signal of its own');
    assert.equal(new Set(signals).size, 3);
    assert.deepEqual(
      warnings.filter((w) => w.startsWith('MaxListenersExceededWarning')),
      [],
    );
  } finally {
    await worker.stop();
    process.off('warning', onWarning);
  }
  assert.ok(
    signals.every((signal) => !signal.aborted),
    'the stop reached no finished claim: their listeners had gone',
  );
});
