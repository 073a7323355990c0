/**
 * The long-poll and a caller that goes away: a worker killed while its claim waits must not be
 * handed tasks (they would sit CLAIMED, unrun, until their lease ends). Regression found while
 * building the crash test (test/crash): the route's disconnect signal was ignored.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { claimWithWait } from '../../src/pulse/claim-with-wait.js';
import { updateQueue } from '../../src/pulse/queues.js';
import { TaskNotifier } from '../../src/pulse/task-notifier.js';
import { forEachDialect } from '../support/databases.js';
import { createPulseFixture } from '../support/pulse.js';
import { waitFor } from '../support/wait-for.js';
import type { PulseFixture } from '../support/pulse.js';

forEachDialect((dialect) => {
  describe(`claim long-poll with a disconnecting caller on ${dialect}`, () => {
    let f: PulseFixture;
    before(async () => {
      f = await createPulseFixture(dialect);
    });
    after(() => f.close());

    test('an aborted long-poll answers at once and claims a task submitted afterwards not at all', async () => {
      const notifier = new TaskNotifier();
      const gone = new AbortController();
      const request = f.claimRequest(1);
      const started = Date.now();
      const waiting = claimWithWait(
        { database: f.db.database, notifier, pollMs: 20_000, signal: gone.signal },
        request,
        20_000,
      );
      await waitFor(() => notifier.waiterCount() === 1 || undefined, { what: 'the claim to wait' });
      gone.abort();
      const task = await f.submit();
      notifier.notify(task.queueId);
      assert.deepEqual((await waiting).claimed, []);
      assert.ok(Date.now() - started < 5_000, 'released by the abort, not by the timeout');
      assert.equal((await f.task(task.id)).status, 'PENDING', 'the task stays claimable');
    });

    test('a task submitted between an empty claim and the wait is claimed at once, not after the re-poll interval', async () => {
      await f.claim(100); // the queue starts empty: the first claim below finds nothing
      const notifier = new TaskNotifier();
      const request = f.claimRequest(1);
      let submitted: string | undefined;
      const afterClaim = async () => {
        if (submitted === undefined) {
          // The race: committed and notified after the empty claim, before the claimer waits.
          const task = await f.submit();
          submitted = task.id;
          notifier.notify(task.queueId);
        }
      };
      const started = Date.now();
      const outcome = await claimWithWait(
        { database: f.db.database, notifier, pollMs: 20_000, hooks: { afterClaim } },
        request,
        20_000,
      );
      assert.deepEqual(
        outcome.claimed.map((c) => c.task.id),
        [submitted],
      );
      assert.ok(Date.now() - started < 5_000, `claimed in ${Date.now() - started} ms`);
    });

    /** A long-poll that records when it answered. */
    function waiter(notifier: TaskNotifier, signal?: AbortSignal, pollMs = 20_000) {
      const state = { done: false, claimed: [] as string[], tries: 0 };
      const request = f.claimRequest(5);
      const afterClaim = () => {
        state.tries++;
        return Promise.resolve();
      };
      const promise = claimWithWait(
        {
          database: f.db.database,
          notifier,
          pollMs,
          hooks: { afterClaim },
          ...(signal ? { signal } : {}),
        },
        request,
        20_000,
      ).then((outcome) => {
        state.done = true;
        state.claimed = outcome.claimed.map((c) => c.task.id);
      });
      return { state, promise };
    }

    test('one new task wakes one waiting claim, not every worker of the queue', async () => {
      await f.claim(100);
      const notifier = new TaskNotifier();
      const waiters = [waiter(notifier), waiter(notifier), waiter(notifier)];
      try {
        // All three made their empty claim and wait.
        await waitFor(() => (waiters.every((w) => w.state.tries === 1) ? true : undefined), {
          what: 'three empty claims',
        });
        await waitFor(() => notifier.waiterCount() === 3 || undefined, { what: 'three waiting' });
        const first = await f.submit();
        notifier.notify(first.queueId, 1);
        // notify wakes synchronously: the other two are still waiting, not woken.
        assert.equal(notifier.waiterCount(), 2, 'one waiter woken');
        await waitFor(() => (waiters.some((w) => w.state.done) ? true : undefined), {
          what: 'one waiter to answer',
        });
        // Which one depends on the order they began to wait; exactly one answered, with the task.
        assert.deepEqual(
          waiters.filter((w) => w.state.done).map((w) => w.state.claimed),
          [[first.id]],
          'one waiter took it; the others still wait',
        );
        // Only the woken waiter ran a second claim transaction: the others were not woken.
        assert.equal(
          waiters.reduce((n, w) => n + w.state.tries, 0),
          4,
        );
      } finally {
        notifier.close();
        await Promise.all(waiters.map((w) => w.promise));
      }
    });

    test('a wake-up taken by a caller that went away passes to the next waiter', async () => {
      await f.claim(100);
      const notifier = new TaskNotifier();
      const gone = new AbortController();
      const leaving = waiter(notifier, gone.signal);
      // `leaving` waits first, so it is the one a single wake-up goes to.
      await waitFor(() => notifier.waiterCount() === 1 || undefined, { what: 'leaving waits' });
      const staying = waiter(notifier);
      await waitFor(() => notifier.waiterCount() === 2 || undefined, { what: 'staying waits' });
      const task = await f.submit();
      // The wake-up goes to the longest waiter, which is gone before it runs its claim.
      notifier.notify(task.queueId, 1);
      gone.abort();
      await waitFor(() => (staying.state.done ? true : undefined), {
        what: 'the next waiter to be woken',
        timeoutMs: 3_000,
      });
      assert.deepEqual(leaving.state.claimed, []);
      assert.deepEqual(staying.state.claimed, [task.id]);
      await leaving.promise;
    });

    test('a task no local submit announced (another node) is found by the queue watch within its interval', async () => {
      await f.claim(100);
      const notifier = new TaskNotifier();
      // Interval 200 ms: the waiter's own re-check would come only after 1,600 ms.
      const w = waiter(notifier, undefined, 200);
      try {
        await waitFor(() => (w.state.tries === 1 ? true : undefined), { what: 'a claim' });
        const task = await f.submit(); // no notify: as if committed on another node
        const started = Date.now();
        await waitFor(() => (w.state.done ? true : undefined), {
          what: 'the watch to wake the waiter',
          timeoutMs: 5_000,
          intervalMs: 10,
        });
        assert.deepEqual(w.state.claimed, [task.id]);
        assert.ok(Date.now() - started < 1_200, `found after ${Date.now() - started} ms`);
      } finally {
        notifier.close();
        await w.promise;
      }
    });

    test('idle waiting claims cost one probe per interval, not a claim transaction each', async () => {
      await f.claim(100);
      const notifier = new TaskNotifier();
      const waiters = Array.from({ length: 5 }, () => waiter(notifier, undefined, 200));
      try {
        await waitFor(() => (waiters.every((w) => w.state.tries === 1) ? true : undefined), {
          what: 'five empty claims',
        });
        // Five intervals of the watch; per-waiter polling would have run ~25 claims by now.
        // sleep-ok: asserts that no further claim happens within the bound, orders nothing.
        await new Promise((r) => setTimeout(r, 1_000));
        assert.deepEqual(
          waiters.map((w) => w.state.tries),
          [1, 1, 1, 1, 1],
        );
      } finally {
        notifier.close();
        await Promise.all(waiters.map((w) => w.promise));
      }
    });

    test('the queue watch does not wake the waiters of a paused queue', async () => {
      await f.claim(100);
      await f.tx((tx) => updateQueue(tx, f.namespaceId, f.queue, { paused: true }));
      const notifier = new TaskNotifier();
      const waiters = [waiter(notifier, undefined, 100), waiter(notifier, undefined, 100)];
      try {
        await waitFor(() => (waiters.every((w) => w.state.tries === 1) ? true : undefined), {
          what: 'two empty claims',
        });
        await f.submit();
        // sleep-ok: asserts that no waiter is woken within five watch intervals, orders nothing.
        await new Promise((r) => setTimeout(r, 500));
        assert.deepEqual(
          waiters.map((w) => w.state.tries),
          [1, 1],
        );
      } finally {
        await f.tx((tx) => updateQueue(tx, f.namespaceId, f.queue, { paused: false }));
        notifier.close();
        await Promise.all(waiters.map((w) => w.promise));
        await f.claim(100);
      }
    });
  });
});
