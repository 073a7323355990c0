/**
 * A submit whose body is the task input itself (`{"to": "a@b.c"}`, no `input` member) is told
 * that the input goes under `input`, not only that `to` is unknown (issue 10, item 6).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { WeaveClient } from '@weave/sdk';
import { forEachDialect } from '../support/databases.js';
import { startTestServer } from '../support/servers.js';
import type { TestServer } from '../support/servers.js';
import { refusal } from '../support/refusal.js';

forEachDialect((dialect) => {
  describe(`submit bodies on ${dialect}`, () => {
    let t: TestServer;
    let client: WeaveClient;
    before(async () => {
      t = await startTestServer(dialect, { sweepIntervalMs: false, scheduleIntervalMs: false });
      client = t.clientFor('ns', await t.keyWith('ns', ['tasks:submit']));
    });
    after(() => t.close());

    test('a submit whose body looks like a bare input says that the input goes under "input"', async () => {
      const bare = await refusal(
        client.request('POST', '/queues/q1/tasks', { body: { to: 'a@b.c' } }),
      );
      assert.equal(bare.status, 400);
      assert.equal(bare.code, 'invalid_argument');
      assert.equal(bare.details.path, '$.to');
      assert.match(bare.message, /^\$\.to is not a known field; .*"input": \{"input"/);

      const withInput = await refusal(
        client.request('POST', '/queues/q1/tasks', { body: { input: {}, to: 'a@b.c' } }),
      );
      assert.equal(withInput.code, 'invalid_argument');
      assert.equal(withInput.details.path, '$.to');
      assert.equal(withInput.message, '$.to is not a known field');

      const empty = await refusal(client.request('POST', '/queues/q1/tasks', { body: {} }));
      assert.equal(empty.details.path, '$.input');
      const count = await t.server.database.kysely
        .selectFrom('tasks')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow();
      assert.equal(Number(count.n), 0, 'nothing was submitted');
    });
  });
});
