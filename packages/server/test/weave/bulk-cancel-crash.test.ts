/**
 * The acceptance line of issue 12 Deliver 5 (docs/design/bulk-operations.md "Failure cases"): "A
 * bulk cancel of 2,000 instances survives a server SIGKILL halfway and ends with every one
 * CANCELLED exactly once" — with real `weave server` processes on one MariaDB (two nodes over a
 * shared database: MariaDB only, like advance-takeover.test.ts; with CI=true a missing MariaDB
 * fails the run in databases.ts instead of skipping).
 *
 * 2,000 instances wait on a SIGNAL; a bulk cancel is created on node A, whose runner is the only
 * one; once the operation's progress (read over HTTP) passes 1,000 the node is SIGKILLed. At
 * that moment the items and the counters must agree (they commit with each instance's control).
 * Node B, started on the same database, claims the operation when A's lease runs out (a new
 * generation) and finishes the walk. Then: every instance CANCELLED, exactly one item row and
 * one `instance.cancel_requested` history entry per instance, the operation SUCCEEDED with
 * done = 2,000.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Connection, RowDataPacket } from 'mysql2/promise';
import { WeaveClient } from '@weave/sdk';
import { DIALECTS, createEmptyDatabase } from '../support/databases.js';
import type { Running } from '../support/processes.js';
import { bootstrapNamespace, connectMysql, startServerNode } from '../support/server-nodes.js';
import { waitFor } from '../support/wait-for.js';

const NAMESPACE = 'bulk';
const COUNT = 2_000;
/** Starts in flight at once (the machine is shared: modest). */
const STARTS_IN_FLIGHT = 12;

const WAITING = {
  schema_version: 1,
  name: 'waiting',
  steps: [{ id: 'approval', kind: 'SIGNAL', name: 'approve', correlation: 'c' }],
};

const skip = DIALECTS.includes('mysql')
  ? false
  : 'the bulk crash test runs only on MariaDB (two server nodes share one database); none reachable';

async function count(sql: Connection, text: string, params: unknown[] = []): Promise<number> {
  const [rows] = await sql.query<RowDataPacket[]>(text, params);
  return Number(rows[0]?.n);
}

test(
  '[E4.7] a bulk cancel of 2,000 instances survives a SIGKILL of its node halfway: another node takes it over and every instance is CANCELLED exactly once',
  { skip, timeout: 240_000 },
  async () => {
    const db = await createEmptyDatabase('mysql');
    const nodes: Running[] = [];
    let sql: Connection | undefined;
    try {
      const key = await bootstrapNamespace(db.url, NAMESPACE, ['bulk']);
      sql = await connectMysql(db.url);
      const clientOf = (url: string) => new WeaveClient({ url, namespace: NAMESPACE, apiKey: key });

      const a = await startServerNode(db.url);
      nodes.push(a.node);
      const onA = clientOf(a.url);
      await onA.workflows.publish(WAITING);
      const started = Date.now();
      let next = 0;
      await Promise.all(
        Array.from({ length: STARTS_IN_FLIGHT }, async () => {
          while (next < COUNT) {
            next++;
            await onA.instances.start('waiting', { input: {}, application: 'app' });
          }
        }),
      );
      const waiting = await count(
        sql,
        "SELECT COUNT(*) AS n FROM weave_instances WHERE status = 'WAITING'",
      );
      assert.equal(waiting, COUNT);
      console.log(`started ${waiting} WAITING instances in ${Date.now() - started} ms`);

      // 1. The bulk cancel on node A; SIGKILL once its progress passes half.
      const { operation } = await onA.operations.create(
        { action: 'cancel', filter: { workflow: 'waiting' }, reason: 'crash test' },
        'cancel-all',
      );
      const cancelStarted = Date.now();
      const atKill = await waitFor(
        async () => {
          const { operation: now } = await onA.operations.get(operation.id);
          return now.done >= COUNT / 2 ? now : undefined;
        },
        { timeoutMs: 120_000, intervalMs: 50, what: 'the bulk cancel half done' },
      );
      assert.equal(await a.node.stop('SIGKILL'), null);
      const killed = {
        done: await count(sql, 'SELECT done_count AS n FROM weave_instance_operations'),
        items: await count(sql, 'SELECT COUNT(*) AS n FROM weave_instance_operation_items'),
        cancelled: await count(
          sql,
          "SELECT COUNT(*) AS n FROM weave_instances WHERE status = 'CANCELLED'",
        ),
      };
      console.log(
        `node A killed after ${Date.now() - cancelStarted} ms: progress read ${atKill.done}, ` +
          `done ${killed.done}, items ${killed.items}, CANCELLED ${killed.cancelled}`,
      );
      assert.ok(killed.done < COUNT, 'killed before the end');
      assert.equal(killed.items, killed.done, 'the counters commit with the items');
      assert.equal(killed.cancelled, killed.items, 'each item commits with its cancel');

      // 2. Node B takes the operation over after A's lease and finishes it.
      const b = await startServerNode(db.url);
      nodes.push(b.node);
      const onB = clientOf(b.url);
      const finished = await onB.operations.wait(operation.id, { timeoutMs: 150_000 });
      console.log(`operation ${finished.status} ${Date.now() - cancelStarted} ms after creation`);
      assert.equal(finished.status, 'SUCCEEDED');
      assert.deepEqual(
        {
          matched: finished.matched,
          done: finished.done,
          failed: finished.failed,
          skipped: finished.skipped,
        },
        { matched: COUNT, done: COUNT, failed: 0, skipped: 0 },
      );
      // The retried Create with the same key is the same operation.
      const replay = await onB.operations.create(
        { action: 'cancel', filter: { workflow: 'waiting' }, reason: 'crash test' },
        'cancel-all',
      );
      assert.equal(replay.operation.id, operation.id);

      const final = {
        cancelled: await count(
          sql,
          "SELECT COUNT(*) AS n FROM weave_instances WHERE status = 'CANCELLED'",
        ),
        items: await count(sql, 'SELECT COUNT(*) AS n FROM weave_instance_operation_items'),
        itemInstances: await count(
          sql,
          'SELECT COUNT(DISTINCT instance_id) AS n FROM weave_instance_operation_items',
        ),
        changed: await count(
          sql,
          "SELECT COUNT(*) AS n FROM weave_instance_operation_items WHERE outcome = 'CHANGED'",
        ),
        requested: await count(
          sql,
          "SELECT COUNT(*) AS n FROM weave_history WHERE type = 'instance.cancel_requested'",
        ),
        requestedTwice: await count(
          sql,
          `SELECT COUNT(*) AS n FROM (SELECT instance_id FROM weave_history
             WHERE type = 'instance.cancel_requested' GROUP BY instance_id HAVING COUNT(*) <> 1) x`,
        ),
        generation: await count(sql, 'SELECT generation AS n FROM weave_instance_operations'),
      };
      console.log(`after the takeover: ${JSON.stringify(final)}`);
      assert.deepEqual(final, {
        cancelled: COUNT,
        items: COUNT,
        itemInstances: COUNT,
        changed: COUNT,
        requested: COUNT,
        requestedTwice: 0,
        generation: 2,
      });
      assert.equal(await b.node.stop('SIGTERM'), 0, 'node B stops cleanly');
    } finally {
      for (const node of nodes) {
        node.child.kill('SIGKILL');
      }
      await sql?.end();
      await db.drop();
    }
  },
);
