/**
 * The HTTP surface: one error shape for malformed JSON (with position), oversized bodies,
 * unknown routes and bad fields; idempotent replays; request ids; health; OpenAPI; and
 * whole-or-nothing writes.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { isWeaveApiError } from '@weave/sdk';
import { forEachDialect } from '../support/databases.js';
import { startTestServer } from '../support/servers.js';
import type { TestServer } from '../support/servers.js';

interface ErrorShape {
  error: { code: string; message: string; details?: Record<string, unknown> };
}

async function raw(
  t: TestServer,
  method: string,
  path: string,
  init: { body?: string | Buffer; headers?: Record<string, string> } = {},
) {
  const response = await fetch(`${t.server.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${t.adminKey}`, ...init.headers },
    ...(init.body === undefined ? {} : { body: init.body }),
  });
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    text,
    json: JSON.parse(text) as unknown,
  };
}

function assertErrorShape(body: unknown, code: string): ErrorShape['error'] {
  const error = (body as ErrorShape).error;
  assert.equal(typeof error, 'object');
  assert.equal(error.code, code);
  assert.equal(typeof error.message, 'string');
  assert.deepEqual(Object.keys(body as object), ['error']);
  return error;
}

async function tableCounts(t: TestServer) {
  const k = t.server.database.kysely;
  const count = async (
    table: 'queues' | 'applications' | 'application_quotas' | 'receipts' | 'credentials',
  ) =>
    Number(
      (
        await k
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  return {
    queues: await count('queues'),
    applications: await count('applications'),
    quotas: await count('application_quotas'),
    receipts: await count('receipts'),
    credentials: await count('credentials'),
  };
}

forEachDialect((dialect) => {
  describe(`HTTP on ${dialect}`, () => {
    let t: TestServer;
    before(async () => {
      t = await startTestServer(dialect, { bodyLimitBytes: 64 * 1024 });
    });
    after(() => t.close());

    const json = { 'content-type': 'application/json' };

    test('malformed JSON → 400 malformed_json with the position', async () => {
      const r = await raw(t, 'POST', '/v1/namespaces/ns/queues', {
        body: '{"name": "x",\n "capacity": 01}',
        headers: json,
      });
      assert.equal(r.status, 400);
      const error = assertErrorShape(r.json, 'malformed_json');
      assert.equal(error.details?.position, 28);
      assert.equal(error.details?.line, 2);
    });

    test('a duplicate key in the body → 400 naming the path', async () => {
      const r = await raw(t, 'POST', '/v1/namespaces/ns/queues', {
        body: '{"name":"a","name":"b"}',
        headers: json,
      });
      assert.equal(r.status, 400);
      const error = assertErrorShape(r.json, 'malformed_json');
      assert.equal(error.details?.path, '$');
      assert.equal(error.details?.key, 'name');
    });

    test('an oversized body → 413 payload_too_large with the limit', async () => {
      const big = JSON.stringify({ name: 'x'.repeat(70 * 1024) });
      const r = await raw(t, 'POST', '/v1/namespaces/ns/queues', { body: big, headers: json });
      assert.equal(r.status, 413);
      const error = assertErrorShape(r.json, 'payload_too_large');
      assert.equal(error.details?.limit, 64 * 1024);
    });

    test('an unknown route → 404 not_found in the same shape', async () => {
      for (const path of ['/nope', '/v1/namespaces/ns/nothing-here', '/v2/x']) {
        const r = await raw(t, 'GET', path);
        assert.equal(r.status, 404, path);
        assertErrorShape(r.json, 'not_found');
      }
    });

    test('a body that is not JSON → 415 unsupported_media_type', async () => {
      const r = await raw(t, 'POST', '/v1/namespaces/ns/queues', {
        body: 'name=x',
        headers: { 'content-type': 'text/plain' },
      });
      assert.equal(r.status, 415);
      assertErrorShape(r.json, 'unsupported_media_type');
    });

    test('a bad field → 400 invalid_argument naming its JSON path', async () => {
      const cases: [unknown, string][] = [
        [{ name: 'Bad Name', application: 'app' }, '$.name'],
        [{ name: 'ok', application: 'app', capacity: 1.5 }, '$.capacity'],
        [{ name: 'ok', application: 'app', capacity: 0 }, '$.capacity'],
        [{ name: 'ok' }, '$.application'],
        [{ name: 'ok', application: 'app', extra: true }, '$.extra'],
        [[1, 2], '$'],
      ];
      for (const [body, path] of cases) {
        const r = await raw(t, 'POST', '/v1/namespaces/ns/queues', {
          body: JSON.stringify(body),
          headers: json,
        });
        assert.equal(r.status, 400, JSON.stringify(body));
        assert.equal(assertErrorShape(r.json, 'invalid_argument').details?.path, path);
      }
    });

    test('a failed request leaves the database as it was', async () => {
      const before = await tableCounts(t);
      await assert.rejects(
        t.admin.createApplication({ name: 'BAD' }),
        (e) => isWeaveApiError(e) && e.code === 'invalid_argument',
      );
      await assert.rejects(
        t.admin.createQueue({ name: 'fine', application: 'missing' }, 'k-fail'),
        (e) => isWeaveApiError(e),
      );
      await assert.rejects(
        t.admin.createQueue({ name: 'q1', application: 'app' }),
        (e) => isWeaveApiError(e) && e.code === 'already_exists',
      );
      assert.deepEqual(await tableCounts(t), before);
    });

    test('an Idempotency-Key replay returns the original response; another body → 409', async () => {
      const first = await t.admin.requestRaw('POST', '/queues', {
        body: { name: 'idem', application: 'app', capacity: 5 },
        idempotencyKey: 'key-1',
      });
      assert.equal(first.status, 201);
      const again = await t.admin.requestRaw('POST', '/queues', {
        body: { capacity: 5, application: 'app', name: 'idem' },
        idempotencyKey: 'key-1',
      });
      assert.equal(again.status, 201);
      assert.equal(again.headers.get('idempotent-replayed'), 'true');
      assert.deepEqual(again.body, first.body);
      await assert.rejects(
        t.admin.requestRaw('POST', '/queues', {
          body: { name: 'idem', application: 'app', capacity: 6 },
          idempotencyKey: 'key-1',
        }),
        (e) => isWeaveApiError(e) && e.code === 'idempotency_conflict' && e.status === 409,
      );
    });

    test('a credential replay never shows the key again', async () => {
      const first = await t.admin.createCredential(
        { name: 'once', scopes: ['tasks:read'] },
        'cred-1',
      );
      assert.ok(first.key);
      const again = await t.admin.createCredential(
        { name: 'once', scopes: ['tasks:read'] },
        'cred-1',
      );
      assert.equal(again.key, undefined);
      assert.equal(again.credential.id, first.credential.id);
    });

    test('the request id is echoed, or made when absent', async () => {
      const given = await raw(t, 'GET', '/v1/namespaces/ns/queues', {
        headers: { 'x-request-id': 'req-123' },
      });
      assert.equal(given.headers.get('x-request-id'), 'req-123');
      const made = await raw(t, 'GET', '/v1/namespaces/ns/queues');
      assert.match(made.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
    });

    test('/healthz and /readyz answer without a key', async () => {
      const health = await fetch(`${t.server.url}/healthz`);
      assert.equal(health.status, 200);
      const ready = await fetch(`${t.server.url}/readyz`);
      assert.equal(ready.status, 200);
      assert.deepEqual(await ready.json(), { status: 'ready' });
    });

    test('/v1/openapi.json describes every registered route', async () => {
      const doc = (await (await fetch(`${t.server.url}/v1/openapi.json`)).json()) as {
        openapi: string;
        paths: Record<string, Record<string, { 'x-weave-scope': string }>>;
      };
      assert.equal(doc.openapi, '3.1.0');
      assert.equal(
        doc.paths['/v1/namespaces/{ns}/queues/{queue}']?.get?.['x-weave-scope'],
        'admin',
      );
      assert.ok(doc.paths['/v1/namespaces/{ns}/credentials/{id}']?.delete);
    });

    test('queues and applications round-trip through the admin API', async () => {
      const { application } = await t.admin.createApplication({
        name: 'billing',
        quota: { max_active_tasks: 7 },
      });
      assert.equal(application.quota.max_active_tasks, 7);
      const changed = await t.admin.updateApplication('billing', {
        quota: { max_active_tasks: 9 },
      });
      assert.equal(changed.application.quota.max_active_tasks, 9);
      assert.equal(changed.application.revision, '2');
      await t.admin.createQueue({ name: 'invoices', application: 'billing', capacity: 3 });
      assert.equal((await t.admin.pauseQueue('invoices')).queue.paused, true);
      assert.equal((await t.admin.resumeQueue('invoices')).queue.paused, false);
      const page1 = await t.admin.listQueues({ page_size: 1 });
      assert.equal(page1.items.length, 1);
      assert.ok(page1.next_page_token);
      const page2 = await t.admin.listQueues({ page_size: 500, page_token: page1.next_page_token });
      assert.ok(!page2.items.some((q) => q.name === page1.items[0]?.name));
      assert.equal(page2.next_page_token, undefined);
    });
  });
});
