/**
 * Group commit across callers (store/tx-group.ts, pulse/worker-calls.ts; issue 14 Deliver 4),
 * on both engines: calls that arrive while a transaction of their kind runs share the next one,
 * and each keeps its own whole-or-nothing outcome. The grouping is forced with a gate (the first
 * call's admit waits on it), never with sleeps.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { WeaveError } from '../../src/errors.js';
import { writeAudit } from '../../src/auth/audit.js';
import { settleTask } from '../../src/pulse/settle-task.js';
import type { WorkerCall, WorkerCallBody, WorkerCallResult } from '../../src/pulse/worker-calls.js';
import { runWorkerCalls } from '../../src/pulse/worker-calls.js';
import { updateQueue } from '../../src/pulse/queues.js';
import { TxGroup, eachInSavepoint } from '../../src/store/tx-group.js';
import type { Tx } from '../../src/store/with-tx.js';
import { forEachDialect } from '../support/databases.js';
import { createPulseFixture } from '../support/pulse.js';
import type { PulseFixture } from '../support/pulse.js';

function gate() {
  let open: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

async function streamEvents(f: PulseFixture): Promise<number> {
  return f.tx(async (tx) => {
    const row = await tx.db
      .selectFrom('orbit_result_events')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  });
}

async function auditOf(f: PulseFixture, action: string): Promise<number> {
  return f.tx(async (tx) => {
    const row = await tx.db
      .selectFrom('audit_log')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('action', '=', action)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  });
}

forEachDialect((dialect) => {
  describe(`group commit on ${dialect}`, () => {
    let f: PulseFixture;
    before(async () => {
      f = await createPulseFixture(dialect);
    });
    after(() => f.close());

    const body = (extra: Partial<WorkerCallBody>): WorkerCallBody => ({
      namespaceId: f.namespaceId,
      queueName: f.queue,
      ...extra,
    });

    test('worker calls that arrive while one runs share the next transaction; a call refused while settling leaves nothing, the others commit', async () => {
      // Two claimed tasks (a, b) to complete, and two pending ones for the claim.
      await f.submit();
      await f.submit();
      const [a, b] = await f.claim(2);
      assert.ok(a && b);
      await f.submit();
      await f.submit();
      const refusing: typeof settleTask = async (tx, task, settlement) => {
        const receipt = await settleTask(tx, task, settlement);
        if (task.id === b.task.id) {
          throw new WeaveError('invalid_state', 'refused while settling'); // after its writes
        }
        return receipt;
      };
      const beforeEvents = await f.count('task_events');
      const beforeStream = await streamEvents(f);
      const beforeAudit = await auditOf(f, 'task.succeeded');
      const sizes: number[] = [];
      const group = new TxGroup<WorkerCall, WorkerCallResult>(
        f.db.database,
        (tx, calls) => runWorkerCalls(tx, calls, { batch: { settle: refusing } }),
        { name: 'test', maxItems: 32, maxInFlight: 1, onGroup: (n) => sizes.push(n) },
      );
      const held = gate();
      const entered = gate();
      const first = group.submit({
        async admit() {
          entered.open();
          await held.opened;
          return body({});
        },
      });
      // The first transaction is running (and on SQLite holds the one handle: nothing may read
      // until it ends): the next calls must wait for it.
      await entered.opened;
      const completion = (c: typeof a, index: number) => {
        const { queueId: _queueId, ...item } = f.completion(c, {
          outcome: 'succeeded',
          result: 'ok',
        });
        return { ...item, index };
      };
      const calls = [
        group.submit({ admit: () => Promise.resolve(body({ completions: [completion(a, 0)] })) }),
        group.submit({ admit: () => Promise.resolve(body({ completions: [completion(b, 4)] })) }),
        group.submit({
          admit: () => Promise.resolve(body({ claim: { workerId: 'w-c', maxTasks: 5 } })),
        }),
      ];
      held.open();
      await first;
      const [ra, rb, rc] = await Promise.all(calls);
      assert.deepEqual(sizes, [1, 3], 'the three calls ran in one transaction');

      const [okA] = ra?.results ?? [];
      assert.ok(okA && 'receipt' in okA && okA.receipt.status === 'SUCCEEDED');
      assert.equal(okA.index, 0);
      const [refusedB] = rb?.results ?? [];
      assert.ok(refusedB && 'error' in refusedB && refusedB.error.code === 'invalid_state');
      assert.equal(refusedB.index, 4, "the caller's own index comes back");
      assert.equal(rc?.claimed.length, 2, 'the claim took both pending tasks');

      assert.equal((await f.task(a.task.id)).status, 'SUCCEEDED');
      const bRow = await f.task(b.task.id);
      assert.equal(bRow.status, 'CLAIMED', 'the refused completion changed nothing');
      assert.equal(bRow.revision, b.task.revision + 1n);
      // a: one raw event; the claim: one task.claimed per task; b: nothing.
      assert.equal(await f.count('task_events'), beforeEvents + 1 + 2);
      assert.equal(await streamEvents(f), beforeStream + 1, "only a's result reached the stream");
      assert.equal(await auditOf(f, 'task.succeeded'), beforeAudit + 1);
      for (const t of rc.claimed) {
        assert.equal((await f.task(t.task.id)).leaseOwner, 'w-c');
      }
    });

    test('a call refused at admission is left out; two claims of one queue share its scan, each task leased to its own caller', async () => {
      await f.submit();
      await f.submit();
      const results = await f.tx((tx) =>
        runWorkerCalls(tx, [
          { admit: () => Promise.reject(new WeaveError('permission_denied', 'no right')) },
          { admit: () => Promise.resolve(body({ claim: { workerId: 'w-d', maxTasks: 1 } })) },
          { admit: () => Promise.resolve(body({ queueName: 'nope', completions: [] })) },
          {
            admit: () =>
              Promise.resolve(body({ claim: { workerId: 'w-e', maxTasks: 1, start: true } })),
          },
        ]),
      );
      const [refused, d, missing, e] = results;
      assert.ok(refused && !refused.ok);
      assert.equal((refused.error as WeaveError).code, 'permission_denied');
      assert.ok(missing && !missing.ok && (missing.error as WeaveError).code === 'not_found');
      assert.ok(d?.ok && e?.ok);
      const [taskD] = d.value.claimed;
      const [taskE] = e.value.claimed;
      assert.ok(taskD && taskE && taskD.task.id !== taskE.task.id);
      const rowD = await f.task(taskD.task.id);
      const rowE = await f.task(taskE.task.id);
      assert.deepEqual([rowD.leaseOwner, rowD.status], ['w-d', 'CLAIMED']);
      assert.deepEqual([rowE.leaseOwner, rowE.status], ['w-e', 'RUNNING']);
      assert.equal(rowD.currentAttemptId, taskD.attemptId);
      assert.equal(rowE.currentAttemptId, taskE.attemptId);
      assert.equal(rowE.revision, taskE.task.revision + 2n, 'claimed and started');
    });

    test('a claim scanned in the first packet (the queue id known) hands out nothing once the queue is paused, and again once resumed', async () => {
      const queueIds = new Map<string, string>();
      const claimOnce = (workerId: string) =>
        f.tx((tx) =>
          runWorkerCalls(
            tx,
            [{ admit: () => Promise.resolve(body({ claim: { workerId, maxTasks: 5 } })) }],
            { queueIds },
          ),
        );
      const [learnt] = await claimOnce('w-learn');
      assert.ok(learnt?.ok);
      assert.equal(queueIds.get(`${f.namespaceId}/${f.queue}`), learnt.value.queueId);
      const task = await f.submit();
      await f.tx((tx) => updateQueue(tx, f.namespaceId, f.queue, { paused: true }));
      const [paused] = await claimOnce('w-p');
      assert.ok(paused?.ok);
      assert.equal(paused.value.paused, true);
      assert.deepEqual(paused.value.claimed, []);
      assert.equal((await f.task(task.id)).status, 'PENDING', 'the scanned row was not written');
      await f.tx((tx) => updateQueue(tx, f.namespaceId, f.queue, { paused: false }));
      const [resumed] = await claimOnce('w-r');
      assert.ok(resumed?.ok);
      assert.deepEqual(
        resumed.value.claimed.map((c) => c.task.id),
        [task.id],
      );
      assert.equal((await f.task(task.id)).leaseOwner, 'w-r');
    });

    /** An audit row named `${prefix}.${name}`: a write the test can count. */
    const mark = (tx: Tx, prefix: string, name: string) =>
      writeAudit(tx, {
        namespaceId: f.namespaceId,
        credentialId: null,
        action: `${prefix}.${name}`,
        outcome: 'ok',
        objectType: 'test',
        objectId: name,
      });

    /**
     * A group of named items whose first transaction ('hold') waits on a gate while `names`
     * are submitted, so they must share the next one. `run` does the group's work.
     */
    async function heldGroup(
      names: readonly string[],
      run: (tx: Tx, items: readonly string[]) => ReturnType<typeof eachInSavepoint<string, string>>,
    ) {
      const sizes: number[] = [];
      const held = gate();
      const entered = gate();
      const group = new TxGroup<string, string>(
        f.db.database,
        async (tx, items) => {
          if (items.includes('hold')) {
            entered.open();
            await held.opened;
          }
          return run(tx, items);
        },
        { name: 'test', maxItems: 32, maxInFlight: 1, onGroup: (n) => sizes.push(n) },
      );
      const first = group.submit('hold');
      await entered.opened;
      const rest = names.map((name) => group.submit(name).catch((e: unknown) => e));
      held.open();
      await first;
      return { sizes, outcomes: await Promise.all(rest) };
    }

    test('grouped items each under a savepoint: the one that throws after writing leaves no row, the others commit together', async () => {
      const { sizes, outcomes } = await heldGroup(['one', 'bad', 'two'], (tx, items) =>
        eachInSavepoint(tx, items, async (inner, name) => {
          await mark(inner, 'group', name);
          if (name === 'bad') {
            throw new WeaveError('invalid_state', 'refused after writing');
          }
          return name;
        }),
      );
      const [one, bad, two] = outcomes;
      assert.deepEqual(sizes, [1, 3]);
      assert.equal(one, 'one');
      assert.equal(two, 'two');
      assert.ok(bad instanceof WeaveError && bad.code === 'invalid_state');
      assert.equal(await auditOf(f, 'group.one'), 1);
      assert.equal(await auditOf(f, 'group.two'), 1);
      assert.equal(await auditOf(f, 'group.bad'), 0, 'the refused item left nothing');
    });

    for (const overlapCommit of [true, false]) {
      test(`with overlapCommit ${overlapCommit}, the next group starts ${overlapCommit ? 'before' : 'after'} the running one commits`, async () => {
        const log: string[] = [];
        const held = gate();
        const entered = gate();
        let groups = 0;
        const group = new TxGroup<string, string>(
          f.db.database,
          async (tx, items) => {
            if (items.includes('A')) {
              entered.open();
              await held.opened;
            }
            tx.afterCommit(() => log.push(`commit ${items.join()}`));
            return eachInSavepoint(tx, items, async (inner, name) => {
              await mark(inner, 'overlap', name);
              return name;
            });
          },
          {
            name: 'test',
            maxItems: 32,
            maxInFlight: 1,
            overlapCommit,
            onGroup: () => log.push(`group ${++groups}`),
          },
        );
        const a = group.submit('A');
        await entered.opened;
        const b = group.submit('B');
        held.open();
        assert.deepEqual(await Promise.all([a, b]), ['A', 'B']);
        assert.deepEqual(
          log,
          overlapCommit
            ? ['group 1', 'group 2', 'commit A', 'commit B']
            : ['group 1', 'commit A', 'group 2', 'commit B'],
        );
      });
    }

    test('when the shared transaction fails as a whole, every item runs again alone and gets its own outcome', async () => {
      const { sizes, outcomes } = await heldGroup(['x', 'poison', 'y'], async (tx, items) => {
        if (items.length > 1 && items.includes('poison')) {
          throw new Error('the shared transaction broke'); // not a refusal: fails the group
        }
        return eachInSavepoint(tx, items, async (inner, name) => {
          if (name === 'poison') {
            throw new Error('poison alone');
          }
          await mark(inner, 'alone', name);
          return name;
        });
      });
      const [x, poison, y] = outcomes;
      assert.deepEqual(sizes, [1, 3, 1, 1, 1], 'the failed group of 3, then each item alone');
      assert.equal(x, 'x');
      assert.equal(y, 'y');
      assert.ok(poison instanceof Error && poison.message === 'poison alone');
      assert.equal(await auditOf(f, 'alone.x'), 1);
      assert.equal(await auditOf(f, 'alone.y'), 1);
    });

    describe('waiting for returning workers', () => {
      interface Call {
        readonly caller: string;
        /** What the call is answered: 'tasks' means the worker comes back with them. */
        readonly answer: 'tasks' | 'none';
      }
      const turns = async (n: number) => {
        for (let i = 0; i < n; i++) {
          await new Promise((resolve) => setImmediate(resolve));
        }
      };
      function returningGroup(windowMs: number) {
        const sizes: string[][] = [];
        const group = new TxGroup<Call, string>(
          f.db.database,
          (_tx, items) => {
            sizes.push(items.map((i) => i.caller));
            return Promise.resolve(items.map((i) => ({ ok: true, value: i.answer })));
          },
          {
            name: 'test',
            maxItems: 32,
            maxInFlight: 1,
            returning: {
              windowMs,
              callerOf: (call) => call.caller,
              back: (answer) => answer === 'tasks',
            },
          },
        );
        return { group, sizes };
      }

      test('a group waits for a worker just handed tasks and takes its next call with the others', async () => {
        const { group, sizes } = returningGroup(60_000);
        assert.equal(await group.submit({ caller: 'a', answer: 'tasks' }), 'tasks');
        const b = group.submit({ caller: 'b', answer: 'tasks' });
        await turns(5);
        assert.deepEqual(sizes, [['a']], 'b waits: a was handed tasks and is expected back');
        const a = group.submit({ caller: 'a', answer: 'none' });
        await Promise.all([a, b]);
        assert.deepEqual(sizes, [['a'], ['b', 'a']]);
      });

      test(
        'a worker whose call is still running is waited for at most the window, not for as long as it runs',
        { timeout: 20_000 },
        async () => {
          const held = gate();
          const entered = gate();
          const third = gate();
          let groups = 0;
          const sizes: string[][] = [];
          const group = new TxGroup<Call & { hold?: boolean }, string>(
            f.db.database,
            async (_tx, items) => {
              sizes.push(items.map((i) => i.caller));
              if (items.some((i) => i.hold === true)) {
                entered.open();
                await held.opened;
              }
              return items.map((i) => ({ ok: true, value: i.answer }));
            },
            {
              name: 'test',
              maxItems: 32,
              maxInFlight: 2,
              returning: {
                windowMs: 50,
                callerOf: (call) => call.caller,
                back: (answer) => answer === 'tasks',
              },
              // The third group (b's) has started: its transaction may wait for a's connection
              // (SQLite has one), so the test opens a's gate once b's group is under way.
              onGroup: () => {
                if (++groups === 3) {
                  third.open();
                }
              },
            },
          );
          assert.equal(await group.submit({ caller: 'a', answer: 'tasks' }), 'tasks');
          const a = group.submit({ caller: 'a', answer: 'tasks', hold: true });
          await entered.opened;
          // a's second call runs (held) and a stays expected while it does; b must not wait for it.
          const started = performance.now();
          const b = group.submit({ caller: 'b', answer: 'none' });
          await third.opened;
          const waited = performance.now() - started;
          held.open();
          assert.deepEqual(await Promise.all([a, b]), ['tasks', 'none']);
          assert.deepEqual(sizes, [['a'], ['a'], ['b']]);
          assert.ok(waited >= 45, `b's group started after ${waited.toFixed(1)} ms, the window`);
        },
      );

      test('a worker answered without tasks is not waited for', { timeout: 20_000 }, async () => {
        const { group, sizes } = returningGroup(60_000);
        await group.submit({ caller: 'a', answer: 'none' });
        await group.submit({ caller: 'b', answer: 'none' });
        assert.deepEqual(sizes, [['a'], ['b']]);
      });

      test(
        'a worker that does not come back is waited for at most the window',
        { timeout: 20_000 },
        async () => {
          const { group, sizes } = returningGroup(50);
          await group.submit({ caller: 'a', answer: 'tasks' });
          const started = performance.now();
          await group.submit({ caller: 'b', answer: 'none' });
          const waited = performance.now() - started;
          assert.deepEqual(sizes, [['a'], ['b']]);
          assert.ok(waited >= 45, `b waited ${waited.toFixed(1)} ms for a, the window`);
        },
      );
    });
  });
});
