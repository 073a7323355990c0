/**
 * Credentials over real HTTP: wrong key → 401, missing scope → 403, another namespace's object →
 * 404, revoked or expired key → 401; each denial leaves an audit row; logs hold no key and no
 * payload text.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { isWeaveApiError } from '@weave/sdk';
import type { WeaveClient } from '@weave/sdk';
import { CREDENTIAL_CACHE_MS } from '../../src/auth/credential-cache.js';
import { forEachDialect } from '../support/databases.js';
import { startTestServer } from '../support/servers.js';
import type { TestServer } from '../support/servers.js';
import { waitFor } from '../support/wait-for.js';

/** A key's secret: everything after `wv_<16 hex>_` (base64url, so it may contain `_`). */
const secretOf = (key: string) => key.slice('wv_0123456789abcdef_'.length);

async function expectCode(p: Promise<unknown>, code: string, status: number) {
  await assert.rejects(p, (e: unknown) => {
    assert.ok(isWeaveApiError(e), String(e));
    assert.equal(e.code, code);
    assert.equal(e.status, status);
    return true;
  });
}

/** Waits until the client's key is refused with 401. */
function untilRefused(client: WeaveClient, intervalMs: number, what: string) {
  return waitFor(
    async () => {
      try {
        await client.listQueues();
        return undefined;
      } catch (e: unknown) {
        return isWeaveApiError(e) && e.code === 'unauthenticated' ? true : undefined;
      }
    },
    { timeoutMs: 5000, intervalMs, what },
  );
}

forEachDialect((dialect) => {
  describe(`credentials and scopes on ${dialect}`, () => {
    let t: TestServer;
    before(async () => {
      t = await startTestServer(dialect);
    });
    after(() => t.close());

    async function deniedRows(code: string) {
      return t.server.database.kysely
        .selectFrom('audit_log')
        .selectAll()
        .where('outcome', '=', 'denied')
        .where('code', '=', code)
        .execute();
    }

    test('a wrong key gets 401 and an audit row', async () => {
      const before = (await deniedRows('unauthenticated')).length;
      const wrong = t.clientFor('ns', `wv_0123456789abcdef_${'A'.repeat(43)}`);
      await expectCode(wrong.listQueues(), 'unauthenticated', 401);
      await expectCode(t.clientFor('ns', 'not-even-a-key').listQueues(), 'unauthenticated', 401);
      const rows = await deniedRows('unauthenticated');
      assert.equal(rows.length, before + 2);
      assert.match(rows[rows.length - 2]?.details ?? '', /unknown_key/);
    });

    test('a key without the scope gets 403 and an audit row naming the credential', async () => {
      const key = await t.keyWith('ns', ['tasks:read']);
      const client = t.clientFor('ns', key);
      await expectCode(
        client.createQueue({ name: 'nope', application: 'app' }),
        'permission_denied',
        403,
      );
      const rows = await deniedRows('permission_denied');
      const last = rows[rows.length - 1];
      assert.ok(last);
      assert.notEqual(last.credential_id, null);
      assert.notEqual(last.namespace_id, null);
      assert.match(last.details ?? '', /"scope":"admin"/);
    });

    test('a key limited to some queues gets 403 on the others', async () => {
      const { key } = await t.admin.createCredential({
        name: 'limited',
        scopes: ['admin'],
        queues: ['q1'],
      });
      assert.ok(key);
      const client = t.clientFor('ns', key);
      assert.equal((await client.getQueue('q1')).queue.name, 'q1');
      await expectCode(client.getQueue('other'), 'permission_denied', 403);
    });

    test("another namespace's objects answer 404, not 403, and the attempt is audited", async () => {
      const otherKey = await t.keyWith('other', ['admin'], {
        application: 'app2',
        queues: ['secret'],
      });
      const before = (await deniedRows('not_found')).length;
      // The admin of `ns` asks for namespace `other`: indistinguishable from a missing namespace.
      await expectCode(t.clientFor('other', t.adminKey).getQueue('secret'), 'not_found', 404);
      await expectCode(t.clientFor('missing', t.adminKey).getQueue('secret'), 'not_found', 404);
      assert.equal((await deniedRows('not_found')).length, before + 2);
      assert.equal((await t.clientFor('other', otherKey).getQueue('secret')).queue.name, 'secret');
    });

    test('a revoked key gets 401 at once, with an audit row', async () => {
      const { key, credential } = await t.admin.createCredential({
        name: 'short-lived',
        scopes: ['admin'],
      });
      assert.ok(key);
      const client = t.clientFor('ns', key);
      await client.listQueues();
      const revoked = await t.admin.revokeCredential(credential.id);
      assert.notEqual(revoked.credential.revoked_at, null);
      await expectCode(client.listQueues(), 'unauthenticated', 401);
      const rows = await deniedRows('unauthenticated');
      assert.match(rows[rows.length - 1]?.details ?? '', /"reason":"revoked"/);
      assert.equal(String(rows[rows.length - 1]?.credential_id), credential.id);
    });

    test('a key revoked by another node is refused here within the credential cache time', async () => {
      const { key, credential } = await t.admin.createCredential({
        name: 'revoked-elsewhere',
        scopes: ['admin'],
      });
      assert.ok(key);
      const client = t.clientFor('ns', key);
      await client.listQueues(); // read and cached
      // Another node revokes: this node only sees the row change.
      await t.server.database.kysely
        .updateTable('credentials')
        .set({ revoked_at: 1n })
        .where('id', '=', credential.id)
        .execute();
      const revokedAt = Date.now();
      await untilRefused(client, 50, 'the revocation to be seen');
      const seenAfter = Date.now() - revokedAt;
      assert.ok(
        seenAfter <= CREDENTIAL_CACHE_MS + 1_500,
        `refused after ${seenAfter} ms (cache ${CREDENTIAL_CACHE_MS} ms)`,
      );
    });

    test('an expired key gets 401 (database clock), with an audit row', async () => {
      const soon = new Date(Date.now() + 1500).toISOString();
      const { key } = await t.admin.createCredential({
        name: 'expiring',
        scopes: ['admin'],
        expires_at: soon,
      });
      assert.ok(key);
      const client = t.clientFor('ns', key);
      await client.listQueues();
      await untilRefused(client, 200, 'the key to expire');
      const rows = await deniedRows('unauthenticated');
      assert.match(rows[rows.length - 1]?.details ?? '', /"reason":"expired"/);
    });

    test('keys are stored only as hashes and never listed', async () => {
      const { key } = await t.admin.createCredential({ name: 'hashed', scopes: ['tasks:read'] });
      assert.ok(key);
      const rows = await t.server.database.kysely.selectFrom('credentials').selectAll().execute();
      const stored = JSON.stringify(
        rows.map((r) => ({ ...r, secret_hash: Buffer.from(r.secret_hash).toString('hex') })),
        (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v),
      );
      assert.equal(secretOf(key).length, 43);
      assert.ok(!stored.includes(secretOf(key)));
      const listed = JSON.stringify(await t.admin.listCredentials());
      assert.ok(!listed.includes(secretOf(key)));
    });

    test('the logs contain no key and no payload text', async () => {
      const marker = 'PAYLOAD-MARKER-7c1f';
      const { key } = await t.admin.createCredential({ name: marker, scopes: ['admin'] });
      assert.ok(key);
      const client: WeaveClient = t.clientFor('ns', key);
      await client.createQueue({ name: 'logged', application: 'app' });
      await expectCode(
        client.request('POST', '/queues', { body: { name: marker } }),
        'invalid_argument',
        400,
      );
      await expectCode(t.clientFor('ns', `${key}x`).listQueues(), 'unauthenticated', 401);
      const logs = t.logs.join('');
      assert.ok(logs.length > 0, 'the server logged nothing');
      assert.ok(logs.includes('"reqId"'), 'requests are logged');
      assert.equal(secretOf(key).length, 43);
      assert.ok(!logs.includes(secretOf(key)), 'a key reached the logs');
      assert.ok(!logs.includes(secretOf(t.adminKey)), 'the admin key reached the logs');
      assert.ok(!logs.includes(marker), 'payload text reached the logs');
    });
  });
});
