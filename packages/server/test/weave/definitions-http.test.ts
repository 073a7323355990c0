/**
 * Workflow definitions over HTTP (issue 11 Deliver 1), on SQLite and MariaDB: publish stores an
 * immutable version with its source text and sha256 digest; the same source again returns that
 * version; the source reads back with the exact bytes of its numbers; a definition with
 * problems is refused with every problem and its path, writing nothing; publishing rights are
 * not instance rights (seed 002 §3, A3.6).
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import type { WeaveClient } from '@weave/sdk';
import { forEachDialect } from '../support/databases.js';
import { startTestServer } from '../support/servers.js';
import type { TestServer } from '../support/servers.js';
import { refusal } from '../support/refusal.js';

const ORDER = {
  schema_version: 1,
  name: 'order',
  input: {
    type: 'object',
    required: ['amount'],
    properties: { amount: { type: 'number' } },
  },
  steps: [
    {
      id: 'big',
      kind: 'BRANCH',
      cases: [
        {
          when: { gt: ['$.input.amount', { kind: 'number', text: '12345678901234567890' }] },
          steps: [{ id: 'wait', kind: 'TIMER', duration: 'PT1S' }],
        },
      ],
      default: [],
    },
  ],
};

/** The definition as the server must store it: compact, key order and number text kept. */
const ORDER_TEXT =
  '{"schema_version":1,"name":"order","input":{"type":"object","required":["amount"],' +
  '"properties":{"amount":{"type":"number"}}},"steps":[{"id":"big","kind":"BRANCH","cases":' +
  '[{"when":{"gt":["$.input.amount",12345678901234567890]},"steps":[{"id":"wait","kind":' +
  '"TIMER","duration":"PT1S"}]}],"default":[]}]}';

forEachDialect((dialect) => {
  describe(`workflow definitions on ${dialect}`, () => {
    let t: TestServer;
    let publisher: WeaveClient;

    const count = async (table: string) => {
      const row = await sql<{ n: number | string | bigint }>`SELECT COUNT(*) AS n FROM ${sql.table(
        table,
      )}`.execute(t.server.database.kysely);
      return Number(row.rows[0]?.n ?? 0);
    };
    const counts = async () => ({
      definitions: await count('weave_definitions'),
      versions: await count('weave_definition_versions'),
      audit: await count('audit_log'),
    });

    before(async () => {
      t = await startTestServer(dialect, { sweepIntervalMs: false, scheduleIntervalMs: false });
      publisher = t.clientFor('ns', await t.keyWith('ns', ['workflows:publish']));
    });
    after(() => t.close());

    test('publish stores an immutable version: source text as sent (exact numbers) and its sha256', async () => {
      const answer = await publisher.requestRaw('POST', '/workflows', {
        body: { definition: ORDER },
      });
      assert.equal(answer.status, 201);
      const digest = createHash('sha256').update(ORDER_TEXT, 'utf8').digest('hex');
      assert.deepEqual(
        { ...(answer.body as object), summary: undefined },
        { workflow: 'order', version: 1, digest, created: true, summary: undefined },
      );
      const raw = await fetch(`${t.server.url}/v1/namespaces/ns/workflows/order/versions/1`, {
        headers: { authorization: `Bearer ${await t.keyWith('ns', ['workflows:read'])}` },
      });
      const text = await raw.text();
      assert.ok(text.includes(`"definition":${ORDER_TEXT}`), text);
      const { version } = await publisher.workflows.getVersion('order', 1);
      assert.equal(version.digest, digest);
      assert.equal(version.step_count, 2);
      assert.deepEqual(version.queues, []);
      assert.equal(version.has_tasks, false);
    });

    test('publishing identical source again returns the existing version (200, created false) and writes nothing', async () => {
      const before = await counts();
      const again = await publisher.requestRaw('POST', '/workflows', {
        body: { definition: ORDER },
      });
      assert.equal(again.status, 200);
      assert.equal((again.body as { version: number }).version, 1);
      assert.equal((again.body as { created: boolean }).created, false);
      assert.deepEqual(await counts(), before);
    });

    test('a changed source is the next version; versions list newest first; get shows the latest', async () => {
      const changed = { ...ORDER, timeout: 'P1D' };
      const published = await publisher.workflows.publish(changed);
      assert.equal(published.version, 2);
      assert.equal(published.created, true);
      const { items } = await publisher.workflows.listVersions('order');
      assert.deepEqual(
        items.map((v) => v.version),
        [2, 1],
      );
      const { workflow, latest } = await publisher.workflows.get('order');
      assert.equal(workflow.latest_version, 2);
      assert.equal(latest.version, 2);
      const { items: workflows } = await publisher.workflows.list();
      assert.deepEqual(
        workflows.map((w) => w.name),
        ['order'],
      );
    });

    test('a definition with problems is refused with every problem under $.definition, writing nothing', async () => {
      const before = await counts();
      const bad = {
        schema_version: 1,
        name: 'Bad Name',
        steps: [
          { id: 'a', kind: 'TASK' },
          { id: 'a', kind: 'TIMER', duration: 'soon' },
        ],
      };
      const e = await refusal(publisher.workflows.publish(bad));
      assert.equal(e.status, 400);
      assert.equal(e.code, 'invalid_argument');
      const problems = e.details.problems ?? [];
      assert.ok(problems.length >= 3, JSON.stringify(problems));
      assert.ok(problems.every((p) => p.path.startsWith('$.definition')));
      assert.ok(problems.some((p) => p.path === '$.definition.name'));
      assert.equal(e.details.path, problems[0]?.path);
      assert.deepEqual(await counts(), before);
      const missing = await refusal(publisher.request('POST', '/workflows', { body: {} }));
      assert.equal(missing.details.path, '$.definition');
    });

    test('a definition over 1 MiB is 413 payload_too_large with its limit, writing nothing', async () => {
      const before = await counts();
      const huge = { ...ORDER, name: 'huge', description: 'x'.repeat(1024 * 1024) };
      const e = await refusal(publisher.workflows.publish(huge));
      assert.equal(e.status, 413);
      assert.equal(e.code, 'payload_too_large');
      assert.deepEqual(await counts(), before);
    });

    test('concurrent first publishes of one source give one version; every answer names it', async () => {
      const definition = { ...ORDER, name: 'raced' };
      const answers = await Promise.all(
        Array.from({ length: 8 }, () => publisher.workflows.publish(definition)),
      );
      assert.deepEqual(new Set(answers.map((a) => a.version)), new Set([1]));
      assert.equal(answers.filter((a) => a.created).length, 1);
      const { items } = await publisher.workflows.listVersions('raced');
      assert.equal(items.length, 1);
    });

    test('publish replays by Idempotency-Key; the same key with another definition is 409', async () => {
      const definition = { ...ORDER, name: 'keyed' };
      const first = await publisher.requestRaw('POST', '/workflows', {
        body: { definition },
        idempotencyKey: 'pub-1',
      });
      const replay = await publisher.requestRaw('POST', '/workflows', {
        body: { definition },
        idempotencyKey: 'pub-1',
      });
      assert.equal(replay.status, first.status);
      assert.equal(replay.headers.get('idempotent-replayed'), 'true');
      assert.deepEqual(replay.body, first.body);
      const other = await refusal(
        publisher.workflows.publish({ ...definition, timeout: 'PT1H' }, 'pub-1'),
      );
      assert.equal(other.code, 'idempotency_conflict');
    });

    test('[A3.6] publishing rights are not instance rights, and reading takes workflows:read or workflows:publish', async () => {
      const reader = t.clientFor('ns', await t.keyWith('ns', ['workflows:read']));
      const starter = t.clientFor('ns', await t.keyWith('ns', ['workflows:start', 'tasks:submit']));
      assert.equal((await reader.workflows.get('order')).workflow.name, 'order');
      assert.equal((await refusal(reader.workflows.publish({ ...ORDER, name: 'r' }))).status, 403);
      assert.equal((await refusal(starter.workflows.get('order'))).code, 'permission_denied');
      assert.equal((await refusal(starter.workflows.publish({ ...ORDER, name: 's' }))).status, 403);
      const principal = await t.keyWith('ns', ['workflows:publish']);
      const publishOnly = t.clientFor('ns', principal);
      const denied = await refusal(publishOnly.listTasks());
      assert.equal(denied.code, 'permission_denied');
    });

    test('unknown workflows and versions are not_found at their path; a bad version is invalid_argument', async () => {
      assert.equal((await refusal(publisher.workflows.get('nope'))).details.path, '$.workflow');
      assert.equal(
        (await refusal(publisher.workflows.getVersion('order', 99))).details.path,
        '$.version',
      );
      const bad = await refusal(publisher.request('GET', '/workflows/order/versions/0'));
      assert.equal(bad.code, 'invalid_argument');
      const other = t.clientFor('other', await t.keyWith('other', ['workflows:publish']));
      assert.equal((await refusal(other.workflows.get('order'))).code, 'not_found');
    });
  });
});
