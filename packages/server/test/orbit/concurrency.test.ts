/**
 * Sequence order under concurrency (issue 5 acceptance): 8 concurrent completers spread over 2
 * server nodes on one database (this process's server and a real `weave server` process), while a follower long-polls the stream through the other node.
 * Every result is appended exactly once, seqs are 1..n with no gap, and the follower never sees
 * seq n+1 before seq n (commit order = seq order).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { WeaveClient } from '@weave/sdk';
import { forEachDialect } from '../support/databases.js';
import { startWeave } from '../support/processes.js';
import type { Running } from '../support/processes.js';
import { startTestServer } from '../support/servers.js';
import type { TestServer } from '../support/servers.js';

const TASKS = 240;
const COMPLETERS = 8;

interface Page {
  events: { seq: string; task_id: string }[];
  next_after: string;
}

forEachDialect((dialect) => {
  describe(`Orbit sequence under concurrency on ${dialect}`, () => {
    let t: TestServer;
    let second: Running;
    let nodes: WeaveClient[];
    before(async () => {
      const quiet = { sweepIntervalMs: false, scheduleIntervalMs: false } as const;
      t = await startTestServer(dialect, quiet);
      second = await startWeave(
        ['server', '--port', '0'],
        { WEAVE_DB: t.db.url, WEAVE_LOG_LEVEL: 'warn' },
        { readyOn: 'stderr' },
      );
      const url = /listening at (\S+)/.exec(second.firstLine)?.[1] ?? '';
      nodes = [t.admin, new WeaveClient({ url, namespace: 'ns', apiKey: t.adminKey })];
    });
    after(async () => {
      assert.equal(await second.stop(), 0, `the second node stops cleanly: ${second.stderr()}`);
      await t.close();
    });

    test(
      '8 completers on 2 nodes: every result once, seqs gap-free, never seen out of order',
      { timeout: 120_000 },
      async () => {
        const submitted = new Set<string>();
        for (let i = 0; i < TASKS; i += 20) {
          const batch = await Promise.all(
            Array.from({ length: 20 }, (_, j) =>
              (nodes[j % 2] as WeaveClient).submitTask('q1', { input: { i: i + j } }),
            ),
          );
          batch.forEach((r) => submitted.add(r.task.id));
        }
        let done = false;
        const seen: Page['events'] = [];
        const follower = (async () => {
          let cursor = '0';
          while (seen.length < TASKS) {
            const page = await (nodes[1] as WeaveClient).request<Page>(
              'GET',
              '/streams/app/events',
              {
                query: { after: cursor, wait_ms: 2_000, limit: 50 },
              },
            );
            page.events.forEach((e, i) => {
              assert.equal(
                BigInt(e.seq),
                BigInt(cursor) + BigInt(i) + 1n,
                'contiguous after cursor',
              );
            });
            seen.push(...page.events);
            cursor = page.next_after;
            if (done && page.events.length === 0) {
              break;
            }
          }
        })();
        const completer = async (n: number) => {
          const client = nodes[n % 2] as WeaveClient;
          for (;;) {
            const { tasks } = await client.claimTasks('q1', { worker_id: `c${n}`, max_tasks: 3 });
            if (tasks.length === 0) {
              return;
            }
            if (n % 2 === 0) {
              await Promise.all(
                tasks.map((c) =>
                  client.completeAttempt(c.task_id, c.attempt_id, c.permit, {
                    outcome: 'succeeded',
                    result: { by: n },
                  }),
                ),
              );
            } else {
              await client.completeMany('q1', {
                completions: tasks.map((c) => ({
                  task_id: c.task_id,
                  attempt_id: c.attempt_id,
                  permit: c.permit,
                  outcome: 'succeeded',
                  result: { by: n },
                })),
              });
            }
          }
        };
        await Promise.all(Array.from({ length: COMPLETERS }, (_, n) => completer(n)));
        done = true;
        await follower;
        assert.equal(seen.length, TASKS);
        assert.deepEqual(
          seen.map((e) => e.seq),
          Array.from({ length: TASKS }, (_, i) => String(i + 1)),
        );
        assert.deepEqual(new Set(seen.map((e) => e.task_id)), submitted);
        const stored = await t.server.database.kysely
          .selectFrom('orbit_result_events')
          .select((eb) => [eb.fn.countAll().as('n'), eb.fn.max('seq').as('max')])
          .executeTakeFirstOrThrow();
        assert.equal(Number(stored.n), TASKS);
        assert.equal(Number(stored.max), TASKS);
      },
    );
  });
});
