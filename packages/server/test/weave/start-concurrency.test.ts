/**
 * Concurrent identical Starts (issue 11; seed 002 §1 step 2, A1.2): one Idempotency-Key, one
 * instance, however many requests race. On MariaDB the 50 requests are spread over two server
 * nodes on one database; SQLite is single-node (its synchronous driver cannot wait on a lock held
 * in the same process, and the server does not support two processes on one file), so there the
 * 50 requests race on the one node.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { WeaveClient } from '@weave/sdk';
import type { Server } from '../../src/server.js';
import { forEachDialect } from '../support/databases.js';
import { startServer, startTestServer } from '../support/servers.js';
import type { TestServer } from '../support/servers.js';

const CHARGE = {
  schema_version: 1,
  name: 'charge',
  steps: [{ id: 'charge', kind: 'TASK', queue: 'q1', input: { amount: '$.input.amount' } }],
};

const REQUESTS = 50;

forEachDialect((dialect) => {
  describe(`concurrent Starts on ${dialect}`, () => {
    let t: TestServer;
    let second: Server | undefined;
    let clients: WeaveClient[];

    before(async () => {
      t = await startTestServer(dialect, { sweepIntervalMs: false, scheduleIntervalMs: false });
      if (dialect === 'mysql') {
        second = await startServer({
          db: t.db.url,
          port: 0,
          logLevel: false,
          sweepIntervalMs: false,
          scheduleIntervalMs: false,
          retentionIntervalMs: false,
          webhookIntervalMs: false,
        });
      }
      clients = [
        t.admin,
        ...(second === undefined
          ? []
          : [new WeaveClient({ url: second.url, namespace: 'ns', apiKey: t.adminKey })]),
      ];
      await t.admin.workflows.publish(CHARGE);
    });
    after(async () => {
      await second?.stop();
      await t.close();
    });

    test(`[A1.2] ${REQUESTS} identical Starts with one key${dialect === 'mysql' ? ' over two nodes' : ''} admit one instance; another body is 409`, async () => {
      const body = { input: { amount: 7 }, business_key: 'order-7' };
      const answers = await Promise.all(
        Array.from({ length: REQUESTS }, (_, i) =>
          (clients[i % clients.length] ?? t.admin).requestRaw(
            'POST',
            '/workflows/charge/instances',
            {
              body,
              idempotencyKey: 'race-7',
            },
          ),
        ),
      );
      assert.ok(answers.every((a) => a.status === 201));
      const ids = new Set(answers.map((a) => (a.body as { instance: { id: string } }).instance.id));
      assert.equal(ids.size, 1);
      const fresh = answers.filter((a) => a.headers.get('idempotent-replayed') !== 'true');
      assert.equal(fresh.length, 1, 'exactly one request admitted the instance');
      const [first] = fresh;
      for (const answer of answers) {
        assert.deepEqual(answer.body, first?.body, 'every answer is the frozen receipt');
      }
      const db = t.server.database.kysely;
      const instances = await db.selectFrom('weave_instances').select('id').execute();
      assert.deepEqual(
        instances.map((i) => String(i.id)),
        [...ids],
      );
      const tasks = await db.selectFrom('tasks').select('id').execute();
      assert.equal(tasks.length, 1, 'one first batch');
      const receipts = await db
        .selectFrom('receipts')
        .select('idempotency_key')
        .where('operation', '=', 'workflow.start')
        .execute();
      assert.deepEqual(receipts, [{ idempotency_key: 'race-7' }]);
      for (const c of clients) {
        await assert.rejects(
          c.instances.start('charge', { input: { amount: 8 }, business_key: 'order-7' }, 'race-7'),
          { code: 'idempotency_conflict', status: 409 },
        );
      }
      assert.equal((await db.selectFrom('weave_instances').select('id').execute()).length, 1);
    });
  });
});
