/**
 * Webhook test fixture: a real server (loopback explicitly allow-listed, short backoff), tasks
 * completed through the worker protocol so that their results are appended in the result
 * transaction, and readers for the subscription and the stream.
 */
import assert from 'node:assert/strict';
import type { WebhookDeliverySettings } from '../../src/orbit/webhook-settings.js';
import type { DialectName } from '../../src/store/dialect.js';
import { startTestServer } from '../support/servers.js';
import type { TestServer } from '../support/servers.js';

export async function startWebhookServer(
  dialect: DialectName,
  settings: Partial<Omit<WebhookDeliverySettings, 'policy'>>,
  allow: readonly string[] = ['127.0.0.1'],
): Promise<TestServer> {
  return startTestServer(dialect, {
    sweepIntervalMs: false,
    scheduleIntervalMs: false,
    retentionIntervalMs: false,
    webhookIntervalMs: 50,
    webhookAllow: allow,
    webhookSettings: { timeoutMs: 2000, leaseMs: 10_000, ...settings },
  });
}

export interface WebhookView {
  readonly id: string;
  readonly acked_seq: string;
  readonly state: string;
  readonly webhook: {
    readonly url: string;
    readonly state: string;
    readonly consecutive_failures: number;
    readonly last_error: string | null;
  };
}

export interface DeliveryView {
  readonly id: string;
  readonly first_seq: string;
  readonly last_seq: string;
  readonly outcome: 'DELIVERED' | 'FAILED';
  readonly http_status: number | null;
  readonly error: string | null;
}

export async function createWebhook(
  t: TestServer,
  name: string,
  url: string,
): Promise<{ id: string; secret: string }> {
  const created = await t.admin.request<{ subscription: { id: string }; secret: string }>(
    'POST',
    '/streams/app/subscriptions',
    { body: { name, start: 'earliest', webhook: { url } } },
  );
  assert.match(created.secret, /^whsec_/);
  return { id: created.subscription.id, secret: created.secret };
}

export async function getWebhook(t: TestServer, id: string): Promise<WebhookView> {
  return (await t.admin.request<{ subscription: WebhookView }>('GET', `/subscriptions/${id}`))
    .subscription;
}

/** Every delivery attempt, newest first. */
export async function listAllDeliveries(t: TestServer, id: string): Promise<DeliveryView[]> {
  const items: DeliveryView[] = [];
  let token: string | undefined;
  do {
    const page = await t.admin.request<{ items: DeliveryView[]; next_page_token?: string }>(
      'GET',
      `/subscriptions/${id}/deliveries`,
      { query: { page_size: 500, page_token: token } },
    );
    items.push(...page.items);
    token = page.next_page_token;
  } while (token !== undefined);
  return items;
}

/** Submits, claims and completes `count` tasks on q1, one result transaction each. */
export async function completeTasks(t: TestServer, count: number, tag: string): Promise<void> {
  for (let i = 0; i < count; i++) {
    await t.admin.submitTask('q1', { input: { tag, i } });
  }
  let left = count;
  while (left > 0) {
    const { tasks } = await t.admin.claimTasks('q1', { worker_id: `w-${tag}`, max_tasks: left });
    for (const [i, claimed] of tasks.entries()) {
      await t.admin.completeAttempt(
        claimed.task_id,
        claimed.attempt_id,
        claimed.permit,
        i % 4 === 3
          ? { outcome: 'failed', error: { code: 'declined', message: 'no', retryable: false } }
          : { outcome: 'succeeded', result: { tag, n: i } },
      );
    }
    left -= tasks.length;
  }
}

/** The stream's events exactly as `GET /streams/app/events` returns them (parsed). */
export async function streamEvents(t: TestServer): Promise<Record<string, unknown>[]> {
  const response = await fetch(
    `${t.server.url}/v1/namespaces/ns/streams/app/events?after=0&limit=1000`,
    { headers: { authorization: `Bearer ${t.adminKey}` } },
  );
  assert.equal(response.status, 200);
  return (JSON.parse(await response.text()) as { events: Record<string, unknown>[] }).events;
}
