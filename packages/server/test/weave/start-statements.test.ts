/**
 * E4.1 (seed 000 §4 item 1) from the statements the server ran, on SQLite and MariaDB: one Start
 * is one transaction — the credential read under a shared lock, the quota and every queue locked,
 * then instance, gate, steps, activations, tasks, waits, poll round, history, audit and receipt
 * written between its BEGIN and its COMMIT, nothing of it in any other transaction — and a Start
 * with the same identity writes nothing and answers the original instance.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { WeaveClient } from '@weave/sdk';
import { forEachDialect } from '../support/databases.js';
import { startTestServer } from '../support/servers.js';
import type { TestServer } from '../support/servers.js';
import { StatementLog, isLockingRead, tablesOf, touches, verbOf } from '../support/statements.js';
import type { Statement } from '../support/statements.js';

const GRAPH = {
  schema_version: 1,
  name: 'graph',
  timeout: 'PT1H',
  steps: [
    {
      id: 'all',
      kind: 'PARALLEL',
      branches: {
        work: [{ id: 'work', kind: 'TASK', queue: 'q1', input: { op: 'work' } }],
        nap: [{ id: 'nap', kind: 'TIMER', duration: 'PT5M' }],
        track: [
          {
            id: 'track',
            kind: 'POLL',
            queue: 'q1',
            input: { label: 'L1' },
            interval: 'PT5M',
            max_rounds: 3,
            timeout: 'PT1H',
            classify: { path: '$.status', pending: ['WAIT'], succeeded: ['DONE'] },
          },
        ],
      },
    },
  ],
};

/** The tables a Start writes (seed 002 §1 step 6). */
const WRITTEN = [
  'weave_instances',
  'weave_gates',
  'weave_steps',
  'weave_activations',
  'tasks',
  'task_events',
  'weave_waits',
  'weave_poll_rounds',
  'weave_history',
  'weave_instance_bounds',
  'audit_log',
  'receipts',
];

const isWrite = (s: Statement) => ['insert', 'update', 'delete'].includes(verbOf(s.sql));

forEachDialect((dialect) => {
  describe(`the Start transaction's statements on ${dialect}`, () => {
    let t: TestServer;
    let client: WeaveClient;
    const log = new StatementLog();

    before(async () => {
      t = await startTestServer(dialect, {
        onStatement: log.hook,
        // The bulk-operation runner's claim scan crosses namespaces by design (not this flow).
        operationIntervalMs: false,
        inboxIntervalMs: false,
        sweepIntervalMs: false,
        scheduleIntervalMs: false,
        retentionIntervalMs: false,
        webhookIntervalMs: false,
      });
      client = t.admin;
      await client.workflows.publish(GRAPH);
    });
    after(() => t.close());

    test('[E4.1] one Start is one transaction: rights and locks first, then the whole first graph, audit and receipt; the same identity writes nothing and answers the original instance', async () => {
      const mark = log.mark();
      const first = await client.requestRaw('POST', '/workflows/graph/instances', {
        body: { input: {} },
        idempotencyKey: 'e41',
      });
      assert.equal(first.status, 201);
      const writers = log.transactions(mark).filter((tx) => tx.statements.some(isWrite));
      assert.equal(writers.length, 1, 'one transaction wrote');
      const [start] = writers;
      assert.ok(start?.committed);
      const list = start.statements;
      const written = new Set(list.filter(isWrite).flatMap((s) => tablesOf(s.sql).slice(0, 1)));
      for (const table of WRITTEN) {
        assert.ok(written.has(table), `${table} is written in the Start transaction`);
      }
      const at = (which: (s: Statement) => boolean) => list.findIndex(which);
      const credential = at((s) => verbOf(s.sql) === 'select' && touches(s, 'credentials'));
      const quota = at((s) => verbOf(s.sql) === 'select' && touches(s, 'application_quotas'));
      const queues = at(
        (s) => verbOf(s.sql) === 'select' && touches(s, 'queues') && isLockingRead(s.sql),
      );
      const instance = at((s) => verbOf(s.sql) === 'insert' && touches(s, 'weave_instances'));
      assert.ok(
        credential >= 0 && quota > credential && instance > quota,
        'rights, quota, then rows',
      );
      if (dialect === 'mysql') {
        assert.match(list[credential]?.sql ?? '', /lock in share mode$/, 'credential: shared lock');
        assert.ok(isLockingRead(list[quota]?.sql ?? ''), 'the quota row is locked');
        assert.ok(queues > quota && queues < instance, 'every queue is locked before the rows');
      }
      assert.equal(verbOf(list[list.length - 1]?.sql ?? ''), 'commit');

      const replayMark = log.mark();
      const again = await client.requestRaw('POST', '/workflows/graph/instances', {
        body: { input: {} },
        idempotencyKey: 'e41',
      });
      assert.equal(again.headers.get('idempotent-replayed'), 'true');
      assert.deepEqual(again.body, first.body, 'the original instance, as admitted');
      const replayWrites = log
        .transactions(replayMark)
        .flatMap((tx) => tx.statements)
        .filter(isWrite)
        .filter((s) =>
          tablesOf(s.sql).some((table) => WRITTEN.includes(table) && table !== 'audit_log'),
        );
      assert.deepEqual(
        replayWrites.map((s) => s.sql),
        [],
        'a replay recomputes and writes nothing of the graph',
      );
    });
  });
});
