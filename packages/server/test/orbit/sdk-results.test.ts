/**
 * The SDK's `ResultsClient` against a real server: reading a stream, and iterating a
 * subscription with auto-ack after the loop body returns (at least once: an event whose handler
 * threw is delivered again).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ResultsClient } from '@weave/sdk';
import type { ResultEvent } from '@weave/sdk';
import { forEachDialect } from '../support/databases.js';
import { startTestServer } from '../support/servers.js';
import type { TestServer } from '../support/servers.js';

forEachDialect((dialect) => {
  describe(`SDK results client on ${dialect}`, () => {
    let t: TestServer;
    let results: ResultsClient;
    const ids: string[] = [];

    before(async () => {
      t = await startTestServer(dialect, { sweepIntervalMs: false, scheduleIntervalMs: false });
      results = t.admin.results;
      for (let i = 0; i < 5; i++) {
        const { task } = await t.admin.submitTask('q1', { input: { i } });
        const { tasks } = await t.admin.claimTasks('q1', { worker_id: 'w', max_tasks: 1 });
        const c = tasks[0];
        assert.ok(c);
        await t.admin.completeAttempt(c.task_id, c.attempt_id, c.permit, {
          outcome: 'succeeded',
          result: { i, big: { kind: 'number', text: '1e400' } },
        });
        ids.push(task.id);
      }
    });
    after(() => t.close());

    test('readStream pages through a stream with exact numbers', async () => {
      const first = await results.readStream('app', { limit: 2 });
      assert.deepEqual(
        first.events.map((e) => e.task_id),
        ids.slice(0, 2),
      );
      const rest = await results.readStream('app', { after: first.next_after });
      assert.deepEqual(
        rest.events.map((e) => e.seq),
        ['3', '4', '5'],
      );
      const payload = rest.events[0]?.result as { big: { kind: string; text: string } };
      assert.deepEqual(payload.big, { kind: 'number', text: '1e400' });
    });

    test('subscribe acks what the loop handled; a throwing handler gets its event again', async () => {
      const { subscription } = await results.createSubscription('app', { name: 'sdk' });
      const seen: ResultEvent[] = [];
      await assert.rejects(
        (async () => {
          for await (const event of results.subscribe(subscription.id, { waitMs: 0 })) {
            if (event.seq === '3') {
              throw new Error('handler failed');
            }
            seen.push(event);
          }
        })(),
        /handler failed/,
      );
      assert.equal((await results.getSubscription(subscription.id)).subscription.acked_seq, '2');
      const controller = new AbortController();
      for await (const event of results.subscribe(subscription.id, {
        waitMs: 200,
        signal: controller.signal,
      })) {
        seen.push(event);
        if (event.seq === '5') {
          controller.abort();
        }
      }
      assert.deepEqual(
        seen.map((e) => e.seq),
        ['1', '2', '3', '4', '5'],
      );
      assert.equal((await results.getSubscription(subscription.id)).subscription.acked_seq, '5');
    });
  });
});
