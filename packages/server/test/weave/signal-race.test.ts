/**
 * The race line of issue 12 (E4.5, docs/design/signals.md §3): "100 POLL instances whose final
 * signal and final query result are sent at the same moment from different processes → exactly
 * one winner each, the loser recorded as late, on MariaDB with 2 server nodes". Two real
 * `weave server` processes share one MariaDB (MariaDB only, like advance-takeover.test.ts): every
 * query task is claimed and started first (RUNNING, so a winning signal can only ask it to stop),
 * then two sender processes of their own, released together, send each instance's query result
 * to node A and its final signal to node B — each decided by another server process, both
 * consumers running. No sleeps: real
 * concurrency, then the invariants.
 *
 * Per instance: the POLL SUCCEEDED once, `completed_by` QUERY or FINAL_SIGNAL with that side's
 * output; the other side is in the history as `result.late` or `signal.late` and was never
 * applied; and the winner's reliable admission time is not after the loser's.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Connection, RowDataPacket } from 'mysql2/promise';
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

const NAMESPACE = 'race';
const COUNT = 100;

const PARCEL = {
  schema_version: 1,
  name: 'parcel',
  input: { type: 'object', required: ['key'], properties: { key: { type: 'string' } } },
  steps: [
    {
      id: 'track',
      kind: 'POLL',
      queue: 'track',
      input: { op: 'poll', key: '$.input.key' },
      classify: { path: '$.status', pending: ['WAIT'], succeeded: ['DONE'], failed: ['LOST'] },
      interval: 'PT10S',
      max_rounds: 3,
      timeout: 'PT120S',
      final_signal: { name: 'delivered', correlation: '$.input.key' },
    },
  ],
};

const skip = DIALECTS.includes('mysql')
  ? false
  : 'the signal race runs only on MariaDB (two server nodes share one database); none reachable';

const SENDER_JS = fileURLToPath(new URL('./race-sender.js', import.meta.url));

/** A sender process (race-sender.ts), ready: `go()` releases it, `done` is its report. */
async function startSender(job: Record<string, unknown>) {
  const child = spawn(process.execPath, [SENDER_JS], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  child.stdin.write(`${JSON.stringify(job)}\n`);
  const ready = await lines.next();
  assert.equal(ready.value, 'ready', 'the sender started');
  return {
    go: () => child.stdin.write('go\n'),
    done: (async () => {
      const report = await lines.next();
      assert.equal(await exited, 0, 'the sender exited cleanly');
      return JSON.parse(String(report.value)) as { sent: number; errors: string[] };
    })(),
  };
}

test(
  '[E4.5] [A5.1] [A2.6] 100 POLLs whose final signal and final query result race from two nodes: exactly one winner each, the loser recorded as late',
  { skip, timeout: 180_000 },
  async () => {
    const db = await createEmptyDatabase('mysql');
    const nodes: Running[] = [];
    let sql: Connection | undefined;
    try {
      const key = await bootstrapNamespace(db.url, NAMESPACE, ['track']);
      sql = await connectMysql(db.url);
      const a = await startServerNode(db.url);
      nodes.push(a.node);
      const b = await startServerNode(db.url);
      nodes.push(b.node);
      const onA = new WeaveClient({ url: a.url, namespace: NAMESPACE, apiKey: key });
      await onA.workflows.publish(PARCEL);

      const keyOf = (i: number) => `parcel-${i}`;
      const instances = new Map<string, string>();
      for (let i = 0; i < COUNT; i++) {
        const { instance } = await onA.instances.start('parcel', { input: { key: keyOf(i) } });
        instances.set(keyOf(i), instance.id);
      }
      // Every round-1 query task claimed and started: RUNNING until its result is sent.
      const running = new Map<string, { task_id: string; attempt_id: string; permit: string }>();
      await waitFor(
        async () => {
          const { tasks } = await onA.claimTasks('track', { worker_id: 'w', max_tasks: 100 });
          for (const task of tasks) {
            await onA.startAttempt(task.task_id, task.attempt_id, task.permit);
            const input = task.input as { key?: unknown };
            running.set(String(input.key), task);
          }
          return running.size === COUNT || undefined;
        },
        { timeoutMs: 30_000, what: 'every query task claimed and started' },
      );

      // The race, from two processes of their own: every final query result to node A from one,
      // every final signal to node B from the other, released by one `go` at the same moment.
      const completer = await startSender({
        url: a.url,
        namespace: NAMESPACE,
        key,
        completions: [...running.values()],
      });
      const signaller = await startSender({
        url: b.url,
        namespace: NAMESPACE,
        key,
        signals: [...running.keys()],
      });
      completer.go();
      signaller.go();
      const [completed, signalled] = await Promise.all([completer.done, signaller.done]);
      assert.deepEqual(completed, { sent: COUNT, errors: [] }, 'every query result accepted');
      assert.deepEqual(signalled, { sent: COUNT, errors: [] }, 'every signal admitted');

      const ids = [...instances.values()];
      await waitFor(
        async () =>
          Number(
            (
              await rows(
                sql as Connection,
                `SELECT COUNT(*) AS n FROM weave_instances WHERE id IN (?) AND status = 'SUCCEEDED'`,
                [ids],
              )
            )[0]?.n,
          ) === COUNT || undefined,
        { timeoutMs: 60_000, what: 'every instance SUCCEEDED' },
      );
      await waitFor(
        async () =>
          Number(
            (
              await rows(
                sql as Connection,
                `SELECT COUNT(*) AS n FROM weave_inbox WHERE state = 'PENDING'`,
              )
            )[0]?.n,
          ) === 0 || undefined,
        { timeoutMs: 30_000, what: 'every inbox row consumed' },
      );

      const wins = { QUERY: 0, FINAL_SIGNAL: 0 };
      for (const [k, id] of instances) {
        const [step] = await rows(
          sql,
          `SELECT status, completed_by, output FROM weave_steps WHERE instance_id = ? AND step_id = 'track'`,
          [id],
        );
        assert.equal(step?.status, 'SUCCEEDED', k);
        const by = String(step?.completed_by) as keyof typeof wins;
        assert.ok(by === 'QUERY' || by === 'FINAL_SIGNAL', `${k}: ${by}`);
        wins[by] += 1;
        assert.equal(
          String(step?.output),
          by === 'QUERY' ? '{"status":"DONE","by":"query"}' : '{"status":"DONE","by":"signal"}',
          `${k}: the winner's output`,
        );
        const events: RowDataPacket[] = await rows(
          sql,
          'SELECT type, step_id FROM weave_history WHERE instance_id = ? ORDER BY seq',
          [id],
        );
        const history: string[] = events.map((r) => `${String(r.type)}:${String(r.step_id)}`);
        const count = (type: string): number =>
          events.filter((r) => String(r.type) === type).length;
        assert.equal(
          events.filter((r) => r.type === 'step.completed' && r.step_id === 'track').length,
          1,
          `${k}: the POLL completed once: ${history.join(' ')}`,
        );
        assert.equal(count('instance.succeeded'), 1, k);
        if (by === 'QUERY') {
          assert.equal(count('result.applied'), 1, `${k}: ${history.join(' ')}`);
          assert.equal(count('signal.late'), 1, `${k}: the signal is late: ${history.join(' ')}`);
          assert.equal(count('signal.applied'), 0, k);
        } else {
          assert.equal(count('signal.applied'), 1, `${k}: ${history.join(' ')}`);
          assert.equal(count('result.late'), 1, `${k}: the result is late: ${history.join(' ')}`);
          assert.equal(count('result.applied'), 0, k);
        }
        // The earlier reliable admission time won.
        const [signal] = await rows(
          sql,
          'SELECT admitted_at FROM weave_signals WHERE correlation_key = ?',
          [Buffer.from(k, 'utf8')],
        );
        const [result] = await rows(
          sql,
          `SELECT created_at FROM weave_inbox WHERE instance_id = ? AND type = 'task.succeeded'`,
          [id],
        );
        const signalAt = BigInt(String(signal?.admitted_at));
        const resultAt = BigInt(String(result?.created_at));
        assert.ok(
          by === 'QUERY' ? resultAt <= signalAt : signalAt <= resultAt,
          `${k}: ${by} won with signal at ${signalAt}, result at ${resultAt}`,
        );
      }
      assert.equal(wins.QUERY + wins.FINAL_SIGNAL, COUNT);
      process.stderr.write(`signal race: ${wins.QUERY} by query, ${wins.FINAL_SIGNAL} by signal\n`);
      assert.equal(await a.node.stop('SIGTERM'), 0);
      assert.equal(await b.node.stop('SIGTERM'), 0);
    } finally {
      for (const node of nodes) {
        node.child.kill('SIGKILL');
      }
      await sql?.end();
      await db.drop();
    }
  },
);
