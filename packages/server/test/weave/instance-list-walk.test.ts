/**
 * The instance list stays stable while instances are created (issue 12 Deliver 4 and its
 * acceptance), on SQLite and MariaDB: 1,000 instances are started through real HTTP Starts, 8 at
 * a time, while two clients walk the list page by page (every status, and two statuses merged).
 * Every instance that existed when a walk began is returned exactly once, nothing is returned
 * twice, and the walk's order is strictly newest first by (created_at, id).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { WeaveClient } from '@weave/sdk';
import type { instances } from '@weave/sdk/protocol';
import { forEachDialect } from '../support/databases.js';
import { startTestServer } from '../support/servers.js';
import type { TestServer } from '../support/servers.js';
import { waitFor } from '../support/wait-for.js';

const NAP = {
  schema_version: 1,
  name: 'nap',
  steps: [{ id: 'nap', kind: 'TIMER', duration: 'PT1H' }],
};

const EARLIER = 150;
const DURING = 1000;
const CONCURRENCY = 8;
const PAGE_SIZE = 10;

async function startMany(client: WeaveClient, count: number, progress: { done: number }) {
  let next = 0;
  const lane = async () => {
    while (next < count) {
      next += 1;
      await client.instances.start('nap', { input: {}, application: 'app' });
      progress.done += 1;
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, lane));
}

async function walk(client: WeaveClient, status?: string): Promise<instances.InstanceSummary[]> {
  const seen: instances.InstanceSummary[] = [];
  for await (const instance of client.instances.listAll({
    page_size: PAGE_SIZE,
    ...(status === undefined ? {} : { status }),
  })) {
    seen.push(instance);
  }
  return seen;
}

function assertNewestFirst(items: readonly instances.InstanceSummary[]): void {
  for (let i = 1; i < items.length; i += 1) {
    const a = items[i - 1];
    const b = items[i];
    assert.ok(a && b);
    const newer =
      a.created_at > b.created_at || (a.created_at === b.created_at && BigInt(a.id) > BigInt(b.id));
    assert.ok(newer, `item ${i - 1} (${a.id}) is newer than item ${i} (${b.id})`);
  }
}

forEachDialect((dialect) => {
  describe(`instance list walk during Starts on ${dialect}`, () => {
    let t: TestServer;

    before(async () => {
      t = await startTestServer(dialect, { sweepIntervalMs: false, scheduleIntervalMs: false });
      await t.admin.workflows.publish(NAP);
      await startMany(t.admin, EARLIER, { done: 0 });
    });
    after(() => t.close());

    test(`a walk returns every instance that existed when it began exactly once while ${DURING} more are started`, async () => {
      const progress = { done: 0 };
      const creating = startMany(t.admin, DURING, progress);
      await waitFor(() => progress.done >= 50 || undefined, {
        timeoutMs: 60_000,
        intervalMs: 5,
        what: 'the first Starts of the run',
      });
      const db = t.server.database.kysely;
      const existing = (await db.selectFrom('weave_instances').select('id').execute()).map((r) =>
        String(r.id),
      );
      const doneAtStart = progress.done;
      const reader = t.clientFor('ns', t.adminKey);
      const [all, merged] = await Promise.all([walk(reader), walk(reader, 'RUNNING,WAITING')]);
      const doneAtEnd = progress.done;
      await creating;

      assert.ok(
        doneAtEnd > doneAtStart,
        `Starts committed during the walk (${doneAtStart} → ${doneAtEnd})`,
      );
      assert.ok(existing.length >= EARLIER + 50);
      for (const [label, items] of [
        ['every status', all],
        ['RUNNING,WAITING', merged],
      ] as const) {
        const ids = items.map((i) => i.id);
        assert.equal(new Set(ids).size, ids.length, `${label}: no instance twice`);
        const counts = new Map<string, number>();
        for (const id of ids) {
          counts.set(id, (counts.get(id) ?? 0) + 1);
        }
        const missing = existing.filter((id) => counts.get(id) !== 1);
        assert.deepEqual(missing, [], `${label}: every instance that existed is returned once`);
        assertNewestFirst(items);
      }
      const total = await db
        .selectFrom('weave_instances')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      assert.equal(Number(total.n), EARLIER + DURING);
    });
  });
});
