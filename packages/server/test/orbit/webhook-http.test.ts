/**
 * The webhook routes (API.md "Orbit"): rotate-secret (two signatures during the grace period,
 * the new one first; shown once, not on replay), resume and deliveries, their scopes, audit
 * rows, and a clear error for every bad input; and a target outside the allow-list is refused
 * and shown as a failed delivery.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { WeaveClient } from '@weave/sdk';
import { verifyWebhookSignature } from '@weave/sdk';
import { forEachDialect } from '../support/databases.js';
import type { TestServer } from '../support/servers.js';
import { waitFor } from '../support/wait-for.js';
import { startReceiver } from './webhook-receiver.js';
import type { Receiver } from './webhook-receiver.js';
import {
  completeTasks,
  createWebhook,
  getWebhook,
  listAllDeliveries,
  startWebhookServer,
} from './webhook-support.js';

forEachDialect((dialect) => {
  describe(`Webhook routes on ${dialect}`, () => {
    let t: TestServer;
    let receiver: Receiver;
    let reader: WeaveClient;
    let events = 0;

    async function oneMoreEvent(id: string) {
      const before = receiver.requests.length;
      await completeTasks(t, 1, `e${++events}`);
      await waitFor(
        async () => (await getWebhook(t, id)).acked_seq === String(events) || undefined,
        {
          what: `event ${events} delivered`,
        },
      );
      return receiver.requests.slice(before).filter((r) => r.subscriptionId === id);
    }

    before(async () => {
      t = await startWebhookServer(dialect, { backoffBaseMs: 20, backoffMaxMs: 100 }, [
        '127.0.0.1/32',
      ]);
      receiver = await startReceiver(() => 200);
      reader = t.clientFor('ns', await t.keyWith('ns', ['results:read']));
    });
    after(async () => {
      await receiver.close();
      await t.close();
    });

    test('rotate-secret: the new secret signs first, the old one second until the grace ends', async () => {
      const { id, secret: old } = await createWebhook(t, 'rotating', receiver.url);
      const [plain] = await oneMoreEvent(id);
      assert.equal(plain?.signature?.split(',').length, 1);

      const rotated = await t.admin.requestRaw('POST', `/subscriptions/${id}/rotate-secret`, {
        body: { grace_period: 'PT1H' },
        idempotencyKey: 'rotate-1',
      });
      assert.equal(rotated.status, 200);
      const body = rotated.body as {
        secret: string;
        subscription: { webhook: { previous_secret_valid_until: string | null } };
      };
      assert.match(body.secret, /^whsec_/);
      assert.notEqual(body.secret, old);
      assert.ok(body.subscription.webhook.previous_secret_valid_until !== null);
      // A replay must not show the secret again.
      const replay = await t.admin.requestRaw('POST', `/subscriptions/${id}/rotate-secret`, {
        body: { grace_period: 'PT1H' },
        idempotencyKey: 'rotate-1',
      });
      assert.equal(replay.headers.get('idempotent-replayed'), 'true');
      assert.equal((replay.body as { secret?: string }).secret, undefined);

      const [during] = await oneMoreEvent(id);
      assert.ok(during !== undefined);
      const parts = during.signature?.split(',') ?? [];
      assert.equal(parts.length, 2);
      for (const [i, secret] of [body.secret, old].entries()) {
        await verifyWebhookSignature({
          secret,
          timestamp: during.timestamp,
          signature: parts[i],
          body: during.body,
        });
      }

      await t.admin.request('POST', `/subscriptions/${id}/rotate-secret`, {
        body: { grace_period: 'PT0S' },
      });
      const [afterGrace] = await oneMoreEvent(id);
      assert.equal(afterGrace?.signature?.split(',').length, 1);
      await assert.rejects(
        verifyWebhookSignature({
          secret: body.secret,
          timestamp: afterGrace?.timestamp,
          signature: afterGrace?.signature,
          body: afterGrace?.body ?? '',
        }),
        { code: 'no_matching_signature' },
      );
      const audit = await t.server.database.kysely
        .selectFrom('audit_log')
        .select('action')
        .where('action', '=', 'subscription.rotate_secret')
        .where('object_id', '=', id)
        .execute();
      assert.equal(audit.length, 2);
    });

    test('a target outside the allow-list is refused and shown as a failed delivery', async () => {
      const port = new URL(receiver.url).port;
      const { id } = await createWebhook(t, 'refused', `http://127.0.0.2:${port}/hook`);
      await completeTasks(t, 1, `e${++events}`);
      const [failed] = await waitFor(async () => {
        const list = await listAllDeliveries(t, id);
        return list.length > 0 ? list : undefined;
      });
      assert.equal(failed?.outcome, 'FAILED');
      assert.equal(failed?.http_status, null);
      assert.match(failed?.error ?? '', /target refused: 127\.0\.0\.2 is a loopback address/);
      assert.equal(receiver.requests.filter((r) => r.subscriptionId === id).length, 0);
      const view = await getWebhook(t, id);
      assert.match(view.webhook.last_error ?? '', /allow-list/);
      await t.admin.request('DELETE', `/subscriptions/${id}`);
    });

    test('deliveries are paged newest first and readable with results:read', async () => {
      const { id } = await createWebhook(t, 'paged', receiver.url);
      await waitFor(
        async () => (await getWebhook(t, id)).acked_seq === String(events) || undefined,
      );
      await oneMoreEvent(id);
      const first = await reader.request<{ items: { id: string }[]; next_page_token?: string }>(
        'GET',
        `/subscriptions/${id}/deliveries`,
        { query: { page_size: 1 } },
      );
      assert.equal(first.items.length, 1);
      assert.ok(first.next_page_token !== undefined);
      const second = await reader.request<{ items: { id: string }[]; next_page_token?: string }>(
        'GET',
        `/subscriptions/${id}/deliveries`,
        { query: { page_size: 1, page_token: first.next_page_token } },
      );
      assert.ok(Number(second.items[0]?.id) < Number(first.items[0]?.id));
      const all = await listAllDeliveries(t, id);
      assert.deepEqual(
        all.map((d) => d.id),
        [...first.items, ...second.items].map((d) => d.id).concat(all.slice(2).map((d) => d.id)),
      );
    });

    test('resume clears a backing-off subscription and writes an audit row', async () => {
      const { id } = await createWebhook(t, 'resumed', receiver.url);
      const result = await t.admin.request<{ subscription: { state: string; id: string } }>(
        'POST',
        `/subscriptions/${id}/resume`,
        { body: {} },
      );
      assert.deepEqual([result.subscription.id, result.subscription.state], [id, 'ACTIVE']);
      const audit = await t.server.database.kysely
        .selectFrom('audit_log')
        .select('action')
        .where('action', '=', 'subscription.resume')
        .where('object_id', '=', id)
        .execute();
      assert.equal(audit.length, 1);
    });

    test('bad input and missing rights get clear errors', async () => {
      const { id } = await createWebhook(t, 'errors', receiver.url);
      const pull = await t.admin.request<{ subscription: { id: string } }>(
        'POST',
        '/streams/app/subscriptions',
        { body: { name: 'pull-only' } },
      );
      const pullId = pull.subscription.id;
      const post = (path: string, body?: unknown, client: WeaveClient = t.admin) =>
        client.request('POST', path, body === undefined ? {} : { body: body as never });
      await assert.rejects(post(`/subscriptions/${pullId}/resume`), {
        code: 'invalid_state',
        status: 409,
      });
      await assert.rejects(post(`/subscriptions/${pullId}/rotate-secret`), {
        code: 'invalid_state',
      });
      await assert.rejects(post(`/subscriptions/${id}/resume`, undefined, reader), {
        code: 'permission_denied',
        status: 403,
      });
      await assert.rejects(post(`/subscriptions/${id}/rotate-secret`, undefined, reader), {
        code: 'permission_denied',
      });
      await assert.rejects(post(`/subscriptions/${id}/rotate-secret`, { grace_period: 'soon' }), {
        code: 'invalid_argument',
        details: { path: '$.grace_period' },
      });
      await assert.rejects(post(`/subscriptions/${id}/rotate-secret`, { grace_period: 'P31D' }), {
        code: 'invalid_argument',
        details: { path: '$.grace_period' },
      });
      await assert.rejects(post(`/subscriptions/${id}/rotate-secret`, { grace: 'PT1H' }), {
        code: 'invalid_argument',
        details: { path: '$.grace' },
      });
      await assert.rejects(post(`/subscriptions/${id}/resume`, { now: true }), {
        code: 'invalid_argument',
        details: { path: '$.now' },
      });
      await assert.rejects(post(`/subscriptions/${id}/resume`, [1]), {
        code: 'invalid_argument',
        details: { path: '$' },
      });
      for (const missing of ['999999', 'abc']) {
        await assert.rejects(post(`/subscriptions/${missing}/resume`), { code: 'not_found' });
        await assert.rejects(reader.request('GET', `/subscriptions/${missing}/deliveries`), {
          code: 'not_found',
        });
      }
      const list = (query: Record<string, string>) =>
        reader.request('GET', `/subscriptions/${id}/deliveries`, { query });
      await assert.rejects(list({ page_size: '0' }), {
        code: 'invalid_argument',
        details: { path: '$.page_size' },
      });
      await assert.rejects(list({ page_token: 'not-a-token' }), {
        code: 'invalid_argument',
        details: { path: '$.page_token' },
      });
    });
  });
});
