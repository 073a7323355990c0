/**
 * `submitOwnedTasks` (runtime.md §2.3): the tasks of a workflow round, many at once, each owned
 * by its activation (E1.3), admitted under one lock per application, all or nothing (A1.7).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { submitOwnedTasks } from '../../src/pulse/submit-owned.js';
import { forEachDialect } from '../support/databases.js';
import { createPulseFixture, ownedTaskSpecs } from '../support/pulse.js';
import type { PulseFixture } from '../support/pulse.js';

forEachDialect((dialect) => {
  describe(`owned tasks of a workflow round on ${dialect}`, () => {
    let f: PulseFixture;
    before(async () => {
      f = await createPulseFixture(dialect, { maxActiveTasks: 12, capacity: 6 });
    });
    after(() => f.close());

    const specs = (n: number, input?: (i: number) => string) => ownedTaskSpecs(f, n, input);

    test('creates every task in the order given, owned, PENDING at revision 1 with its raw event', async () => {
      const given = await specs(4, (i) => `{"i":${i},"big":12345678901234567890}`);
      const events = await f.count('task_events');
      const tasks = await f.tx((tx) => submitOwnedTasks(tx, f.namespaceId, given));
      assert.deepEqual(
        tasks.map((t) => [t.ownerKind, t.ownerId, t.status, t.revision]),
        given.map((s) => ['workflow_activation', s.owner.id, 'PENDING', 1n]),
      );
      assert.deepEqual(
        tasks.map((t) => t.input),
        given.map((s) => s.input),
      );
      assert.equal(await f.count('task_events'), events + 4);
      const claimed = await f.claim(4);
      assert.equal(claimed.length, 4);
    });

    test('[A1.7] a batch over the queue capacity is refused whole: queue_full, nothing written', async () => {
      const tasks = await f.count('tasks');
      const given = await specs(7);
      await assert.rejects(
        f.tx((tx) => submitOwnedTasks(tx, f.namespaceId, given)),
        { code: 'queue_full' },
      );
      assert.equal(await f.count('tasks'), tasks);
    });

    test('[A1.7] a batch over the application quota is refused whole: quota_exceeded', async () => {
      const tasks = await f.count('tasks');
      // 4 are active (claimed above) and the quota is 12: 6 more fit; then 3 more would be 13.
      const fits = await specs(6);
      await f.tx((tx) => submitOwnedTasks(tx, f.namespaceId, fits));
      const over = await specs(3);
      await assert.rejects(
        f.tx((tx) => submitOwnedTasks(tx, f.namespaceId, over)),
        { code: 'quota_exceeded' },
      );
      assert.equal(await f.count('tasks'), tasks + 6);
    });

    test('an empty batch admits nothing and writes nothing', async () => {
      const tasks = await f.count('tasks');
      assert.deepEqual(await f.tx((tx) => submitOwnedTasks(tx, f.namespaceId, [])), []);
      assert.equal(await f.count('tasks'), tasks);
    });
  });
});
