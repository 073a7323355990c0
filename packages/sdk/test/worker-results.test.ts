/**
 * The Worker checks each handler's result before it joins a completion batch: one the server
 * would refuse (not JSON, over 256 KiB, too deep for its parser) fails its own task for good
 * with a stable code, and the other completions of the batch go out unaffected. Found by review:
 * one bad result made the whole `completeMany` body unwritable, every completion of the batch
 * went to `onError` and was dropped, and results each within the limit could add up past the
 * client's body limit, which refused the whole batch.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { WeaveClient, Worker } from '../src/node/index.js';
import type { TaskHandler } from '../src/node/index.js';
import {
  claimedTask,
  completionsByTask,
  startFakeWeave,
  waitFor,
  stopBoth,
} from './support/fake-weave.js';
import type { FakeWeave } from './support/fake-weave.js';

const KiB = 1024;
const MiB = 1024 * KiB;

class Money {
  constructor(readonly cents: number) {}
}

/** `[[…[]…]]`: `levels` arrays, one inside the other. */
function nested(levels: number): unknown {
  let value: unknown = [];
  for (let i = 1; i < levels; i++) {
    value = [value];
  }
  return value;
}

/**
 * Runs one task per entry of `results` (its input the key), all finishing at the same moment so
 * that their completions go out together, and returns what the server received per task.
 */
async function runAll(results: Record<string, unknown>, options: { maxBodyBytes?: number } = {}) {
  const fake = await startFakeWeave();
  const ids = Object.keys(results);
  const errors: unknown[] = [];
  let started = 0;
  let release: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const handler: TaskHandler = async (input) => {
    started++;
    await gate;
    return results[String(input)];
  };
  const worker = new Worker({
    client: new WeaveClient({ url: fake.url, namespace: 'ns', apiKey: 'k', ...options }),
    handlers: { q: handler },
    concurrency: ids.length,
    onError: (e) => errors.push(e),
  });
  fake.offer(...ids.map((id) => claimedTask(Number(id), id)));
  worker.start();
  try {
    await waitFor(() => started === ids.length, { what: 'every handler to start' });
    release();
    await waitFor(() => completionsByTask(fake.calls).size === ids.length, {
      what: 'every completion to arrive',
    });
  } finally {
    await stopBoth(worker, fake);
  }
  return { received: completionsByTask(fake.calls), errors, fake };
}

function completionCalls(fake: FakeWeave) {
  return fake.calls.filter((call) => call.kind === 'completions');
}

test('a result that is not JSON fails its own task for good; the other completions of its batch succeed', async () => {
  const { received, errors, fake } = await runAll({
    '1': { ok: true },
    '2': new Date(0),
    '3': { amount: Number.NaN },
    '4': 'half a pair \uD83D here',
    '5': new Money(500),
    '6': [1, 'two', null],
  });
  assert.equal(completionCalls(fake).length, 1, 'the six completions went out in one call');
  assert.deepEqual(received.get('1'), {
    task_id: '1',
    attempt_id: '1001',
    permit: 'p_1',
    outcome: 'succeeded',
    result: { ok: true },
  });
  assert.deepEqual(received.get('6')?.result, [1, 'two', null]);
  const problems = { '2': /Date/, '3': /NaN/, '4': /surrogate/, '5': /Money/ };
  for (const [id, problem] of Object.entries(problems)) {
    const item = received.get(id);
    assert.equal(item?.outcome, 'failed', `task ${id}`);
    const error = item?.error as { code: string; message: string; retryable: boolean };
    assert.equal(error.code, 'result_not_json', `task ${id}`);
    assert.equal(error.retryable, false, `task ${id}`);
    assert.match(error.message, problem, `task ${id}`);
  }
  assert.deepEqual(errors, [], 'nothing went to onError');
});

test('a result over 256 KiB of JSON fails its task with result_too_large; one of exactly 256 KiB is sent', async () => {
  // A JSON string is its characters and two quotes.
  const { received, errors } = await runAll({
    '1': 'x'.repeat(256 * KiB - 2),
    '2': 'x'.repeat(256 * KiB - 1),
  });
  assert.equal(received.get('1')?.outcome, 'succeeded');
  assert.equal((received.get('1')?.result as string).length, 256 * KiB - 2);
  const error = received.get('2')?.error as { code: string; message: string; retryable: boolean };
  assert.equal(received.get('2')?.outcome, 'failed');
  assert.equal(error.code, 'result_too_large');
  assert.equal(error.retryable, false);
  assert.match(error.message, new RegExp(`${256 * KiB + 1} bytes`));
  assert.deepEqual(errors, []);
});

test('a result the server’s parser would refuse (too deep, a __proto__ key, bad RawJson text) fails its task', async () => {
  const { received, errors } = await runAll({
    '1': nested(61),
    '2': nested(62),
    '3': JSON.parse('{"__proto__": {"admin": true}}') as unknown,
    '4': { kind: 'raw', text: 'not json', note: 'a domain object that looks like RawJson' },
  });
  assert.equal(received.get('1')?.outcome, 'succeeded', '61 levels are read by the server');
  for (const id of ['2', '3', '4']) {
    assert.equal(received.get(id)?.outcome, 'failed', `task ${id}`);
    assert.equal((received.get(id)?.error as { code: string }).code, 'result_not_json');
  }
  assert.deepEqual(errors, []);
});

test('completions whose results add up past the body limit go out in several calls, each within it', async () => {
  // Twelve results of ~244 KiB each, every one within the server's limit: ~2.9 MiB in all.
  const results = Object.fromEntries(
    Array.from({ length: 12 }, (_, i) => [String(i + 1), 'y'.repeat(250_000)]),
  );
  const { received, errors, fake } = await runAll(results);
  const calls = completionCalls(fake);
  assert.ok(calls.length >= 2, `split into ${calls.length} calls`);
  for (const call of calls) {
    assert.ok(call.bytes <= 2 * MiB, `a body of ${call.bytes} bytes`);
  }
  assert.equal(received.size, 12);
  assert.ok([...received.values()].every((item) => item.outcome === 'succeeded'));
  assert.deepEqual(errors, []);
});

test('a smaller maxBodyBytes splits the batch to fit it', async () => {
  const results = Object.fromEntries(
    Array.from({ length: 6 }, (_, i) => [String(i + 1), 'z'.repeat(100_000)]),
  );
  const { received, errors, fake } = await runAll(results, { maxBodyBytes: 250_000 });
  const calls = completionCalls(fake);
  assert.equal(calls.length, 3, 'two results of ~100 KB per call');
  assert.ok(calls.every((call) => call.bytes <= 250_000));
  assert.equal(received.size, 6);
  assert.deepEqual(errors, []);
});
