/**
 * `cookie` is overridden to 1.1.1 under light-my-request (root package.json `overrides`):
 * light-my-request 6.8 asks for cookie ^2, whose engines need Node 22, and `npm ci` on Node 20
 * warned EBADENGINE (`.ci/run` now fails on that). light-my-request only calls
 * `stringifySetCookie({ name, value })`, which cookie 1.1 has with the same signature; these
 * tests show `inject` (Fastify's use of light-my-request) still works with it.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import Fastify from 'fastify';

test('app.inject sends cookies encoded by the overridden cookie@1', async () => {
  const app = Fastify();
  app.get('/', (req) => ({ cookie: req.headers.cookie ?? null }));
  try {
    const r = await app.inject({ url: '/', cookies: { a: 'b c', d: 'e' } });
    assert.equal(r.statusCode, 200);
    assert.deepEqual(r.json(), { cookie: 'a=b%20c; d=e' });
  } finally {
    await app.close();
  }
});

test('the cookie light-my-request loads supports Node 20', () => {
  const fromFastify = createRequire(createRequire(import.meta.url).resolve('fastify'));
  const lightMyRequest = createRequire(fromFastify.resolve('light-my-request'));
  const manifest = JSON.parse(
    readFileSync(lightMyRequest.resolve('cookie/package.json'), 'utf8'),
  ) as { version: string; engines?: { node?: string } };
  assert.equal(manifest.version, '1.1.1');
  assert.equal(manifest.engines?.node, '>=18');
});
