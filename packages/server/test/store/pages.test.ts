/** Keyset pages: store/pages.ts readPage, the one helper every list service pages with. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createQueue, listQueues } from '../../src/pulse/queues.js';
import { readPage } from '../../src/store/pages.js';
import type { PageRequest } from '../../src/store/pages.js';
import { toId } from '../../src/store/values.js';
import { forEachDialect } from '../support/databases.js';
import { createPulseFixture } from '../support/pulse.js';
import type { PulseFixture } from '../support/pulse.js';
import { serverSources } from '../support/sources.js';

/** The six list services: each pages through readPage. */
const LISTS: Readonly<Record<string, string>> = {
  'pulse/queues.ts': 'listQueues',
  'pulse/list-tasks.ts': 'listTasks',
  'pulse/schedules.ts': 'listSchedules',
  'orbit/streams.ts': 'listStreams',
  'orbit/subscriptions.ts': 'listSubscriptions',
  'orbit/webhook-control.ts': 'listDeliveries',
};

test('keyset paging: one helper in store/ serves every list (no service reads size + 1 itself)', () => {
  const sources = serverSources();
  for (const [path, list] of Object.entries(LISTS)) {
    const file = sources.find((s) => s.path === path);
    assert.ok(file !== undefined, path);
    assert.ok(file.text.includes(`export async function ${list}(`), `${path} lists ${list}`);
    assert.match(file.text, /\breadPage\(/, `${path} pages with readPage`);
  }
  const own = sources.filter(
    (s) =>
      !s.path.startsWith('store/') && /\bsize \+ 1\b|nextAfterId:|nextBeforeId: rows/.test(s.text),
  );
  assert.deepEqual(
    own.map((s) => s.path),
    [],
    'no service outside store/ does the size + 1 read and slice itself',
  );
});

forEachDialect((dialect) => {
  describe(`keyset pages on ${dialect}`, () => {
    let f: PulseFixture;
    let ids: string[];
    before(async () => {
      f = await createPulseFixture(dialect);
      await f.tx(async (tx) => {
        for (const name of ['second', 'third']) {
          await createQueue(tx, f.namespaceId, { name, application: 'app', capacity: 10 });
        }
      });
      const all = await f.tx((tx) =>
        listQueues(tx, f.namespaceId, { afterId: undefined, size: 10 }),
      );
      ids = all.items.map((q) => q.id);
    });
    after(() => f.close());

    const page = (request: PageRequest, descending = false) =>
      f.tx((tx) =>
        readPage(
          tx.db.selectFrom('queues').select('id').where('namespace_id', '=', f.namespaceId),
          request,
          { column: 'id', toItem: (r) => toId(r.id), idOf: (id) => id, descending },
        ),
      );

    test('keyset paging: one helper in store/ serves every list — N+1 items at size N give a token, the rest follows', async () => {
      assert.equal(ids.length, 3);
      const first = await page({ size: 2 });
      assert.deepEqual(first.items, ids.slice(0, 2));
      assert.equal(first.nextAfterId, ids[1]);
      const rest = await page({ afterId: first.nextAfterId, size: 2 });
      assert.deepEqual(rest.items, ids.slice(2));
      assert.equal(rest.nextAfterId, undefined, 'the last page has no token');
      const exact = await page({ size: 3 });
      assert.deepEqual([exact.items, exact.nextAfterId], [ids, undefined], 'exactly N: no token');
    });

    test('newest first pages downwards from the token', async () => {
      const first = await page({ size: 2 }, true);
      assert.deepEqual(first.items, [...ids].reverse().slice(0, 2));
      const rest = await page({ afterId: first.nextAfterId, size: 2 }, true);
      assert.deepEqual(rest.items, ids.slice(0, 1));
      assert.equal(rest.nextAfterId, undefined);
    });

    test('a list service pages through it: listQueues by two', async () => {
      const first = await f.tx((tx) =>
        listQueues(tx, f.namespaceId, { afterId: undefined, size: 2 }),
      );
      const rest = await f.tx((tx) =>
        listQueues(tx, f.namespaceId, { afterId: first.nextAfterId, size: 2 }),
      );
      assert.deepEqual(
        [...first.items, ...rest.items].map((q) => q.id),
        ids,
      );
      assert.equal(rest.nextAfterId, undefined);
    });
  });
});
