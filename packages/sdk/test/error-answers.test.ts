/**
 * Error answers that are not the server's JSON: a proxy's HTML 502 page, a load balancer's empty
 * 503. They become a `WeaveApiError` like any other, with the status, a code that follows it and
 * the start of the body in the message. Found by review: the body was parsed before the status
 * was looked at, so an HTML 502 threw a JSON parse error with no status, and `isWeaveApiError`
 * was false (the Worker then took it for a lost call).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { WeaveClient, isWeaveApiError } from '../src/index.js';

function clientAnswering(status: number, body: string, type = 'text/html') {
  const fakeFetch = () =>
    Promise.resolve(new Response(body, { status, headers: { 'content-type': type } }));
  return new WeaveClient({
    url: 'http://weave.test',
    namespace: 'ns',
    apiKey: 'k',
    fetch: fakeFetch,
  });
}

async function errorOf(client: WeaveClient) {
  try {
    await client.getQueue('q');
  } catch (e: unknown) {
    assert.ok(isWeaveApiError(e), `a WeaveApiError, not ${String(e)}`);
    return e;
  }
  assert.fail('the call succeeded');
}

const BAD_GATEWAY = `<html>
<head><title>502 Bad Gateway</title></head>
<body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body>
</html>`;

test('an HTML 502 from a proxy is a WeaveApiError unavailable, with the status and the start of the body', async () => {
  const e = await errorOf(clientAnswering(502, BAD_GATEWAY));
  assert.equal(e.code, 'unavailable');
  assert.equal(e.status, 502);
  assert.match(e.message, /^HTTP 502 /);
  assert.match(e.message, /<title>502 Bad Gateway<\/title>/);
});

test('the code follows the status: 503 and 504 unavailable, 413 payload_too_large, others internal', async () => {
  const cases: [number, string][] = [
    [503, 'unavailable'],
    [504, 'unavailable'],
    [413, 'payload_too_large'],
    [500, 'internal'],
    [404, 'internal'],
  ];
  for (const [status, code] of cases) {
    const e = await errorOf(clientAnswering(status, '<html>oops</html>'));
    assert.equal(e.code, code, `status ${status}`);
    assert.equal(e.status, status);
  }
});

test('an empty error answer gets the code of its status', async () => {
  const e = await errorOf(clientAnswering(503, ''));
  assert.equal(e.code, 'unavailable');
  assert.equal(e.status, 503);
});

test('a long body is shown cut to its first 200 characters', async () => {
  const e = await errorOf(clientAnswering(500, `<p>${'é'.repeat(1_000)}</p>`));
  assert.ok(e.message.endsWith('…'));
  assert.ok(e.message.length < 300, `a message of ${e.message.length} characters`);
});

test('the server’s own JSON error answer keeps its code and message', async () => {
  const body = '{"error":{"code":"not_found","message":"queue q","details":{"path":"queue"}}}';
  const e = await errorOf(clientAnswering(404, body, 'application/json'));
  assert.equal(e.code, 'not_found');
  assert.equal(e.message, 'queue q');
  assert.deepEqual(e.details, { path: 'queue' });
});
