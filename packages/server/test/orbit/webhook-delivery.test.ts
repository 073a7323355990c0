/**
 * The delivery steps as services (no HTTP receiver): the claim's lease keeps one batch in flight
 * per subscription across nodes, an expired lease hands the same batch to another node, a stale
 * lease's answer is recorded without disturbing the new holder, acks never move backwards, a
 * cursor behind retention turns FAILING at once, and what is not claimable is not claimed.
 * Events are written straight into the stream here; the acceptance test appends them through
 * the result transaction.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createApplication } from '../../src/orbit/create-application.js';
import { ensureNamespace } from '../../src/auth/namespaces.js';
import { getStream } from '../../src/orbit/streams.js';
import { createSubscription, getSubscription } from '../../src/orbit/subscriptions.js';
import type { ClaimedBatch } from '../../src/orbit/webhook-delivery.js';
import { claimDeliveries, recordAttempt } from '../../src/orbit/webhook-delivery.js';
import { pruneDeliveries } from '../../src/orbit/webhook-control.js';
import { DEFAULT_DELIVERY_SETTINGS } from '../../src/orbit/webhook-settings.js';
import type { Tx } from '../../src/store/with-tx.js';
import { withTx } from '../../src/store/with-tx.js';
import { createTestDatabase, forEachDialect } from '../support/databases.js';
import type { MigratedDatabase } from '../support/databases.js';

const SETTINGS = { ...DEFAULT_DELIVERY_SETTINGS, batchSize: 3, leaseMs: 60_000 };
const OK = { response: { kind: 'answered' as const, status: 204 }, durationUs: 1000n };
const FAIL = { response: { kind: 'answered' as const, status: 500 }, durationUs: 1000n };

forEachDialect((dialect) => {
  describe(`Webhook delivery steps on ${dialect}`, () => {
    let db: MigratedDatabase;
    let namespaceId: string;
    let streamId: string;
    let seq = 0;
    const run = <T>(fn: (tx: Tx) => Promise<T>) => withTx(db.database, fn);

    /** Appends `n` events to the app's default stream (frozen bodies, next_seq moved). */
    const append = (n: number) =>
      run(async (tx) => {
        for (let i = 0; i < n; i++) {
          seq++;
          await tx.db
            .insertInto('orbit_result_events')
            .values({
              stream_id: streamId,
              seq,
              namespace_id: namespaceId,
              type: 'task.succeeded',
              source_kind: 'task',
              source_id: seq,
              source_revision: 1,
              at: tx.now,
              body: `{"seq":"${seq}","type":"task.succeeded"}`,
            })
            .execute();
        }
        await tx.db
          .updateTable('orbit_streams')
          .set({ next_seq: seq + 1 })
          .where('id', '=', streamId)
          .execute();
      });

    const subscribe = (name: string, webhook = true) =>
      run(async (tx) => {
        const stream = await getStream(tx, namespaceId, 'app');
        const created = await createSubscription(tx, stream, {
          name,
          start: 'latest',
          webhookUrl: webhook ? 'http://127.0.0.1:9/hook' : null,
        });
        return created.subscription.id;
      });

    const claim = (node: string) =>
      run((tx) => claimDeliveries(tx, { nodeId: node, limit: 10, settings: SETTINGS }));
    const record = (batch: ClaimedBatch, attempt: typeof OK) =>
      run((tx) => recordAttempt(tx, batch, { ...attempt, random: 0.5, settings: SETTINGS }));
    const read = (id: string) => run((tx) => getSubscription(tx, namespaceId, id));
    const set = (id: string, values: Record<string, unknown>) =>
      run(async (tx) => {
        await tx.db.updateTable('orbit_subscriptions').set(values).where('id', '=', id).execute();
      });
    const expireLease = (id: string) =>
      run(async (tx) => {
        await tx.db
          .updateTable('orbit_subscriptions')
          .set({ lease_until: tx.now - 1n })
          .where('id', '=', id)
          .execute();
      });

    before(async () => {
      db = await createTestDatabase(dialect);
      await run(async (tx) => {
        namespaceId = (await ensureNamespace(tx, 'ns')).id;
        await createApplication(tx, namespaceId, { name: 'app', maxActiveTasks: 10 });
        streamId = (await getStream(tx, namespaceId, 'app')).id;
      });
    });
    after(() => db.close());

    test('a lease keeps one batch in flight; once it expires another node gets the same batch', async () => {
      const id = await subscribe('leased');
      await append(4);
      const [a] = await claim('node-a');
      assert.ok(a !== undefined && a.subscriptionId === id);
      assert.deepEqual(
        [a.firstSeq, a.lastSeq, a.events.length],
        [BigInt(seq - 3), BigInt(seq - 1), 3],
      );
      assert.deepEqual(await claim('node-b'), []);
      await expireLease(id);
      const [b] = await claim('node-b');
      assert.ok(b !== undefined);
      assert.deepEqual([b.firstSeq, b.events], [a.firstSeq, a.events]);
      assert.notEqual(b.leaseOwner, a.leaseOwner);

      // Node a's late 2xx still acks (the receiver has the events) but leaves b's lease alone.
      await record(a, OK);
      let sub = await read(id);
      assert.equal(sub.ackedSeq, BigInt(seq - 1));
      assert.deepEqual(await claim('node-c'), [], 'b still holds the lease');
      // Node b's failure counts, backs off and releases the lease; the cursor stays.
      await record(b, FAIL);
      sub = await read(id);
      assert.equal(sub.ackedSeq, BigInt(seq - 1));
      assert.equal(sub.consecutiveFailures, 1);
      assert.equal(sub.lastError, 'HTTP 500');
      assert.ok(sub.nextAttemptAt > sub.updatedAt, 'next attempt after a backoff');
      assert.deepEqual(await claim('node-c'), [], 'not due during the backoff');
      await set(id, { next_attempt_at: 0 });
      const [c] = await claim('node-c');
      assert.deepEqual([c?.firstSeq, c?.lastSeq], [BigInt(seq), BigInt(seq)]);
      await record(c as ClaimedBatch, OK);
      assert.deepEqual(await claim('node-c'), [], 'nothing pending after the cursor');
      sub = await read(id);
      assert.deepEqual(
        [sub.ackedSeq, sub.consecutiveFailures, sub.lastError],
        [BigInt(seq), 0, null],
      );
      await set(id, { state: 'FAILING' });
    });

    test('a late answer for an older batch never moves the cursor backwards', async () => {
      const id = await subscribe('monotonic');
      await append(2);
      const [old] = await claim('node-a');
      assert.ok(old !== undefined);
      await record(old, OK);
      await append(1);
      const [next] = await claim('node-a');
      await record(next as ClaimedBatch, OK);
      assert.equal((await read(id)).ackedSeq, BigInt(seq));
      await record(old, OK);
      assert.equal((await read(id)).ackedSeq, BigInt(seq));
      await set(id, { state: 'FAILING' });
    });

    test('FAILING, not yet due and pull subscriptions are not claimed', async () => {
      const pull = await subscribe('pull', false);
      const due = await subscribe('later');
      await set(due, { next_attempt_at: 9_000_000_000_000_000n });
      await append(1);
      assert.deepEqual(await claim('node-a'), []);
      await set(due, { next_attempt_at: 0, state: 'FAILING' });
      assert.deepEqual(await claim('node-a'), []);
      await set(due, { state: 'ACTIVE' });
      const claimed = await claim('node-a');
      assert.deepEqual(
        claimed.map((b) => b.subscriptionId),
        [due],
      );
      assert.notEqual(claimed[0]?.subscriptionId, pull);
      await set(due, { state: 'FAILING', lease_owner: null, lease_until: null });
    });

    test('a batch stops at maxBatchBytes, but a single larger event still goes alone', async () => {
      const id = await subscribe('bytes');
      await append(3);
      const small = { ...SETTINGS, maxBatchBytes: 60 };
      const [first] = await run((tx) =>
        claimDeliveries(tx, { nodeId: 'a', limit: 10, settings: small }),
      );
      // Each body is about 40 bytes: one fits in 60, two do not.
      assert.deepEqual(
        [first?.firstSeq, first?.lastSeq, first?.events.length],
        [BigInt(seq - 2), BigInt(seq - 2), 1],
      );
      await record(first as ClaimedBatch, OK);
      const tiny = { ...SETTINGS, maxBatchBytes: 1 };
      const [second] = await run((tx) =>
        claimDeliveries(tx, { nodeId: 'a', limit: 10, settings: tiny }),
      );
      assert.deepEqual([second?.firstSeq, second?.events.length], [BigInt(seq - 1), 1]);
      await record(second as ClaimedBatch, OK);
      await set(id, { state: 'FAILING' });
    });

    test('the delivery log keeps the newest attempts of each subscription', async () => {
      const id = await subscribe('log');
      const other = await subscribe('other-log');
      await run(async (tx) => {
        for (const sub of [id, other, id, id, other, id]) {
          await tx.db
            .insertInto('orbit_deliveries')
            .values({
              namespace_id: namespaceId,
              subscription_id: sub,
              first_seq: 1,
              last_seq: 1,
              outcome: 'FAILED',
              http_status: 500,
              error: 'HTTP 500',
              duration_us: 1,
              at: tx.now,
            })
            .execute();
        }
      });
      const ids = (sub: string) =>
        run(async (tx) =>
          (
            await tx.db
              .selectFrom('orbit_deliveries')
              .select('id')
              .where('subscription_id', '=', sub)
              .orderBy('id')
              .execute()
          ).map((r) => String(r.id)),
        );
      const before = await ids(id);
      assert.equal(await run((tx) => pruneDeliveries(tx, id, 2)), 2);
      assert.deepEqual(await ids(id), before.slice(2));
      assert.equal((await ids(other)).length, 2);
      assert.equal(await run((tx) => pruneDeliveries(tx, id, 2)), 0);
      await set(id, { state: 'FAILING' });
      await set(other, { state: 'FAILING' });
    });

    test('a cursor behind retention turns the subscription FAILING at once, naming the gap', async () => {
      const id = await subscribe('expired');
      await append(3);
      await run(async (tx) => {
        await tx.db
          .deleteFrom('orbit_result_events')
          .where('stream_id', '=', streamId)
          .where('seq', '<=', seq - 1)
          .execute();
        await tx.db
          .updateTable('orbit_streams')
          .set({ earliest_seq: seq })
          .where('id', '=', streamId)
          .execute();
      });
      const [batch] = await claim('node-a');
      assert.ok(batch?.expired !== undefined);
      assert.deepEqual(batch.events, []);
      await record(batch, {
        response: { kind: 'failed', error: batch.expired },
        durationUs: 0n,
      } as never);
      const sub = await read(id);
      assert.equal(sub.state, 'FAILING');
      assert.match(sub.lastError ?? '', /^cursor_expired: events \d+ to \d+ were removed/);
    });
  });
});

forEachDialect((dialect) => {
  if (dialect !== 'mysql') {
    return; // SQLite serialises whole transactions: there is no concurrent claim to skip.
  }
  describe('Webhook claims on mysql under concurrency', () => {
    let db: MigratedDatabase;
    before(async () => {
      db = await createTestDatabase(dialect);
    });
    after(() => db.close());

    test('a claim running while another holds the row lock skips it instead of waiting', async () => {
      const { namespaceId, id } = await withTx(db.database, async (tx) => {
        const ns = await ensureNamespace(tx, 'ns');
        await createApplication(tx, ns.id, { name: 'app', maxActiveTasks: 10 });
        const stream = await getStream(tx, ns.id, 'app');
        const created = await createSubscription(tx, stream, {
          name: 'race',
          start: 'earliest',
          webhookUrl: 'http://127.0.0.1:9/hook',
        });
        await tx.db
          .insertInto('orbit_result_events')
          .values({
            stream_id: stream.id,
            seq: 1,
            namespace_id: ns.id,
            type: 'task.succeeded',
            source_kind: 'task',
            source_id: 1,
            source_revision: 1,
            at: tx.now,
            body: '{"seq":"1"}',
          })
          .execute();
        await tx.db
          .updateTable('orbit_streams')
          .set({ next_seq: 2 })
          .where('id', '=', stream.id)
          .execute();
        return { namespaceId: ns.id, id: created.subscription.id };
      });
      let inner: ClaimedBatch[] | undefined;
      const outer = await withTx(db.database, async (tx) => {
        const mine = await claimDeliveries(tx, { nodeId: 'a', limit: 5, settings: SETTINGS });
        // Still inside a's transaction (row locked, lease not committed): b must not wait.
        const started = Date.now();
        inner = await withTx(db.database, (tx2) =>
          claimDeliveries(tx2, { nodeId: 'b', limit: 5, settings: SETTINGS }),
        );
        assert.ok(Date.now() - started < 2_000);
        return mine;
      });
      assert.deepEqual(
        outer.map((b) => b.subscriptionId),
        [id],
      );
      assert.deepEqual(inner, []);
      const sub = await withTx(db.database, (tx) => getSubscription(tx, namespaceId, id));
      assert.equal(sub.id, id);
    });
  });
});
