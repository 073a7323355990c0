/**
 * A large answer goes out in pieces (http/json-text.ts `toJsonBody`): the inputs' own strings
 * and the small parts between them, written one after the other, never joined into one large
 * string. What the client reads is the same document, with a Content-Length that counts its
 * UTF-8 bytes (the inputs hold characters of two, three and four bytes), not chunked.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { jsonNumber, parse, stringify } from '@weave/json';
import { forEachDialect } from '../support/databases.js';
import { startTestServer } from '../support/servers.js';
import type { TestServer } from '../support/servers.js';

const TASKS = 6;

function inputOf(i: number) {
  // ~60 KiB each: six make an answer far above the point where it is sent in pieces.
  return { i, text: `é€😀 ${i} `.repeat(6_000), amount: jsonNumber('12345678901234567890.50') };
}

async function post(t: TestServer, path: string, body: unknown) {
  const response = await fetch(`${t.server.url}/v1/namespaces/ns${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${t.adminKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const bytes = new Uint8Array(await response.arrayBuffer());
  return { status: response.status, headers: response.headers, bytes };
}

forEachDialect((dialect) => {
  describe(`an answer sent in pieces on ${dialect}`, () => {
    let t: TestServer;
    before(async () => {
      t = await startTestServer(dialect, { sweepIntervalMs: false, scheduleIntervalMs: false });
      await t.admin.createQueue({ name: 'pieces', application: 'app' });
    });
    after(() => t.close());

    test('a worker call claiming six large inputs reads them whole, Content-Length in bytes', async () => {
      const submitted = new Map<string, ReturnType<typeof inputOf>>();
      for (let i = 0; i < TASKS; i++) {
        const { task } = await t.admin.submitTask('pieces', { input: inputOf(i) });
        submitted.set(task.id, inputOf(i));
      }
      const answer = await post(t, '/queues/pieces/completions', {
        completions: [],
        claim: { worker_id: 'w', max_tasks: TASKS, start: true },
      });
      assert.equal(answer.status, 200);
      assert.equal(answer.headers.get('transfer-encoding'), null);
      assert.equal(Number(answer.headers.get('content-length')), answer.bytes.length);
      assert.ok(answer.bytes.length > 6 * 60_000, `${answer.bytes.length} bytes`);
      const body = parse(answer.bytes) as ReadonlyMap<string, unknown>;
      const claimed = body.get('tasks') as readonly ReadonlyMap<string, unknown>[];
      assert.equal(claimed.length, TASKS);
      for (const task of claimed) {
        const id = task.get('task_id') as string;
        const expected = submitted.get(id);
        assert.ok(expected !== undefined, id);
        // The number's text as sent, the strings byte for byte.
        assert.equal(stringify(task.get('input') as never), stringify(expected));
      }
    });
  });
});
