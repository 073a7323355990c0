/**
 * Schedules over HTTP through the SDK (validation paths, scopes, queue-limited keys, idempotent
 * create, pause/resume/delete) and a slot firing across a real server restart — and, on the
 * same database, across two nodes at once.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { WeaveClient } from '@weave/sdk';
import type { CreateScheduleInput } from '@weave/sdk';
import { bootstrap } from '../../src/cli/bootstrap.js';
import { parseCron } from '../../src/pulse/cron.js';
import { nextSlotAfter } from '../../src/pulse/cron-zone.js';
import type { Server } from '../../src/server.js';
import { withTx } from '../../src/store/with-tx.js';
import { createEmptyDatabase, forEachDialect, openTestDatabase } from '../support/databases.js';
import type { TestDatabase } from '../support/databases.js';
import { startServer, startTestServer } from '../support/servers.js';
import type { TestServer } from '../support/servers.js';
import { waitFor } from '../support/wait-for.js';

const HOURLY: CreateScheduleInput = {
  name: 'hourly',
  queue: 'q1',
  cron: '0 * * * *',
  timezone: 'Europe/Berlin',
  task: { input: { report: 'daily' }, timeout: 'PT1H' },
};

async function rejectsAt(p: Promise<unknown>, code: string, path: string): Promise<void> {
  await assert.rejects(p, (e: { code?: string; details?: Record<string, unknown> }) => {
    assert.equal(e.code, code);
    assert.equal(e.details?.path, path);
    return true;
  });
}

forEachDialect((dialect) => {
  describe(`schedules over HTTP on ${dialect}`, () => {
    let t: TestServer;
    let client: WeaveClient;
    before(async () => {
      t = await startTestServer(dialect, { sweepIntervalMs: false });
      client = t.clientFor('ns', await t.keyWith('ns', ['tasks:submit', 'tasks:read']));
    });
    after(() => t.close());

    test('creation errors name the field in details.path and write nothing', async () => {
      const bad: [Record<string, unknown>, string][] = [
        [{ task: { priority: 1 } }, '$.task.input'],
        [{ task: { input: 1, deadline_at: '2030-01-01T00:00:00Z' } }, '$.task.deadline_at'],
        [{ task: { input: 1, retry: { max_attempts: 0 } } }, '$.task.retry.max_attempts'],
        [{ overlap: 'sometimes' }, '$.overlap'],
        [{ catch_up: 'every' }, '$.catch_up'],
        [{ cron: '0 * * * MOON' }, '$.cron'],
        [{ cron: '0 0 30 2 *' }, '$.cron'],
        [{ name: 'Bad Name' }, '$.name'],
        [{ timezone: 'Europe/Atlantis' }, '$.timezone'],
        [{ extra: true }, '$.extra'],
      ];
      for (const [patch, path] of bad) {
        const body = { ...HOURLY, name: 'bad', ...patch } as CreateScheduleInput;
        await rejectsAt(client.createSchedule(body), 'invalid_argument', path);
      }
      await rejectsAt(
        client.createSchedule({ ...HOURLY, queue: 'missing' }),
        'not_found',
        '$.queue',
      );
      assert.deepEqual((await client.listSchedules()).items, []);
    });

    test('create is idempotent by key; get, list, pause, resume and delete', async () => {
      const first = await client.requestRaw('POST', '/schedules', {
        body: { ...HOURLY },
        idempotencyKey: 'sched-1',
      });
      assert.equal(first.status, 201);
      const again = await client.requestRaw('POST', '/schedules', {
        body: { ...HOURLY },
        idempotencyKey: 'sched-1',
      });
      assert.equal(again.headers.get('idempotent-replayed'), 'true');
      await assert.rejects(client.createSchedule(HOURLY), { code: 'already_exists' });
      const { schedule } = await client.getSchedule('hourly');
      assert.equal(schedule.timezone, 'Europe/Berlin');
      assert.equal(schedule.overlap, 'skip');
      assert.equal(schedule.catch_up, 'none');
      assert.equal(schedule.task.timeout, 'PT3600S');
      assert.match(schedule.next_slot_at ?? '', /^\d{4}-\d\d-\d\dT\d\d:00:00\.000000Z$/);
      assert.deepEqual(
        (await client.listSchedules()).items.map((s) => s.name),
        ['hourly'],
      );
      assert.equal((await client.pauseSchedule('hourly')).schedule.paused, true);
      assert.equal((await client.resumeSchedule('hourly')).schedule.paused, false);
      await client.deleteSchedule('hourly');
      await assert.rejects(client.getSchedule('hourly'), { code: 'not_found' });
    });

    test('scopes and queue-limited credentials are respected', async () => {
      await client.createSchedule({ ...HOURLY, name: 'scoped' });
      const reader = t.clientFor('ns', await t.keyWith('ns', ['tasks:read']));
      assert.equal((await reader.getSchedule('scoped')).schedule.name, 'scoped');
      await assert.rejects(reader.pauseSchedule('scoped'), { code: 'permission_denied' });
      await assert.rejects(reader.createSchedule({ ...HOURLY, name: 'nope' }), {
        code: 'permission_denied',
      });
      await t.admin.createQueue({ name: 'other', application: 'app' });
      const limited = await t.admin.createCredential({
        name: 'limited',
        scopes: ['tasks:submit', 'tasks:read'],
        queues: ['other'],
      });
      const other = t.clientFor('ns', limited.key ?? '');
      await assert.rejects(other.getSchedule('scoped'), { code: 'permission_denied' });
      await assert.rejects(other.deleteSchedule('scoped'), { code: 'permission_denied' });
      await assert.rejects(other.createSchedule({ ...HOURLY, name: 'nope' }), {
        code: 'permission_denied',
      });
      assert.deepEqual((await other.listSchedules()).items, []);
    });
  });

  describe(`a schedule across a server restart on ${dialect}`, () => {
    let db: TestDatabase;
    before(async () => {
      db = await createEmptyDatabase(dialect);
    });
    after(() => db.drop());

    const start = () =>
      startServer({
        db: db.url,
        port: 0,
        logLevel: false,
        sweepIntervalMs: false,
        scheduleIntervalMs: 20,
      });

    /** Moves the schedule's next slot to its latest past slot (as if the server was down then). */
    async function moveToPastSlot(): Promise<bigint> {
      const database = openTestDatabase(db.url);
      try {
        return await withTx(database, async (tx) => {
          const slot = nextSlotAfter(parseCron('0 * * * *'), 'UTC', tx.now - 3_600_000_000n) ?? 0n;
          await tx.db.updateTable('schedules').set({ next_slot_at: slot }).execute();
          return slot;
        });
      } finally {
        await database.close();
      }
    }

    async function firingsOf(server: Server, slot: bigint) {
      return server.database.kysely
        .selectFrom('schedule_firings')
        .selectAll()
        .where('slot_at', '=', slot)
        .execute();
    }

    test('a slot that fell due while the server was down fires exactly once after restart', async () => {
      const first = await start();
      const { key } = await bootstrap(first.database, {
        namespace: 'ns',
        application: 'app',
        queues: ['q1'],
        scopes: ['tasks:submit', 'tasks:read'],
        credentialName: 'test',
      });
      const client = new WeaveClient({ url: first.url, namespace: 'ns', apiKey: key });
      await client.createSchedule({ ...HOURLY, timezone: 'UTC', catch_up: 'latest' });
      await first.stop();
      const slot = await moveToPastSlot();
      // Two nodes on one database on MariaDB; the restarted single node on SQLite.
      const nodes = await Promise.all(dialect === 'mysql' ? [start(), start()] : [start()]);
      const [node] = nodes;
      assert.ok(node);
      let tasks: { input: string }[] = [];
      let firings: { outcome: string }[] = [];
      try {
        await waitFor(async () => (await firingsOf(node, slot)).length > 0, { what: 'the firing' });
        await waitFor(
          async () => {
            const row = await node.database.kysely
              .selectFrom('schedules')
              .select('next_slot_at')
              .executeTakeFirst();
            return row !== undefined && BigInt(row.next_slot_at ?? 0) > slot;
          },
          { what: 'the schedule to advance' },
        );
        tasks = await node.database.kysely.selectFrom('tasks').select('input').execute();
        firings = await firingsOf(node, slot);
      } finally {
        await Promise.all(nodes.map((n) => n.stop()));
      }
      assert.equal(tasks.length, 1);
      assert.equal(tasks[0]?.input, '{"report":"daily"}');
      assert.deepEqual(
        firings.map((f) => f.outcome),
        ['SUBMITTED'],
      );
    });
  });
});
