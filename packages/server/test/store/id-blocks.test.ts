/**
 * Ids reserved in blocks (store/id-blocks.ts, docs/design/hot-path.md §14): the allocator alone
 * with a recorded reservation and a test clock; then on the databases, the rows written with
 * those ids are the rows a reader finds, and two processes on one MariaDB never hand out the
 * same id (issue 14 Deliver 4: nothing lost, nothing twice).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { BlockTable } from '../../src/store/id-blocks.js';
import { IdBlocks, MIN_SIZE } from '../../src/store/id-blocks.js';
import { openDatabase } from '../../src/store/database.js';
import { withTx } from '../../src/store/with-tx.js';
import { claimTasks } from '../../src/pulse/claim-tasks.js';
import { findAttempt, lockTask } from '../../src/pulse/task-record.js';
import { DIALECTS, forEachDialect } from '../support/databases.js';
import { createPulseFixture, submitDefault } from '../support/pulse.js';
import type { PulseFixture } from '../support/pulse.js';

/** A reservation that hands out consecutive ranges and records each call. */
function recorded(first = 1n) {
  let next = first;
  const calls: { table: BlockTable; size: number; first: bigint }[] = [];
  let failNext = false;
  return {
    calls,
    failOnce() {
      failNext = true;
    },
    reserve: (table: BlockTable, size: number): Promise<bigint> => {
      if (failNext) {
        failNext = false;
        return Promise.reject(new Error('the database is away'));
      }
      const start = next;
      next += BigInt(size);
      calls.push({ table, size, first: start });
      return Promise.resolve(start);
    },
  };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('IdBlocks', () => {
  test('the first take waits for a block; later takes come from memory, a spare reserved ahead', async () => {
    const r = recorded();
    let now = 0;
    const blocks = new IdBlocks(r.reserve, { clock: () => now });
    const first = await blocks.take('tasks', 3);
    assert.deepEqual(first, ['1', '2', '3']);
    await settle();
    assert.equal(r.calls.length, 2, 'the block and its spare');
    now += 10;
    const second = blocks.take('tasks', 2);
    assert.ok(Array.isArray(second), 'from memory: no promise');
    assert.deepEqual(second, ['4', '5']);
    assert.equal(r.calls.length, 2);
  });

  test('a used-up block goes on in the spare; ids of one process grow', async () => {
    const r = recorded(100n);
    const now = 0;
    const blocks = new IdBlocks(r.reserve, { clock: () => now });
    const seen: bigint[] = [];
    for (let i = 0; i < 40; i++) {
      seen.push(...(await blocks.take('task_attempts', 7)).map(BigInt));
      await settle();
    }
    assert.equal(new Set(seen).size, seen.length, 'no id twice');
    assert.ok(
      seen.every((id, i) => i === 0 || id > (seen[i - 1] as bigint)),
      'ascending',
    );
    for (const id of seen) {
      assert.ok(
        r.calls.some((c) => id >= c.first && id < c.first + BigInt(c.size)),
        `${id} is inside a reserved block`,
      );
    }
  });

  test('a block older than its age is not used: the next ids come from a fresh reservation', async () => {
    const r = recorded();
    let now = 0;
    const blocks = new IdBlocks(r.reserve, { clock: () => now, maxAgeMs: 1_000 });
    await blocks.take('tasks', 1);
    await settle();
    now = 1_500;
    const later = await blocks.take('tasks', 1);
    // Calls: the first block and its spare (both at 0), then one after the clock moved.
    const fresh = r.calls[2];
    assert.ok(fresh !== undefined, 'a reservation after the block aged');
    assert.equal(later[0], fresh.first.toString(), 'from the block reserved after the clock moved');
  });

  test('tables have blocks of their own', async () => {
    const r = recorded();
    const blocks = new IdBlocks(r.reserve, { clock: () => 0 });
    await blocks.take('tasks', 1);
    await blocks.take('task_attempts', 1);
    assert.deepEqual(new Set(r.calls.map((c) => c.table)), new Set(['tasks', 'task_attempts']));
  });

  test('a failed reservation fails the caller that waits for it; the next take reserves again', async () => {
    const r = recorded();
    const blocks = new IdBlocks(r.reserve, { clock: () => 0 });
    r.failOnce();
    await assert.rejects(async () => blocks.take('tasks', 1), /the database is away/);
    assert.deepEqual(await blocks.take('tasks', 1), ['1']);
  });

  test('a take larger than a block reserves at least what it needs', async () => {
    const r = recorded();
    const blocks = new IdBlocks(r.reserve, { clock: () => 0 });
    const ids = await blocks.take('tasks', MIN_SIZE * 20);
    assert.equal(new Set(ids).size, MIN_SIZE * 20);
    assert.ok((r.calls[0]?.size ?? 0) >= MIN_SIZE * 20);
  });
});

forEachDialect((dialect) => {
  describe(`ids of new tasks and attempts on ${dialect}`, () => {
    let f: PulseFixture;
    before(async () => {
      f = await createPulseFixture(dialect);
    });
    after(() => f.close());

    test(`MariaDB reserves blocks, SQLite lets the database assign (${dialect})`, () => {
      assert.equal(f.db.database.ids !== undefined, dialect === 'mysql');
    });

    test('a submitted task is, column for column, the row a reader finds; so is a claimed attempt', async () => {
      const submitted = await f.submit({ input: '{"n":1e400}', traceKey: 't', priority: 3 });
      assert.deepEqual(await f.task(submitted.id), submitted);
      const [claimed] = await f.claim(1);
      assert.ok(claimed !== undefined);
      assert.equal(claimed.task.id, submitted.id);
      const attempt = await f.tx((tx) => findAttempt(tx, f.namespaceId, claimed.attemptId));
      assert.equal(attempt?.taskId, submitted.id);
      assert.equal(attempt?.attemptNumber, 1);
      const task = await f.task(submitted.id);
      assert.equal(task.currentAttemptId, claimed.attemptId);
    });

    test(`a transaction that rolls back leaves nothing${dialect === 'mysql' ? ', and its ids are not handed out again' : ''}`, async () => {
      const before = await f.count('tasks');
      let lost: string | undefined;
      await assert.rejects(
        withTx(f.db.database, async (tx) => {
          lost = (await submitDefault(tx, { namespaceId: f.namespaceId, queueName: f.queue })).id;
          throw new Error('rolled back on purpose');
        }),
        /rolled back on purpose/,
      );
      assert.equal(await f.count('tasks'), before);
      const next = await f.submit();
      // SQLite gives the next row the largest id + 1 again (no AUTOINCREMENT); MariaDB's blocks
      // never hand an id out twice.
      if (dialect === 'mysql') {
        assert.notEqual(next.id, lost);
      }
    });
  });
});

if (DIALECTS.includes('mysql')) {
  describe('two processes on one MariaDB', () => {
    let f: PulseFixture;
    before(async () => {
      f = await createPulseFixture('mysql');
    });
    after(() => f.close());

    test('submits and claims on two pools at once never take the same id', async () => {
      const other = openDatabase(f.db.url);
      try {
        const nodes = [f.db.database, other];
        const submitted = await Promise.all(
          Array.from({ length: 60 }, (_, i) =>
            withTx(nodes[i % 2] as typeof other, (tx) =>
              submitDefault(tx, { namespaceId: f.namespaceId, queueName: f.queue }),
            ),
          ),
        );
        const ids = submitted.map((t) => t.id);
        assert.equal(new Set(ids).size, 60);
        assert.equal(await f.count('tasks'), 60);
        const claimed = await Promise.all(
          Array.from({ length: 12 }, (_, i) =>
            withTx(nodes[i % 2] as typeof other, (tx) =>
              claimTasks(tx, {
                namespaceId: f.namespaceId,
                queueName: f.queue,
                workerId: `w${i}`,
                maxTasks: 5,
              }),
            ),
          ),
        );
        const attempts = claimed.flatMap((c) => c.claimed.map((x) => x.attemptId));
        assert.equal(attempts.length, 60);
        assert.equal(new Set(attempts).size, 60);
        for (const c of claimed.flatMap((x) => x.claimed)) {
          const task = await f.tx((tx) => lockTask(tx, f.namespaceId, c.task.id));
          assert.equal(task.currentAttemptId, c.attemptId);
        }
      } finally {
        await other.close();
      }
    });
  });
}
