/**
 * The console's static files (http/console-static.ts, docs/console.md): content types, cache
 * headers (hashed assets immutable, the rest revalidated), index.html for client-side routes,
 * 404 for a missing file, and no way out of the folder.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import Fastify from 'fastify';
import type { FastifyInstance } from 'fastify';
import { registerConsole, toRelativePath } from '../../src/http/console-static.js';

describe('console static files', () => {
  let app: FastifyInstance;
  let parent: string;

  before(async () => {
    parent = mkdtempSync(join(tmpdir(), 'weave-console-static-'));
    const dir = join(parent, 'console');
    mkdirSync(join(dir, 'assets'), { recursive: true });
    writeFileSync(join(dir, 'index.html'), '<!doctype html><title>Weave console</title>');
    writeFileSync(join(dir, 'assets', 'index-AbC123.js'), 'console.log(1)');
    writeFileSync(join(dir, 'assets', 'index-AbC123.css'), 'body{}');
    writeFileSync(join(parent, 'secret.txt'), 'outside');
    app = Fastify();
    registerConsole(app, dir);
    await app.ready();
  });

  after(async () => {
    await app.close();
    rmSync(parent, { recursive: true, force: true });
  });

  test('serves index.html at /console/ and redirects /console', async () => {
    const page = await app.inject('/console/');
    assert.equal(page.statusCode, 200);
    assert.match(page.headers['content-type'] as string, /^text\/html/);
    assert.equal(page.headers['cache-control'], 'no-cache');
    assert.match(page.body, /Weave console/);
    const bare = await app.inject('/console');
    assert.equal(bare.statusCode, 302);
    assert.equal(bare.headers.location, '/console/');
  });

  test('serves hashed assets with their content type, cached for a year', async () => {
    const js = await app.inject('/console/assets/index-AbC123.js');
    assert.equal(js.statusCode, 200);
    assert.match(js.headers['content-type'] as string, /^text\/javascript/);
    assert.equal(js.headers['cache-control'], 'public, max-age=31536000, immutable');
    const css = await app.inject('/console/assets/index-AbC123.css');
    assert.match(css.headers['content-type'] as string, /^text\/css/);
  });

  test('answers index.html for client-side routes and 404 for a missing file', async () => {
    const route = await app.inject('/console/instances/42/steps/charge?x=1');
    assert.equal(route.statusCode, 200);
    assert.match(route.body, /Weave console/);
    const missing = await app.inject('/console/assets/gone-123.js');
    assert.equal(missing.statusCode, 404);
    assert.match(missing.body, /"not_found"/);
  });

  test('never serves a file outside the folder', async () => {
    for (const url of [
      '/console/../secret.txt',
      '/console/%2e%2e/secret.txt',
      '/console/assets/..%2f..%2fsecret.txt',
      '/console/..%5csecret.txt',
      '/console/%00index.html',
    ]) {
      const answer = await app.inject(url);
      assert.doesNotMatch(answer.body, /outside/, url);
      assert.notEqual(answer.statusCode, 500, url);
    }
    assert.equal(toRelativePath('a/../b'), undefined);
    assert.equal(toRelativePath('a//b'), undefined);
    assert.equal(toRelativePath(''), 'index.html');
  });
});
