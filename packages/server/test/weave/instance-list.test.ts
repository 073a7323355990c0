/**
 * The instance list over HTTP (issue 12 Deliver 4), on SQLite and MariaDB: newest first, each
 * filter alone and combined, business keys as exact bytes (A4.2), page by page, the rights of
 * A3.6 (an instance whose pinned version uses a queue the key may not use is not listed), and
 * bad filters as 400 naming the query parameter.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { WeaveClient } from '@weave/sdk';
import type { instances } from '@weave/sdk/protocol';
import { forEachDialect } from '../support/databases.js';
import { refusal } from '../support/refusal.js';
import { startTestServer } from '../support/servers.js';
import type { TestServer } from '../support/servers.js';

const NAP = {
  schema_version: 1,
  name: 'nap',
  steps: [{ id: 'nap', kind: 'TIMER', duration: 'PT1H' }],
};
const CHARGE = (queue: string) => ({
  schema_version: 1,
  name: `charge-${queue}`,
  steps: [{ id: 'charge', kind: 'TASK', queue, input: {} }],
});

const SUMMARY_KEYS = [
  'business_key',
  'created_at',
  'deadline_at',
  'id',
  'paused',
  'revision',
  'status',
  'version',
  'workflow',
];

forEachDialect((dialect) => {
  describe(`instance list on ${dialect}`, () => {
    let t: TestServer;
    let client: WeaveClient;
    /** Every instance started, oldest first. */
    const started: { id: string; workflow: string; version: number; key: string | null }[] = [];

    async function start(workflow: string, key: string | null, version?: number) {
      const { instance } = await client.instances.start(workflow, {
        input: {},
        application: 'app',
        ...(key === null ? {} : { business_key: key }),
        ...(version === undefined ? {} : { version }),
      });
      started.push({ id: instance.id, workflow, version: instance.version, key });
      return instance;
    }

    const ids = (items: readonly instances.InstanceSummary[]) => items.map((i) => i.id);
    const newestFirst = (which: (s: (typeof started)[number]) => boolean) =>
      started
        .filter(which)
        .map((s) => s.id)
        .reverse();

    before(async () => {
      t = await startTestServer(dialect, { sweepIntervalMs: false, scheduleIntervalMs: false });
      client = t.admin;
      await client.createQueue({ name: 'q2', application: 'app' });
      await client.workflows.publish(NAP);
      await client.workflows.publish(CHARGE('q1'));
      await client.workflows.publish(CHARGE('q2'));
      for (let i = 0; i < 4; i += 1) {
        await start('nap', `k-${i % 2}`, 1);
      }
      await client.workflows.publish({ ...NAP, steps: [{ ...NAP.steps[0], duration: 'PT2H' }] });
      await start('nap', 'k-0', 2);
      await start('nap', 'k-0 ');
      await start('nap', 'K-0');
      await start('nap', null);
      await start('charge-q1', 'k-0');
      await start('charge-q2', 'k-0');
    });
    after(() => t.close());

    test('lists every instance newest first, each row the summary without input or output', async () => {
      const { items, next_page_token } = await client.instances.list();
      assert.deepEqual(
        ids(items),
        newestFirst(() => true),
      );
      assert.equal(next_page_token, undefined);
      for (const item of items) {
        assert.deepEqual(
          Object.keys(item)
            .filter((k) => k !== 'finished_at')
            .sort(),
          SUMMARY_KEYS,
        );
      }
      const nap = items.find((i) => i.id === started[0]?.id);
      assert.equal(nap?.workflow, 'nap');
      assert.equal(nap?.version, 1);
      assert.equal(nap?.status, 'WAITING');
      assert.equal(nap?.business_key, 'k-0');
      assert.equal(nap?.paused, false);
      const { instance } = await client.instances.get(nap?.id ?? '');
      assert.equal(nap?.revision, instance.revision);
      assert.equal(nap?.created_at, instance.created_at);
      assert.equal(nap?.deadline_at, instance.deadline_at);
    });

    test('filters by workflow, by workflow and version, by status (one or a comma list) and combined', async () => {
      const list = async (filter: Parameters<WeaveClient['instances']['list']>[0]) =>
        ids((await client.instances.list(filter)).items);
      assert.deepEqual(
        await list({ workflow: 'nap' }),
        newestFirst((s) => s.workflow === 'nap'),
      );
      assert.deepEqual(
        await list({ workflow: 'nap', version: 2 }),
        newestFirst((s) => s.workflow === 'nap' && s.version === 2),
      );
      assert.equal((await list({ workflow: 'nap', version: 2 })).length, 4);
      assert.deepEqual(await list({ workflow: 'nope' }), [], 'an unknown workflow matches nothing');
      assert.deepEqual(
        await list({ status: 'RUNNING' }),
        newestFirst((s) => s.workflow.startsWith('charge')),
      );
      assert.deepEqual(
        await list({ status: 'WAITING,RUNNING' }),
        newestFirst(() => true),
        'several statuses are merged newest first',
      );
      assert.deepEqual(await list({ status: 'SUCCEEDED,FAILED' }), []);
      assert.deepEqual(
        await list({ workflow: 'nap', status: 'WAITING', business_key: 'k-1' }),
        newestFirst((s) => s.key === 'k-1'),
      );
    });

    test('[A4.2] the business key matches exact bytes: a trailing space or another case is another key', async () => {
      const byKey = async (key: string) =>
        ids((await client.instances.list({ business_key: key })).items);
      assert.deepEqual(
        await byKey('k-0'),
        newestFirst((s) => s.key === 'k-0'),
      );
      assert.deepEqual(
        await byKey('k-0 '),
        newestFirst((s) => s.key === 'k-0 '),
      );
      assert.deepEqual(
        await byKey('K-0'),
        newestFirst((s) => s.key === 'K-0'),
      );
      assert.equal((await byKey('k-0 ')).length, 1);
      assert.deepEqual(await byKey('k-'), []);
    });

    test('filters by creation time: created_after and created_before are exclusive', async () => {
      const { items } = await client.instances.list();
      const oldestFirst = [...items].reverse();
      const third = oldestFirst[2];
      const eighth = oldestFirst[7];
      assert.ok(third && eighth);
      const between = await client.instances.list({
        created_after: third.created_at,
        created_before: eighth.created_at,
      });
      const expected = oldestFirst
        .filter((i) => i.created_at > third.created_at && i.created_at < eighth.created_at)
        .map((i) => i.id)
        .reverse();
      assert.deepEqual(ids(between.items), expected);
      assert.ok(expected.length >= 1);
      const since = await client.instances.list({
        created_after: eighth.created_at,
        status: 'RUNNING',
      });
      assert.ok(
        since.items.every((i) => i.created_at > eighth.created_at && i.status === 'RUNNING'),
      );
    });

    test('pages of page_size follow each other through next_page_token, each instance once', async () => {
      const seen: string[] = [];
      let token: string | undefined;
      let pages = 0;
      do {
        const page = await client.instances.list({
          page_size: 3,
          ...(token === undefined ? {} : { page_token: token }),
        });
        assert.ok(page.items.length <= 3);
        seen.push(...ids(page.items));
        token = page.next_page_token;
        pages += 1;
      } while (token !== undefined);
      assert.equal(pages, Math.ceil(started.length / 3));
      assert.deepEqual(
        seen,
        newestFirst(() => true),
      );
      const all: string[] = [];
      for await (const instance of client.instances.listAll({ workflow: 'nap', page_size: 2 })) {
        all.push(instance.id);
      }
      assert.deepEqual(
        all,
        newestFirst((s) => s.workflow === 'nap'),
      );
    });

    test('[A3.6] a key limited to some queues lists only instances whose pinned version uses no other queue', async () => {
      const { key } = await client.createCredential({
        name: 'q1-reader',
        scopes: ['workflows:read'],
        queues: ['q1'],
      });
      assert.ok(key);
      const reader = t.clientFor('ns', key);
      assert.deepEqual(
        ids((await reader.instances.list()).items),
        newestFirst((s) => s.workflow !== 'charge-q2'),
      );
      assert.deepEqual(ids((await reader.instances.list({ workflow: 'charge-q2' })).items), []);
      const all = await t.keyWith('ns', ['workflows:read']);
      assert.equal(
        (await t.clientFor('ns', all).instances.list()).items.length,
        started.length,
        'a key over every queue sees them all',
      );
      const publisher = t.clientFor('ns', await t.keyWith('ns', ['workflows:publish']));
      const denied = await refusal(publisher.instances.list());
      assert.equal(denied.status, 403);
      const other = t.clientFor('other', await t.keyWith('other', ['admin']));
      assert.deepEqual((await other.instances.list()).items, [], 'another namespace sees none');
    });

    test('a bad filter is 400 invalid_argument naming the query parameter, and changes nothing', async () => {
      const cases: [Record<string, string | number>, string][] = [
        [{ status: 'SLEEPING' }, '$.status'],
        [{ status: 'RUNNING,' }, '$.status'],
        [{ status: 'running' }, '$.status'],
        [{ version: 1 }, '$.version'],
        [{ workflow: 'nap', version: 0 }, '$.version'],
        [{ workflow: 'no spaces' }, '$.workflow'],
        [{ business_key: 'x'.repeat(192) }, '$.business_key'],
        [{ created_after: 'yesterday' }, '$.created_after'],
        [{ created_before: '2026-13-01T00:00:00Z' }, '$.created_before'],
        [{ page_size: 0 }, '$.page_size'],
        [{ page_token: 'aWQ6NDI' }, '$.page_token'],
      ];
      for (const [query, path] of cases) {
        const e = await refusal(client.request('GET', '/instances', { query }));
        assert.equal(e.status, 400, path);
        assert.equal(e.code, 'invalid_argument', path);
        assert.equal(e.details.path, path);
      }
      const ok = await client.instances.list({ business_key: 'x'.repeat(191) });
      assert.deepEqual(ok.items, [], 'a 191-character key is allowed');
    });
  });
});
