/**
 * Every call of the Worker has a time limit, so a half-open connection (an answer that never
 * comes) cannot hang it: a `completeMany` without an answer is given up after `callTimeoutMs`
 * and re-sent like one lost on the network, and a long-poll claim after `waitMs` plus its
 * margin, then claimed again. Found by review: neither call had a limit, so a queue's claim loop
 * or its completions could wait forever.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { WeaveClient, Worker } from '../src/node/index.js';
import {
  claimedTask,
  completionsByTask,
  startFakeWeave,
  waitFor,
  stopBoth,
} from './support/fake-weave.js';

test('a completeMany without an answer is given up after callTimeoutMs and re-sent', async () => {
  let completions = 0;
  const fake = await startFakeWeave((call) => call.kind === 'completions' && ++completions === 1);
  const errors: unknown[] = [];
  const worker = new Worker({
    client: new WeaveClient({ url: fake.url, namespace: 'ns', apiKey: 'k' }),
    handlers: { q: () => Promise.resolve('done') },
    callTimeoutMs: 300,
    onError: (e) => errors.push(e),
  });
  fake.offer(claimedTask(1));
  worker.start();
  try {
    await waitFor(() => completions === 2, { what: 'the re-sent completion' });
  } finally {
    await stopBoth(worker, fake);
  }
  assert.equal(completionsByTask(fake.calls).get('1')?.result, 'done');
  assert.deepEqual(errors, [], 'the re-send was answered: nothing to report');
});

test('a long-poll claim without an answer is given up after waitMs plus the margin, then claimed again', async () => {
  let claims = 0;
  const fake = await startFakeWeave((call) => call.kind === 'claims' && ++claims === 1);
  const errors: Error[] = [];
  const worker = new Worker({
    client: new WeaveClient({ url: fake.url, namespace: 'ns', apiKey: 'k' }),
    handlers: { q: () => Promise.resolve('done') },
    waitMs: 100,
    callTimeoutMs: 200, // shorter than the 10 s margin: the claim's limit is 100 + 200 ms
    onError: (e) => errors.push(e as Error),
  });
  fake.offer(claimedTask(1));
  worker.start();
  try {
    await waitFor(() => completionsByTask(fake.calls).has('1'), { what: 'the task to be done' });
  } finally {
    await stopBoth(worker, fake);
  }
  assert.equal(errors.length, 1);
  assert.equal(errors[0]?.name, 'TimeoutError');
  assert.match(errors[0]?.message ?? '', /claim on q: no answer within 300 ms/);
});
