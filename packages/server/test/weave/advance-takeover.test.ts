/**
 * The acceptance line of issue 11 (runtime.md §4.1): "A PARALLEL of 40 TASKs is admitted
 * through pending advances; a node killed between rounds is taken over by the other node; no
 * task is created twice" — with real `weave server` processes on one MariaDB (several nodes need
 * a shared database: MariaDB only, like crash.test.ts; with CI=true a missing MariaDB fails the
 * run in databases.ts instead of skipping).
 *
 * The race is forced, not slept on. A Start does not wake its node's consumer (the pending
 * advance waits for the consumer's next 250 ms scan), so a kill right after the Start answered
 * could still lose to that scan. Instead node A's consumer is parked first: it is consuming
 * another instance (X) whose step rows this test holds locked, and the consumer runs one
 * transaction at a time. X's result commits although the rows are locked — the producer's
 * association check only reads (E1.9). With A parked (seen in the process list), the 40-TASK
 * instance is started on A: its Start writes 30 tasks and the pending advance, and nothing on A
 * can continue it. A is SIGKILLed, the lock released, and node B, started on the same database,
 * must take the advance over and admit the other 10; a worker then runs all 40 through B.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Connection } from 'mysql2/promise';
import { WeaveClient } from '@weave/sdk';
import { DIALECTS, createEmptyDatabase } from '../support/databases.js';
import type { Running } from '../support/processes.js';
import {
  bootstrapNamespace,
  connectMysql,
  rows,
  startServerNode,
} from '../support/server-nodes.js';
import { waitFor } from '../support/wait-for.js';
import { startWorker } from '../support/workers.js';

const NAMESPACE = 'takeover';
const FAN = 40;

function fanOut(n: number) {
  const branches: Record<string, unknown[]> = {};
  for (let i = 0; i < n; i++) {
    branches[`b${i}`] = [{ id: `t${i}`, kind: 'TASK', queue: 'fan', input: { op: `t${i}` } }];
  }
  return { schema_version: 1, name: 'forty', steps: [{ id: 'fan', kind: 'PARALLEL', branches }] };
}

const HOLD = {
  schema_version: 1,
  name: 'hold',
  steps: [{ id: 'held', kind: 'TASK', queue: 'hold', input: { op: 'held' } }],
};

const skip = DIALECTS.includes('mysql')
  ? false
  : 'the takeover test runs only on MariaDB (two server nodes share one database); none reachable';

test(
  '[A3.2] [E4.3] [A5.1] a PARALLEL of 40 TASKs is admitted through its pending advance; the node killed between the rounds is taken over by the other node; no task is created twice',
  { skip, timeout: 120_000 },
  async () => {
    const db = await createEmptyDatabase('mysql');
    const nodes: Running[] = [];
    let sql: Connection | undefined;
    let holder: Connection | undefined;
    try {
      const key = await bootstrapNamespace(db.url, NAMESPACE, ['fan', 'hold']);
      sql = await connectMysql(db.url);
      holder = await connectMysql(db.url);
      const clientOf = (url: string) => new WeaveClient({ url, namespace: NAMESPACE, apiKey: key });

      const a = await startServerNode(db.url);
      nodes.push(a.node);
      const onA = clientOf(a.url);
      await onA.workflows.publish(fanOut(FAN));
      await onA.workflows.publish(HOLD);

      // 1. Park node A's consumer on X: it waits for X's step rows, which `holder` has locked.
      const { instance: x } = await onA.instances.start('hold', { input: {} });
      const stepIds = (
        await rows(sql, 'SELECT id FROM weave_steps WHERE instance_id = ?', [x.id])
      ).map((r) => String(r.id));
      await holder.query('SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED');
      await holder.query('BEGIN');
      await holder.query('SELECT id FROM weave_steps WHERE id IN (?) FOR UPDATE', [stepIds]);
      const { tasks: held } = await onA.claimTasks('hold', { worker_id: 'w', max_tasks: 1 });
      const [heldTask] = held;
      assert.ok(heldTask);
      await onA.completeAttempt(heldTask.task_id, heldTask.attempt_id, heldTask.permit, {
        outcome: 'succeeded',
        result: { held: true },
      });
      // Parked: A's connection has been running the UPDATE of X's step rows for over half a
      // second (by primary key it takes microseconds unless it waits for this test's lock), and
      // X's result is still pending. PROCESSLIST is live; InnoDB's lock tables are a cache that
      // concurrent readers keep stale.
      await waitFor(
        async () =>
          (
            await rows(
              sql as Connection,
              `SELECT ID FROM information_schema.PROCESSLIST
                WHERE DB = DATABASE() AND COMMAND = 'Query' AND TIME_MS > 500
                  AND INFO LIKE 'update \`weave_steps\`%'`,
            )
          ).length === 1,
        { timeoutMs: 10_000, intervalMs: 100, what: "node A's consumer waiting for X's step rows" },
      );
      assert.deepEqual(
        (await rows(sql, 'SELECT state FROM weave_inbox')).map((r) => String(r.state)),
        ['PENDING'],
      );

      // 2. The 40-TASK instance on node A: the Start commits round 1 and the pending advance.
      const { instance: y } = await onA.instances.start('forty', { input: {} });
      assert.equal(y.status, 'RUNNING');
      assert.equal(y.revision, '2');
      const admitted = async () => ({
        tasks: Number(
          (
            await rows(
              sql as Connection,
              `SELECT COUNT(*) AS n FROM tasks k JOIN weave_activations a
                 ON a.id = k.owner_id AND k.owner_kind = 'workflow_activation'
               WHERE a.instance_id = ?`,
              [y.id],
            )
          )[0]?.n,
        ),
        pending: Number(
          (
            await rows(
              sql as Connection,
              'SELECT COUNT(*) AS n FROM weave_pending_advances WHERE instance_id = ?',
              [y.id],
            )
          )[0]?.n,
        ),
      });
      assert.deepEqual(await admitted(), { tasks: 30, pending: 1 }, 'round 1 and its checkpoint');

      // 3. Node A dies between the rounds; then the lock goes, and A's transaction with it.
      assert.equal(await a.node.stop('SIGKILL'), null);
      await holder.query('ROLLBACK');
      assert.deepEqual(await admitted(), { tasks: 30, pending: 1 }, 'A never continued it');

      // 4. Node B takes the pending advance over: the other 10 tasks, the checkpoint gone.
      const b = await startServerNode(db.url);
      nodes.push(b.node);
      await waitFor(async () => (await admitted()).pending === 0 || undefined, {
        timeoutMs: 10_000,
        what: 'node B to continue the pending advance',
      });
      assert.deepEqual(await admitted(), { tasks: FAN, pending: 0 });

      // 5. A worker runs every task through node B; both instances end.
      const onB = clientOf(b.url);
      const ran: string[] = [];
      const worker = startWorker({
        client: onB,
        concurrency: 8,
        waitMs: 1_000,
        handlers: {
          fan: (input) => {
            const op =
              typeof input === 'object' && input !== null
                ? String((input as { op?: unknown }).op)
                : '';
            ran.push(op);
            return Promise.resolve({ op });
          },
        },
      });
      try {
        for (const id of [y.id, x.id]) {
          await waitFor(
            async () => (await onB.instances.get(id)).instance.status === 'SUCCEEDED' || undefined,
            { timeoutMs: 30_000, what: `instance ${id} SUCCEEDED` },
          );
        }
      } finally {
        await worker.stop();
      }

      // No task twice: one activation per step, one task per TASK activation, one attempt each.
      const activations = await rows(
        sql,
        'SELECT step_id, COUNT(*) AS n, MAX(number) AS top FROM weave_activations WHERE instance_id = ? GROUP BY step_id',
        [y.id],
      );
      assert.equal(activations.length, FAN + 2, '$root, fan and 40 TASK steps');
      assert.ok(activations.every((r) => Number(r.n) === 1 && Number(r.top) === 1));
      const tasks = await rows(
        sql,
        `SELECT k.id, k.status, a.step_id, a.task_id,
                (SELECT COUNT(*) FROM task_attempts t WHERE t.task_id = k.id) AS attempts
           FROM tasks k JOIN weave_activations a ON a.id = k.owner_id
          WHERE k.owner_kind = 'workflow_activation' AND a.instance_id = ?`,
        [y.id],
      );
      assert.equal(tasks.length, FAN);
      assert.equal(new Set(tasks.map((r) => String(r.step_id))).size, FAN);
      assert.ok(
        tasks.every((r) => String(r.task_id) === String(r.id)),
        'activation.task_id is its task',
      );
      assert.ok(tasks.every((r) => r.status === 'SUCCEEDED' && Number(r.attempts) === 1));
      assert.equal(ran.length, FAN, 'every task ran once');
      assert.equal(new Set(ran).size, FAN);
      const activated = await rows(
        sql,
        `SELECT instance_revision, COUNT(*) AS n FROM weave_history
          WHERE instance_id = ? AND type = 'step.activated' AND step_id LIKE 't%'
          GROUP BY instance_revision ORDER BY instance_revision`,
        [y.id],
      );
      assert.deepEqual(
        activated.map((r) => [String(r.instance_revision), Number(r.n)]),
        [
          ['2', 30],
          ['3', 10],
        ],
        'the Start activated 30 TASKs, the taken-over round the other 10',
      );
      const { instance: done } = await onB.instances.get(y.id);
      assert.deepEqual(
        done.output,
        Object.fromEntries(Array.from({ length: FAN }, (_, i) => [`b${i}`, { op: `t${i}` }])),
      );
      assert.equal(await b.node.stop('SIGTERM'), 0, 'node B stops cleanly');
    } finally {
      for (const node of nodes) {
        node.child.kill('SIGKILL');
      }
      await holder?.end();
      await sql?.end();
      await db.drop();
    }
  },
);
