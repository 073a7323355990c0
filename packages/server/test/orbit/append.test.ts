/**
 * Orbit's append inside the result transaction (issue 5; seed 000 §1 step 6): the event commits
 * with the result or not at all, a re-reported completion appends nothing, every outcome type is
 * appended with its frozen snapshot, and the sequence is gap-free.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { parse } from '@weave/json';
import type { JsonObject } from '@weave/json';
import { cancelTask } from '../../src/pulse/cancel-task.js';
import { completeBatch } from '../../src/pulse/complete-batch.js';
import { createStream } from '../../src/orbit/streams.js';
import { completeAttempt } from '../../src/pulse/complete-attempt.js';
import type { Completion } from '../../src/pulse/complete-attempt.js';
import { toMicros } from '../../src/store/values.js';
import { forEachDialect } from '../support/databases.js';
import { createPulseFixture } from '../support/pulse.js';
import type { PulseFixture } from '../support/pulse.js';

forEachDialect((dialect) => {
  describe(`Orbit append on ${dialect}`, () => {
    let f: PulseFixture;
    before(async () => {
      f = await createPulseFixture(dialect);
    });
    after(() => f.close());

    async function events() {
      const rows = await f.db.database.kysely
        .selectFrom('orbit_result_events as e')
        .innerJoin('orbit_streams as s', 's.id', 'e.stream_id')
        .select(['e.seq', 'e.type', 'e.source_id', 'e.source_revision', 'e.body'])
        .where('s.name', '=', 'app')
        .orderBy('e.seq')
        .execute();
      return rows.map((r) => ({
        seq: toMicros(r.seq),
        type: r.type,
        taskId: String(r.source_id),
        body: parse(r.body) as JsonObject,
        text: r.body,
      }));
    }

    async function head() {
      const row = await f.db.database.kysely
        .selectFrom('orbit_streams')
        .select('next_seq')
        .where('name', '=', 'app')
        .executeTakeFirstOrThrow();
      return toMicros(row.next_seq) - 1n;
    }

    async function claimOne() {
      const task = await f.submit();
      const [claimed] = await f.claim();
      assert.ok(claimed);
      assert.equal(claimed.task.id, task.id);
      return claimed;
    }

    function complete(claimed: Awaited<ReturnType<typeof claimOne>>, completion: Completion) {
      return {
        namespaceId: f.namespaceId,
        taskId: claimed.task.id,
        attemptId: claimed.attemptId,
        permit: claimed.permit,
        completion,
        credentialId: null,
      };
    }

    test('[E1.1] a failure after the append inside the result transaction leaves neither the result nor the event', async () => {
      const claimed = await claimOne();
      const before = await head();
      await assert.rejects(
        f.tx(async (tx) => {
          await completeAttempt(
            tx,
            complete(claimed, { outcome: 'succeeded', result: parse('{"ok":true}') }),
          );
          // Runs after Orbit's flush (registered by the append's own hook): prove the event is
          // there inside the transaction, then fail the commit.
          tx.beforeCommit(() => {
            tx.beforeCommit(async () => {
              const inside = await tx.db
                .selectFrom('orbit_result_events')
                .select('seq')
                .where('source_id', '=', claimed.task.id)
                .execute();
              assert.equal(inside.length, 1, 'the event was appended inside the transaction');
              throw new Error('forced failure after the append');
            });
            return Promise.resolve();
          });
        }),
        /forced failure after the append/,
      );
      assert.equal(await head(), before);
      assert.equal((await events()).filter((e) => e.taskId === claimed.task.id).length, 0);
      assert.equal((await f.task(claimed.task.id)).status, 'CLAIMED');
    });

    test('[E1.6] a re-reported identical completion appends nothing', async () => {
      const claimed = await claimOne();
      const request = complete(claimed, {
        outcome: 'succeeded',
        result: parse('{"amount":12345678901234567890.120}'),
      });
      const first = await f.tx((tx) => completeAttempt(tx, request));
      const count = (await events()).length;
      const again = await f.tx((tx) => completeAttempt(tx, request));
      assert.deepEqual(again, first);
      assert.equal((await events()).length, count);
      const mine = (await events()).filter((e) => e.taskId === claimed.task.id);
      assert.equal(mine.length, 1);
      // The payload's number text is kept exactly as the worker sent it.
      assert.match(mine[0]?.text ?? '', /"result":\{"amount":12345678901234567890\.120\}/);
    });

    test('[E1.5] every outcome type is appended with a frozen snapshot; a retry appends nothing', async () => {
      const before = (await events()).length;
      const ok = await claimOne();
      await f.tx((tx) =>
        completeAttempt(tx, complete(ok, { outcome: 'succeeded', result: parse('[1,2.50]') })),
      );
      const retried = await claimOne();
      await f.tx((tx) =>
        completeAttempt(
          tx,
          complete(retried, {
            outcome: 'failed',
            error: { code: 'flaky', message: 'try again', retryable: true },
          }),
        ),
      );
      assert.equal((await events()).length, before + 1, 'a retry awaiting backoff is no outcome');
      const failed = await claimOne();
      await f.tx((tx) =>
        completeAttempt(
          tx,
          complete(failed, {
            outcome: 'failed',
            error: { code: 'bad_input', message: 'no', retryable: false },
          }),
        ),
      );
      const review = await claimOne();
      await f.tx((tx) => completeAttempt(tx, complete(review, { outcome: 'needs_review' })));
      const pending = await f.submit();
      await f.tx((tx) =>
        cancelTask(tx, {
          namespaceId: f.namespaceId,
          taskId: pending.id,
          credentialId: null,
        }),
      );
      const appended = (await events()).slice(before);
      assert.deepEqual(
        appended.map((e) => e.type),
        ['task.succeeded', 'task.failed', 'task.needs_review', 'task.cancelled'],
      );
      const [s, fl, r, c] = appended;
      assert.equal(s?.text.includes('"result":[1,2.50]'), true);
      assert.equal(s?.body.get('status'), 'SUCCEEDED');
      assert.equal(s?.body.get('task_id'), ok.task.id);
      assert.equal(s?.body.get('attempt_id'), ok.attemptId);
      assert.equal(
        (fl?.body.get('error') as JsonObject | undefined)?.get('code'),
        'bad_input',
        'the failed event carries the error',
      );
      assert.equal(r?.body.get('status'), 'NEEDS_REVIEW');
      assert.equal(c?.taskId, pending.id);
      assert.equal(c?.body.get('status'), 'CANCELLED');
      // The snapshot does not follow later task state: change the task row, the event stays.
      await f.db.database.kysely
        .updateTable('tasks')
        .set({ result: '"rewritten"' })
        .where('id', '=', ok.task.id)
        .execute();
      const again = (await events()).find((e) => e.taskId === ok.task.id && e.type === s?.type);
      assert.equal(again?.text, s?.text);
    });

    test('one batch appending to two streams gives each its own gap-free sequence', async () => {
      const app = await f.db.database.kysely
        .selectFrom('orbit_streams')
        .select('application_id')
        .where('name', '=', 'app')
        .executeTakeFirstOrThrow();
      const applicationId = String(app.application_id);
      await f.tx((tx) =>
        createStream(tx, f.namespaceId, {
          name: 'side',
          applicationId,
          retention: { maxAgeUs: null, maxEvents: null },
        }),
      );
      const defaultHead = await head();
      await f.submit({ resultStream: 'side' });
      await f.submit();
      await f.submit({ resultStream: 'side' });
      const claimed = await f.claim(3);
      assert.equal(claimed.length, 3);
      const results = await f.tx((tx) =>
        completeBatch(
          tx,
          claimed.map((c) => complete(c, { outcome: 'succeeded', result: parse('1') })),
        ),
      );
      assert.ok(results.every((r) => 'receipt' in r));
      const side = await f.db.database.kysely
        .selectFrom('orbit_result_events as e')
        .innerJoin('orbit_streams as s', 's.id', 'e.stream_id')
        .select(['e.seq', 'e.source_id'])
        .where('s.name', '=', 'side')
        .orderBy('e.seq')
        .execute();
      assert.deepEqual(
        side.map((r) => [Number(r.seq), String(r.source_id)]),
        [
          [1, claimed[0]?.task.id],
          [2, claimed[2]?.task.id],
        ],
      );
      assert.equal(await head(), defaultHead + 1n);
    });

    test('sequence numbers start at 1 and have no gaps; seq and at are in the body', async () => {
      const all = await events();
      assert.ok(all.length >= 5);
      all.forEach((e, i) => {
        assert.equal(e.seq, BigInt(i + 1));
        assert.equal(e.body.get('seq'), String(i + 1));
        assert.match(e.body.get('at') as string, /^\d{4}-\d\d-\d\dT/);
      });
      assert.equal(await head(), BigInt(all.length));
    });
  });
});
