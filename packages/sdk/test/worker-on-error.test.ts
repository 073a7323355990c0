/**
 * An `onError` callback that throws (or rejects) changes nothing in the Worker: the claim loop
 * keeps claiming, a heartbeat's failure does not become an unhandled rejection, every completion
 * of a batch is still settled so that `stop()` resolves, and the first such failure is written to
 * `console.error`. Found by review: each of these either crashed the process or hung `stop()`.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, test } from 'node:test';
import { WeaveClient, Worker } from '../src/node/index.js';
import { claimedTask, startFakeWeave, stopBoth, waitFor, within } from './support/fake-weave.js';

const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);
const consoleErrors: unknown[][] = [];
const originalConsoleError = console.error;

beforeEach(() => {
  unhandled.length = 0;
  consoleErrors.length = 0;
  process.on('unhandledRejection', onUnhandled);
  console.error = (...args: unknown[]) => consoleErrors.push(args);
});
afterEach(() => {
  process.off('unhandledRejection', onUnhandled);
  console.error = originalConsoleError;
});

/** A client whose every call fails on the network, as when no server answers. */
function unreachableClient(message: string): WeaveClient {
  return new WeaveClient({
    url: 'http://weave.test',
    namespace: 'ns',
    apiKey: 'k',
    fetch: () => Promise.reject(new TypeError(message)),
  });
}

test('a claim loop whose onError throws keeps claiming, and stop() resolves', async () => {
  const client = unreachableClient('fetch failed: connect ECONNREFUSED');
  let calls = 0;
  const worker = new Worker({
    client,
    handlers: { q: () => Promise.resolve(null) },
    onError: () => {
      calls++;
      throw new Error('a broken onError');
    },
  });
  worker.start();
  try {
    await waitFor(() => calls >= 2, { what: 'a second claim failure' });
  } finally {
    await within(worker.stop(), 3_000, 'stop()');
  }
  assert.equal(consoleErrors.length, 1, 'the first throw is written once');
  assert.match(String(consoleErrors[0]?.[0]), /onError threw/);
  assert.deepEqual(unhandled, []);
});

test('an onError that rejects (an async callback) does not become an unhandled rejection', async () => {
  const client = unreachableClient('fetch failed');
  let calls = 0;
  const worker = new Worker({
    client,
    handlers: { q: () => Promise.resolve(null) },
    // eslint-disable-next-line @typescript-eslint/no-misused-promises -- what this test is about
    onError: async () => {
      calls++;
      await Promise.resolve();
      throw new Error('a broken async onError');
    },
  });
  worker.start();
  try {
    await waitFor(() => calls >= 1 && consoleErrors.length === 1, { what: 'the rejection' });
  } finally {
    await within(worker.stop(), 3_000, 'stop()');
  }
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(unhandled, []);
});

test('a heartbeat whose failure goes to a throwing onError does not crash the worker', async () => {
  const fake = await startFakeWeave((call) => {
    if (call.kind !== 'heartbeat') {
      return false;
    }
    call.answer(500, { error: { code: 'internal', message: 'the database is down' } });
    return true;
  });
  let reported = 0;
  const worker = new Worker({
    client: new WeaveClient({ url: fake.url, namespace: 'ns', apiKey: 'k' }),
    heartbeatMs: 20,
    handlers: {
      q: async () => {
        await waitFor(() => reported >= 3, { what: 'three failed heartbeats' });
        return 'done';
      },
    },
    onError: () => {
      reported++;
      throw new Error('a broken onError');
    },
  });
  fake.offer(claimedTask(1));
  worker.start();
  try {
    await waitFor(() => fake.calls.some((call) => call.kind === 'completions'), {
      what: 'the completion',
    });
  } finally {
    await stopBoth(worker, fake);
  }
  assert.deepEqual(unhandled, []);
});

test('a batch whose refused items go to a throwing onError settles every item, and stop() resolves', async () => {
  const fake = await startFakeWeave((call) => {
    if (call.kind !== 'completions') {
      return false;
    }
    const items = call.body.completions as unknown[];
    call.answer(200, {
      receipts: [],
      errors: items.map((_, index) => ({
        index,
        error: { code: 'permit_stale', message: 'the lease was lost' },
      })),
      tasks: [],
    });
    return true;
  });
  const reported: unknown[] = [];
  let started = 0;
  let release: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const worker = new Worker({
    client: new WeaveClient({ url: fake.url, namespace: 'ns', apiKey: 'k' }),
    concurrency: 3,
    handlers: {
      q: async () => {
        started++;
        await gate;
        return null;
      },
    },
    onError: (e) => {
      reported.push(e);
      throw new Error('a broken onError');
    },
  });
  fake.offer(claimedTask(1), claimedTask(2), claimedTask(3));
  worker.start();
  await waitFor(() => started === 3, { what: 'three running tasks' });
  release();
  await waitFor(() => reported.length === 3, { what: 'three refusals reported' });
  await stopBoth(worker, fake);
  assert.equal(worker.inFlightCount, 0);
  assert.deepEqual(unhandled, []);
});
