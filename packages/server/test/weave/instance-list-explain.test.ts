/**
 * Every filter of the instance list is served by an index (issue 12 Deliver 4; migration 0010),
 * on SQLite and MariaDB. The statements are the ones the server really ran for each filter
 * combination (captured through `onStatement`), first pages and later pages (with the keyset
 * condition), a queue-limited key's too (`version_id IN …`); each is explained on a table of a
 * few thousand rows in two namespaces (`EXPLAIN` / `EXPLAIN QUERY PLAN`), after ANALYZE.
 * Asserted: one of the list indexes is read as a range or ref — never a full scan — and the order
 * comes from the index (no filesort / temp B-tree) wherever one equality filter leads.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CompiledQuery, sql } from 'kysely';
import type { WeaveClient } from '@weave/sdk';
import { forEachDialect } from '../support/databases.js';
import { startTestServer } from '../support/servers.js';
import type { TestServer } from '../support/servers.js';

const NAP = {
  schema_version: 1,
  name: 'nap',
  steps: [{ id: 'nap', kind: 'TIMER', duration: 'PT1H' }],
};

const ROWS_PER_NAMESPACE = 4000;
const STATUSES = ['WAITING', 'WAITING', 'RUNNING', 'RUNNING', 'SUCCEEDED', 'FAILED', 'CANCELLED'];

interface Captured {
  readonly sql: string;
  readonly parameters: readonly unknown[];
}

type Filter = Record<string, string | number>;

forEachDialect((dialect) => {
  describe(`instance list indexes on ${dialect}`, () => {
    let t: TestServer;
    let client: WeaveClient;
    let recording: Captured[] | undefined;
    let createdAt: bigint[] = [];

    before(async () => {
      t = await startTestServer(dialect, {
        sweepIntervalMs: false,
        scheduleIntervalMs: false,
        onStatement(text, parameters) {
          // The list's reads only (the clock's deadline scan also reads the table, ordered).
          if (/from [`"]?weave_instances[`"]? .*order by [`"]?created_at[`"]? desc/is.test(text)) {
            recording?.push({ sql: text, parameters });
          }
        },
      });
      client = t.admin;
      await client.createQueue({ name: 'q2', application: 'app' });
      await client.workflows.publish(NAP);
      await client.workflows.publish({ ...NAP, steps: [{ ...NAP.steps[0], duration: 'PT2H' }] });
      await client.workflows.publish({
        schema_version: 1,
        name: 'charge',
        steps: [{ id: 'charge', kind: 'TASK', queue: 'q2', input: {} }],
      });
      const other = t.clientFor('other', await t.keyWith('other', ['admin'], { application: 'a' }));
      await other.workflows.publish(NAP);
      for (const c of [client, other]) {
        await c.instances.start('nap', { input: {}, application: c === client ? 'app' : 'a' });
      }
      createdAt = await fillInstances(t);
      const db = t.server.database.kysely;
      await (dialect === 'mysql'
        ? sql`ANALYZE TABLE weave_instances`.execute(db)
        : sql`ANALYZE`.execute(db));
    });
    after(() => t.close());

    /** The list statements a request ran: first page, then the page after its token. */
    async function statementsOf(c: WeaveClient, filter: Filter): Promise<Captured[]> {
      recording = [];
      const first = await c.instances.list({ ...filter, page_size: 5 });
      const token = first.next_page_token;
      if (token !== undefined) {
        await c.instances.list({ ...filter, page_size: 5, page_token: token });
      }
      const captured = recording;
      recording = undefined;
      assert.ok(captured.length > 0, 'the list read weave_instances');
      return captured;
    }

    async function explain(statement: Captured): Promise<Record<string, unknown>[]> {
      const prefix = dialect === 'mysql' ? 'EXPLAIN ' : 'EXPLAIN QUERY PLAN ';
      const result = await t.server.database.kysely.executeQuery(
        CompiledQuery.raw(prefix + statement.sql, [...statement.parameters]),
      );
      return result.rows as Record<string, unknown>[];
    }

    function check(plan: Record<string, unknown>[], label: string, sorted: boolean): void {
      const text = JSON.stringify(plan, (_, v: unknown) =>
        typeof v === 'bigint' ? v.toString() : v,
      );
      if (dialect === 'mysql') {
        const [row] = plan.filter((r) => r.table === 'weave_instances');
        assert.ok(row, `${label}: ${text}`);
        assert.notEqual(row.type, 'ALL', `${label}: a full scan: ${text}`);
        assert.ok(['range', 'ref'].includes(String(row.type)), `${label}: ${text}`);
        assert.match(String(row.key), /^ix_weave_instances_list/, `${label}: ${text}`);
        if (sorted) {
          assert.doesNotMatch(String(row.Extra), /filesort/, `${label}: sorted: ${text}`);
        }
        return;
      }
      const details = plan.map((r) => String(r.detail));
      assert.ok(
        details.some((d) =>
          /^SEARCH weave_instances USING (COVERING )?INDEX ix_weave_instances_list/.test(d),
        ),
        `${label}: ${text}`,
      );
      assert.ok(!details.some((d) => /^SCAN weave_instances/.test(d)), `${label}: a scan: ${text}`);
      if (sorted) {
        assert.ok(!details.some((d) => /TEMP B-TREE/.test(d)), `${label}: sorted: ${text}`);
      }
    }

    const at = (i: number) => new Date(Number((createdAt[i] ?? 0n) / 1000n)).toISOString();

    test('each filter and each combination reads a list index, first and later pages alike', async () => {
      const after = at(1000);
      const before = at(3000);
      const combinations: [string, Filter, boolean][] = [
        ['no filter', {}, true],
        ['workflow', { workflow: 'nap' }, true],
        ['workflow + version', { workflow: 'nap', version: 2 }, true],
        ['status', { status: 'RUNNING' }, true],
        ['two statuses', { status: 'RUNNING,FAILED' }, true],
        ['business key', { business_key: 'key-17' }, true],
        ['created range', { created_after: after, created_before: before }, true],
        ['created after', { created_after: after }, true],
        ['workflow + status', { workflow: 'nap', status: 'WAITING' }, false],
        ['status + business key', { status: 'WAITING', business_key: 'key-3' }, false],
        [
          'status + created range',
          { status: 'FAILED', created_after: after, created_before: before },
          true,
        ],
        [
          'workflow + created range',
          { workflow: 'nap', created_after: after, created_before: before },
          true,
        ],
        [
          'everything',
          {
            workflow: 'nap',
            version: 1,
            status: 'WAITING,RUNNING',
            business_key: 'key-4',
            created_after: after,
            created_before: before,
          },
          false,
        ],
      ];
      const { key } = await client.createCredential({
        name: 'q1-reader',
        scopes: ['workflows:read'],
        queues: ['q1'],
      });
      assert.ok(key);
      const limited = t.clientFor('ns', key);
      for (const [label, filter, sorted] of combinations) {
        for (const [who, c] of [
          ['admin', client],
          ['queue-limited key', limited],
        ] as const) {
          for (const statement of await statementsOf(c, filter)) {
            check(await explain(statement), `${label} (${who})`, sorted);
          }
        }
      }
    });
  });
});

/**
 * A few thousand instance rows per namespace, written straight into the table (a fast path for
 * the planner's sake: no runtime behaviour is tested here), copying the shape of the instance
 * each namespace started; created_at ascends with the id. Returns namespace ns's created_at
 * values in insertion order.
 */
async function fillInstances(t: TestServer): Promise<bigint[]> {
  const db = t.server.database.kysely;
  const templates = await db.selectFrom('weave_instances').selectAll().execute();
  const versions = await db
    .selectFrom('weave_definition_versions')
    .select(['id', 'namespace_id', 'definition_id', 'version', 'digest'])
    .execute();
  const base = BigInt(templates[0]?.created_at ?? 0);
  const createdAt: bigint[] = [];
  for (const template of templates) {
    const own = versions.filter((v) => String(v.namespace_id) === String(template.namespace_id));
    const rows = Array.from({ length: ROWS_PER_NAMESPACE }, (_, i) => {
      const version = own[i % own.length] ?? own[0];
      const at = base - BigInt((ROWS_PER_NAMESPACE - i) * 1000) + BigInt(i % 3);
      if (String(template.namespace_id) === String(templates[0]?.namespace_id)) {
        createdAt.push(at);
      }
      const { id: _id, ...copy } = template;
      return {
        ...copy,
        definition_id: version?.definition_id ?? copy.definition_id,
        version_id: version?.id ?? copy.version_id,
        version: version?.version ?? copy.version,
        digest: version?.digest ?? copy.digest,
        status: STATUSES[i % STATUSES.length] ?? 'WAITING',
        business_key: i % 11 === 0 ? null : `key-${i % 500}`,
        created_at: at,
        updated_at: at,
      };
    });
    for (let i = 0; i < rows.length; i += 500) {
      await db
        .insertInto('weave_instances')
        .values(rows.slice(i, i + 500))
        .execute();
    }
  }
  return createdAt;
}
