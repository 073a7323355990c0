/**
 * The client refuses a body over the server's limit before sending it, with the error the
 * server would answer (`payload_too_large`, 413, `details.limit`); the limit is measured in
 * UTF-8 bytes and can be changed with `maxBodyBytes`.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { WeaveClient } from '../src/index.js';

const MiB = 1024 * 1024;

function countingClient(options: { maxBodyBytes?: number } = {}) {
  const sent: number[] = [];
  const fakeFetch = (_input: string | URL | Request, init?: RequestInit) => {
    sent.push(typeof init?.body === 'string' ? init.body.length : 0);
    return Promise.resolve(new Response('{}', { status: 200 }));
  };
  const client = new WeaveClient({
    url: 'http://weave.test',
    namespace: 'ns',
    apiKey: 'k',
    fetch: fakeFetch,
    ...options,
  });
  return { client, sent };
}

/** A JSON body of exactly `bytes` UTF-8 bytes: `{"s":"…"}` around `fill`. */
function bodyOf(bytes: number, fill = 'x'): { s: string } {
  const fillBytes = new TextEncoder().encode(fill).length;
  return { s: fill.repeat((bytes - 8) / fillBytes) };
}

test('a body over 2 MiB is refused as payload_too_large (413, details.limit) without a request', async () => {
  const { client, sent } = countingClient();
  await assert.rejects(client.request('POST', '/queues', { body: bodyOf(8 * MiB) }), {
    name: 'WeaveApiError',
    code: 'payload_too_large',
    status: 413,
    details: { limit: 2 * MiB },
  });
  assert.deepEqual(sent, []);
});

test('a body of exactly the limit is sent, one byte more is not', async () => {
  const { client, sent } = countingClient({ maxBodyBytes: 1000 });
  await client.request('POST', '/queues', { body: bodyOf(1000) });
  assert.deepEqual(sent, [1000]);
  await assert.rejects(client.request('POST', '/queues', { body: bodyOf(1001) }), {
    code: 'payload_too_large',
    details: { limit: 1000 },
  });
  assert.equal(sent.length, 1);
});

test('the limit counts UTF-8 bytes, not UTF-16 code units', async () => {
  const { client, sent } = countingClient({ maxBodyBytes: 1000 });
  // 300 × 'é' is 308 code units but 608 bytes; 330 × '€' is 338 code units but 998 bytes.
  await client.request('POST', '/queues', { body: bodyOf(608, 'é') });
  await client.request('POST', '/queues', { body: bodyOf(998, '€') });
  await assert.rejects(client.request('POST', '/queues', { body: bodyOf(1004, '😀') }), {
    code: 'payload_too_large',
  });
  assert.equal(sent.length, 2);
});

test('maxBodyBytes raises the limit for a server configured with a larger one', async () => {
  const { client, sent } = countingClient({ maxBodyBytes: 16 * MiB });
  await client.request('POST', '/queues', { body: bodyOf(8 * MiB) });
  assert.deepEqual(sent, [8 * MiB]);
});
