/**
 * Real `weave server` processes on one MariaDB database, for the multi-node tests
 * (advance-takeover, signal-race, bulk-cancel-crash): bootstrap a namespace with its queues,
 * start a node on a free port, and a direct connection for the invariants' SQL.
 */
import assert from 'node:assert/strict';
import { createConnection } from 'mysql2/promise';
import type { Connection, RowDataPacket } from 'mysql2/promise';
import { mysqlConnectionOptions, parseConnectionUrl } from '../../src/store/connection-url.js';
import { runWeave, startWeave } from './processes.js';
import type { Running } from './processes.js';

/** `weave bootstrap` of `namespace` with application `app` and `queues`: the all-scopes key. */
export async function bootstrapNamespace(
  dbUrl: string,
  namespace: string,
  queues: readonly string[],
): Promise<string> {
  const boot = await runWeave([
    'bootstrap',
    '--db',
    dbUrl,
    '--namespace',
    namespace,
    '--app',
    'app',
    ...queues.flatMap((q) => ['--queue', q]),
    '--json',
  ]);
  assert.equal(boot.code, 0, boot.stderr);
  return (JSON.parse(boot.stdout) as { key: string }).key;
}

/** A `weave server` process on a free port, ready; its JSON logs are drained. */
export async function startServerNode(
  dbUrl: string,
  args: readonly string[] = [],
): Promise<{ node: Running; url: string }> {
  const node = await startWeave(
    ['server', '--port', '0', '--db', dbUrl, ...args],
    { WEAVE_LOG_LEVEL: 'error' },
    { readyOn: 'stderr' },
  );
  node.child.stdout.resume(); // drained so the node never blocks on a full pipe
  return { node, url: /listening at (\S+)/.exec(node.firstLine)?.[1] ?? '' };
}

/** A direct MariaDB connection to the test database (close it in the test's `finally`). */
export async function connectMysql(dbUrl: string): Promise<Connection> {
  const config = parseConnectionUrl(dbUrl);
  assert.ok(config.kind === 'mysql');
  const connection = mysqlConnectionOptions(config);
  return createConnection(connection);
}

export async function rows(
  sql: Connection,
  text: string,
  params: unknown[] = [],
): Promise<RowDataPacket[]> {
  const [result] = await sql.query<RowDataPacket[]>(text, params);
  return result;
}
