/**
 * Statements compiled once per shape (store/statement-shapes.ts), on both engines: a kept shape
 * gives Kysely's own SQL text with the call's parameters; a shape whose parameters Kysely does
 * not bind as the caller said is never kept; and a grouped worker-call transaction — the hot
 * path — keeps every shape it runs, with the outcome the same as before (issue 14 Deliver 2).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import type { WorkerCallBody } from '../../src/pulse/worker-calls.js';
import { runWorkerCalls } from '../../src/pulse/worker-calls.js';
import { ensureNamespace } from '../../src/auth/namespaces.js';
import { createApplication } from '../../src/orbit/create-application.js';
import { claimTasks } from '../../src/pulse/claim-tasks.js';
import { createQueue } from '../../src/pulse/queues.js';
import { lockTask, toTask } from '../../src/pulse/task-record.js';
import { shaped, shapesSeen } from '../../src/store/statement-shapes.js';
import { forEachDialect } from '../support/databases.js';
import { createPulseFixture } from '../support/pulse.js';
import type { PulseFixture } from '../support/pulse.js';

forEachDialect((dialect) => {
  describe(`statement shapes on ${dialect}`, () => {
    let f: PulseFixture;
    before(async () => {
      f = await createPulseFixture(dialect);
    });
    after(() => f.close());

    const queueRead = (shape: string, name: string, parameters: readonly unknown[]) => {
      const db = f.db.database.kysely;
      return shaped(db, shape, parameters, () =>
        db.selectFrom('queues').select(['id', 'name']).where('name', '=', name).limit(1),
      );
    };

    test('a kept shape is the first statement’s SQL text with the later call’s parameters', async () => {
      const first = queueRead('test queue read', 'nope', ['nope', 1]).compile();
      const second = queueRead('test queue read', f.queue, [f.queue, 1]).compile();
      assert.equal(shapesSeen(f.db.database.kysely).get('test queue read'), true);
      assert.equal(second.sql, first.sql);
      assert.equal(second.query, first.query, 'taken from the kept shape, not built again');
      assert.deepEqual(second.parameters, [f.queue, 1]);
      const { rows } = await f.db.database.kysely.executeQuery(second);
      assert.deepEqual(
        rows.map((r) => r.name),
        [f.queue],
      );
    });

    test('a shape whose parameters are not what Kysely binds is never kept: each statement is built by Kysely', async () => {
      // The caller got the order wrong: Kysely binds the name first, then the limit.
      const first = queueRead('test wrong order', 'nope', [1, 'nope']).compile();
      assert.equal(shapesSeen(f.db.database.kysely).get('test wrong order'), false);
      const second = queueRead('test wrong order', f.queue, [1, f.queue]).compile();
      assert.notEqual(second.query, first.query, 'built again');
      assert.deepEqual(second.parameters, [f.queue, 1], "Kysely's own parameters");
      const { rows } = await f.db.database.kysely.executeQuery(second);
      assert.equal(rows.length, 1);
    });

    test('an expression among the parameters never takes a kept shape', async () => {
      const db = f.db.database.kysely;
      const read = (value: unknown) =>
        shaped(db, 'test expression', [value], () =>
          db
            .selectFrom('queues')
            .select('name')
            .where('name', '=', value as string),
        );
      const kept = read(f.queue).compile();
      assert.equal(shapesSeen(db).get('test expression'), true);
      const expression = read(sql<string>`lower(${f.queue.toUpperCase()})`).compile();
      assert.notEqual(expression.sql, kept.sql, 'the expression is in the text');
      const { rows } = await db.executeQuery(expression);
      assert.deepEqual(
        rows.map((r) => r.name),
        [f.queue],
      );
    });

    test('a lone submit keeps its quota bound and its event as shapes, with the same rows', async () => {
      const db = f.db.database.kysely;
      const bound = () =>
        f.tx(async (tx) => {
          const row = await tx.db
            .selectFrom('application_quotas')
            .select('active_bound')
            .innerJoin('queues', 'queues.application_id', 'application_quotas.application_id')
            .where('queues.namespace_id', '=', f.namespaceId)
            .where('queues.name', '=', f.queue)
            .executeTakeFirstOrThrow();
          return BigInt(row.active_bound);
        });
      const before = await bound();
      const tasks = [];
      for (let i = 0; i < 3; i++) {
        tasks.push(await f.submit());
      }
      assert.equal(await bound(), before + 3n, 'each lone submit raised the bound by one');
      const seen = shapesSeen(db);
      assert.equal(seen.get('quota bound'), true, 'the exact admission’s bound is kept');
      const events = [...seen].filter(([key]) => key.startsWith('insert task_events'));
      assert.ok(
        events.some(([key, kept]) => key.endsWith('×1→') && kept),
        `a one-row event insert is kept: ${JSON.stringify(events)}`,
      );
      for (const task of tasks) {
        const rows = await f.tx((tx) =>
          tx.db
            .selectFrom('task_events')
            .select(['namespace_id', 'revision', 'type', 'status'])
            .where('task_id', '=', task.id)
            .execute(),
        );
        assert.deepEqual(
          rows.map((r) => [String(r.namespace_id), Number(r.revision), r.type, r.status]),
          [[f.namespaceId, 1, 'task.submitted', 'PENDING']],
          'each task has its own one submitted event',
        );
      }
    });

    test('a lone submit keeps its task insert as a shape, and answers each task as stored', async () => {
      const db = f.db.database.kysely;
      const submitted = [
        await f.submit({ input: '{"n":1.50}', priority: 3, traceKey: 't-1' }),
        await f.submit({ input: '[2e0]', idempotent: true }),
      ];
      const inserts = [...shapesSeen(db)].filter(([key]) => key.startsWith('insert tasks('));
      assert.ok(
        inserts.some(([key, kept]) => key.includes('×1→') && kept),
        `a one-row task insert is kept: ${JSON.stringify(inserts)}`,
      );
      for (const task of submitted) {
        const stored = await f.tx(async (tx) =>
          toTask(
            await tx.db
              .selectFrom('tasks')
              .selectAll()
              .where('id', '=', task.id)
              .executeTakeFirstOrThrow(),
          ),
        );
        assert.deepEqual(task, stored, 'the submit answers the row as stored');
      }
      assert.deepEqual(
        submitted.map((t) => [t.input, t.priority, t.traceKey, t.idempotent]),
        [
          ['{"n":1.50}', 3, 't-1', false],
          ['[2e0]', 0, null, true],
        ],
      );
    });

    test('a grouped worker-call transaction keeps every shape it runs, twice over, with the same outcome', async () => {
      // Ids that differ at every place of the hot statements, so that a parameter list in the
      // wrong order could not pass: namespace 2, its queue 3, its stream 3, tasks from 10 and
      // attempts from 5 (the fixture's namespace, queue and stream are all 1).
      for (let i = 0; i < 9; i++) {
        await f.submit();
      }
      await f.claim(4);
      const ns = await f.tx(async (tx) => {
        const one = f.namespaceId;
        await createApplication(tx, one, { name: 'spare', maxActiveTasks: 10 });
        const other = await ensureNamespace(tx, 'other');
        await createApplication(tx, other.id, { name: 'app2', maxActiveTasks: 1000 });
        for (const name of ['spare', 'work']) {
          await createQueue(tx, other.id, { name, application: 'app2', capacity: 1000 });
        }
        return other.id;
      });
      const body = (extra: Partial<WorkerCallBody>): WorkerCallBody => ({
        namespaceId: ns,
        queueName: 'work',
        ...extra,
      });
      const claim = (maxTasks: number) =>
        f.tx(async (tx) => {
          const request = { namespaceId: ns, queueName: 'work', workerId: 'w1', maxTasks };
          return (await claimTasks(tx, request)).claimed;
        });
      for (let round = 0; round < 2; round++) {
        for (let i = 0; i < 6; i++) {
          await f.submit({ namespaceId: ns, queueName: 'work' });
        }
        const claimed = await claim(3);
        assert.equal(claimed.length, 3);
        const completions = claimed.map((c, index) => ({
          namespaceId: ns,
          taskId: c.task.id,
          attemptId: c.attemptId,
          permit: c.permit,
          completion: { outcome: 'succeeded' as const, result: `r${round}-${index}` },
          credentialId: null,
          index,
        }));
        const results = await f.tx((tx) =>
          runWorkerCalls(tx, [
            { admit: () => Promise.resolve(body({ completions: completions.slice(0, 2) })) },
            {
              admit: () =>
                Promise.resolve(
                  body({
                    completions: completions.slice(2),
                    claim: { workerId: `w-${round}-a`, maxTasks: 2, start: true },
                  }),
                ),
            },
            {
              admit: () =>
                Promise.resolve(body({ claim: { workerId: `w-${round}-b`, maxTasks: 1 } })),
            },
          ]),
        );
        const [a, b, c] = results;
        assert.ok(a?.ok && b?.ok && c?.ok);
        for (const result of [...a.value.results, ...b.value.results]) {
          assert.ok('receipt' in result && result.receipt.status === 'SUCCEEDED');
        }
        const row = (id: string) => f.tx((tx) => lockTask(tx, ns, id));
        for (const [index, done] of claimed.entries()) {
          const settled = await row(done.task.id);
          assert.equal(settled.status, 'SUCCEEDED');
          assert.equal(settled.revision, done.task.revision + 2n, 'claimed, then settled once');
          assert.equal(settled.result, `"r${round}-${index}"`, 'each task its own result');
        }
        assert.equal(b.value.claimed.length, 2);
        assert.equal(c.value.claimed.length, 1);
        for (const [owner, status, taken] of [
          [`w-${round}-a`, 'RUNNING', b.value.claimed],
          [`w-${round}-b`, 'CLAIMED', c.value.claimed],
        ] as const) {
          for (const t of taken) {
            const claimedRow = await row(t.task.id);
            assert.deepEqual(
              [claimedRow.status, claimedRow.leaseOwner, claimedRow.currentAttemptId],
              [status, owner, t.attemptId],
            );
          }
        }
        // Leave nothing claimable behind for the next round.
        await claim(10);
      }
      const seen = shapesSeen(f.db.database.kysely);
      for (const prefix of [
        'queue to submit to',
        'quota of queue',
        'queue by name',
        'lock tasks',
        'attempts',
        'ready tasks',
        'claimed tasks',
        'settled tasks',
        'settled attempts',
        'stream seqs',
        'stream events',
        'insert task_attempts',
        'insert task_events',
        'insert audit_log',
      ]) {
        const shapes = [...seen].filter(([key]) => key.startsWith(prefix));
        assert.ok(shapes.length > 0, `a shape of ${prefix} was run`);
        for (const [key, kept] of shapes) {
          assert.equal(kept, true, `${key} is kept`);
        }
      }
    });
  });
});
