/**
 * `details.path` is always a JSON path (issue 10, item 6): whatever names the field — a body
 * member, a query parameter, a path parameter, the Idempotency-Key header, or a service deep
 * below the route — the client gets `$.…`, never a bare name. And a missing application in
 * `POST /queues` is `not_found` at `$.application`, as in the stream routes.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { WeaveClient } from '@weave/sdk';
import { WeaveError, invalidArgument, notFound } from '../../src/errors.js';
import { forEachDialect } from '../support/databases.js';
import { startTestServer } from '../support/servers.js';
import type { TestServer } from '../support/servers.js';
import { refusal } from '../support/refusal.js';

describe('details.path is always a JSON path', () => {
  test('a bare name given by a service becomes a JSON path; a JSON path stays', () => {
    assert.equal(notFound('task 1', { path: 'task_id' }).details.path, '$.task_id');
    assert.equal(invalidArgument('status', 'is bad').details.path, '$.status');
    assert.equal(invalidArgument('status', 'is bad').message, '$.status is bad');
    assert.equal(
      new WeaveError('invalid_argument', 'x', { details: { path: 'Idempotency-Key' } }).details
        .path,
      "$['Idempotency-Key']",
    );
    assert.equal(
      invalidArgument('$.retry.max_attempts', 'is bad').details.path,
      '$.retry.max_attempts',
    );
  });
});

forEachDialect((dialect) => {
  describe(`error paths over HTTP on ${dialect}`, () => {
    let t: TestServer;
    let client: WeaveClient;
    before(async () => {
      t = await startTestServer(dialect, { sweepIntervalMs: false, scheduleIntervalMs: false });
      client = t.admin;
    });
    after(() => t.close());

    test('details.path is always a JSON path ($.status, not status), wherever the field is', async () => {
      const cases: [() => Promise<unknown>, number, string][] = [
        [() => client.request('GET', '/tasks', { query: { status: 'SLEEPING' } }), 400, '$.status'],
        [() => client.request('GET', '/queues', { query: { page_size: 0 } }), 400, '$.page_size'],
        [
          () => client.request('GET', '/queues', { query: { page_token: 'zz' } }),
          400,
          '$.page_token',
        ],
        [
          () => client.request('GET', '/streams/app/events', { query: { limit: 0 } }),
          400,
          '$.limit',
        ],
        [
          () => client.request('GET', '/streams/app/events', { query: { after: 'x' } }),
          400,
          '$.after',
        ],
        [() => client.getTask('999999'), 404, '$.task_id'],
        [() => client.getQueue('nope'), 404, '$.queue'],
        [() => client.results.getStream('nope'), 404, '$.stream'],
        [() => client.submitTask('q1', { input: 1 }, '\u00e9'), 400, "$['Idempotency-Key']"],
        [() => t.clientFor('other', t.adminKey).listQueues(), 404, '$.namespace'],
        [() => client.submitTask('q1', { input: 1, priority: 5000 }), 400, '$.priority'],
        [
          () =>
            client.completeMany('q1', {
              completions: [],
              claim: { worker_id: 'w', max_tasks: 0 },
            }),
          400,
          '$.claim.max_tasks',
        ],
      ];
      for (const [request, status, path] of cases) {
        const e = await refusal(request());
        assert.equal(e.status, status, path);
        assert.equal(e.details.path, path);
      }
    });

    test('a missing application in POST /queues is not_found at $.application, as for streams', async () => {
      const before = await client.listQueues();
      const queue = await refusal(client.createQueue({ name: 'orphan', application: 'nope' }));
      const stream = await refusal(
        client.results.createStream({ name: 'orphan', application: 'nope' }),
      );
      for (const e of [queue, stream]) {
        assert.equal(e.status, 404);
        assert.equal(e.code, 'not_found');
        assert.equal(e.details.path, '$.application');
      }
      assert.deepEqual((await client.listQueues()).items, before.items, 'nothing was written');
    });
  });
});
