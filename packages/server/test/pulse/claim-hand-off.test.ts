/**
 * Direct hand-off to parked long-polls (pulse/claim-hand-off.ts; issue 14, docs/design/hot-path.md
 * §10), on both engines: a transaction that makes a task claimable claims it for a long-poll
 * parked on this node, and the long-poll answers with it once that transaction has committed.
 * What a hand-off must never do: deliver a task whose claim rolled back, lose a long-poll whose
 * transaction rolled back, let a long-poll leave while a claim for it is being decided, or claim
 * for a client that went away. Ordering is forced with gates and observable state, never sleeps.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ClaimHandOff } from '../../src/pulse/claim-hand-off.js';
import { claimHandOffOf } from '../../src/pulse/claim-hand-off.js';
import { DEFAULT_RETRY_POLICY } from '../../src/pulse/retry-policy.js';
import { submitTask } from '../../src/pulse/submit-task.js';
import type { Tx } from '../../src/store/with-tx.js';
import { forEachDialect } from '../support/databases.js';
import { createPulseFixture } from '../support/pulse.js';
import type { PulseFixture } from '../support/pulse.js';
import { startTestServer } from '../support/servers.js';
import type { TestServer } from '../support/servers.js';
import { StatementLog, tablesOf, verbOf } from '../support/statements.js';
import { waitFor } from '../support/wait-for.js';

function gate() {
  let open: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

forEachDialect((dialect) => {
  describe(`claim hand-off on ${dialect}`, () => {
    let f: PulseFixture;
    let queueId: string;
    before(async () => {
      f = await createPulseFixture(dialect);
      const row = await f.db.database.kysely
        .selectFrom('queues')
        .select('id')
        .where('name', '=', f.queue)
        .executeTakeFirstOrThrow();
      queueId = String(row.id);
    });
    after(() => f.close());

    const submitIn = (tx: Tx) =>
      submitTask(tx, {
        namespaceId: f.namespaceId,
        queueName: f.queue,
        input: '{"n":1}',
        idempotent: false,
        priority: 0,
        retry: DEFAULT_RETRY_POLICY,
      });
    const queue = () => ({ namespaceId: f.namespaceId, id: queueId });
    const attemptsOf = async (taskId: string) =>
      (
        await f.db.database.kysely
          .selectFrom('task_attempts')
          .select('id')
          .where('task_id', '=', taskId)
          .execute()
      ).length;

    test('a committed hand-off delivers the task it claimed, with a permit the worker can complete with', async () => {
      const handOff = new ClaimHandOff();
      const parking = handOff.park(queueId, f.claimRequest(2));
      const { served, taskId } = await f.tx(async (tx) => {
        const { task } = await submitIn(tx);
        return { served: await handOff.offer(tx, queue(), 1), taskId: task.id };
      });
      assert.equal(served, 1);
      const handed = await parking.handed;
      assert.deepEqual(
        handed.map((c) => c.task.id),
        [taskId],
      );
      assert.equal(await parking.leave(), handed, 'leaving after the delivery keeps it');
      assert.equal(handOff.parkedCount(queueId), 0);
      assert.equal((await f.task(taskId)).status, 'CLAIMED', 'claimed for it');
      const [claimed] = handed;
      if (claimed === undefined) {
        throw new Error('nothing handed');
      }
      await f.tx(async (tx) => {
        const { completeAttempt } = await import('../../src/pulse/complete-attempt.js');
        await completeAttempt(tx, f.completion(claimed, { outcome: 'succeeded', result: '1' }));
      });
      assert.equal((await f.task(taskId)).status, 'SUCCEEDED');
    });

    test('a transaction that rolls back after its hand-off delivers nothing and parks the long-poll again', async () => {
      const handOff = new ClaimHandOff();
      const parking = handOff.park(queueId, f.claimRequest(1));
      let taskId = '';
      await assert.rejects(
        f.tx(async (tx) => {
          taskId = (await submitIn(tx)).task.id;
          assert.equal(await handOff.offer(tx, queue(), 1), 1);
          assert.equal(handOff.parkedCount(queueId), 0, 'reserved while the transaction runs');
          throw new Error('refused after the hand-off');
        }),
        /refused after the hand-off/,
      );
      assert.equal(handOff.parkedCount(queueId), 1, 'parked again');
      const rows = await f.db.database.kysely
        .selectFrom('tasks')
        .select('id')
        .where('id', '=', taskId)
        .execute();
      assert.deepEqual(rows, [], 'the submit and its claim rolled back together');
      // The next committed hand-off still reaches it.
      await f.tx(async (tx) => {
        await submitIn(tx);
        await handOff.offer(tx, queue(), 1);
      });
      assert.equal((await parking.handed).length, 1);
      await parking.leave();
    });

    test('a hand-off inside a savepoint that rolls back parks the long-poll again while the transaction commits', async () => {
      const handOff = new ClaimHandOff();
      const parking = handOff.park(queueId, f.claimRequest(1));
      const taskId = await f.tx(async (tx) => {
        const { task } = await submitIn(tx);
        await tx
          .savepoint(async () => {
            await handOff.offer(tx, queue(), 1);
            throw new Error('this request is refused');
          })
          .catch(() => undefined);
        assert.equal(handOff.parkedCount(queueId), 1, 'given back at once');
        return task.id;
      });
      assert.equal((await f.task(taskId)).status, 'PENDING', 'the claim went with its savepoint');
      assert.equal(await attemptsOf(taskId), 0);
      assert.equal(await parking.leave(), undefined);
      assert.equal(handOff.parkedCount(queueId), 0);
      await f.claim(1);
    });

    test('a long-poll that leaves while a transaction claims for it waits for that transaction and takes its task', async () => {
      const handOff = new ClaimHandOff();
      const parking = handOff.park(queueId, f.claimRequest(1));
      const offered = gate();
      const proceed = gate();
      const committing = f.tx(async (tx) => {
        const { task } = await submitIn(tx);
        await handOff.offer(tx, queue(), 1);
        offered.open();
        await proceed.opened;
        return task.id;
      });
      await offered.opened;
      let left: readonly unknown[] | undefined | 'pending' = 'pending';
      const leaving = parking.leave().then((tasks) => (left = tasks));
      await new Promise((resolve) => setImmediate(resolve));
      assert.equal(left, 'pending', 'leave waits while the claim for it is undecided');
      proceed.open();
      const taskId = await committing;
      await leaving;
      assert.ok(Array.isArray(left));
      assert.deepEqual(
        (left as { task: { id: string } }[]).map((c) => c.task.id),
        [taskId],
      );
    });

    test('a long-poll whose client went away is offered nothing', async () => {
      const handOff = new ClaimHandOff();
      const gone = new AbortController();
      gone.abort();
      const parking = handOff.park(queueId, f.claimRequest(1), gone.signal);
      const { served, taskId } = await f.tx(async (tx) => {
        const { task } = await submitIn(tx);
        return { served: await handOff.offer(tx, queue(), 1), taskId: task.id };
      });
      assert.equal(served, 0);
      assert.equal((await f.task(taskId)).status, 'PENDING');
      assert.equal(await parking.leave(), undefined);
      await f.claim(1);
    });
  });

  describe(`claim hand-off over HTTP on ${dialect}`, () => {
    let t: TestServer;
    const log = new StatementLog();
    before(async () => {
      t = await startTestServer(dialect, {
        onStatement: log.hook,
        sweepIntervalMs: false,
        scheduleIntervalMs: false,
      });
    });
    after(() => t.close());

    test('a submit hands its task to a long-poll parked on this node: claimed in the submit’s transaction, no claim transaction of its own', async () => {
      const queue = await t.admin.createQueue({ name: 'handed', application: 'app' });
      const claiming = t.admin.claimTasks('handed', {
        worker_id: 'parked',
        max_tasks: 1,
        wait_ms: 20_000,
      });
      const handOff = claimHandOffOf(t.server.database);
      await waitFor(() => (handOff.parkedCount(queue.queue.id) === 1 ? true : undefined), {
        timeoutMs: 10_000,
      });
      const mark = log.mark();
      const { task } = await t.admin.submitTask('handed', { input: { n: 1 } });
      const { tasks } = await claiming;
      assert.deepEqual(
        tasks.map((c) => c.task_id),
        [task.id],
      );
      const inserts = (table: string) =>
        log
          .transactions(mark)
          .filter(
            (tx) =>
              tx.committed &&
              tx.statements.some(
                (s) => verbOf(s.sql) === 'insert' && tablesOf(s.sql).includes(table),
              ),
          );
      const submits = inserts('tasks');
      assert.equal(submits.length, 1);
      assert.deepEqual(inserts('task_attempts'), submits, 'the attempt is the submit’s');
      assert.equal((await t.admin.getTask(task.id)).task.status, 'CLAIMED');
    });
  });
});
