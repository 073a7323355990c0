/**
 * Test databases on both engines (STYLE.md §10). SQLite: a fresh temp file. MariaDB: a fresh
 * `weave_t_<hex>` database on the server of WEAVE_TEST_MYSQL_URL (default: the local MariaDB),
 * dropped afterwards. With CI=true a missing or unreachable MariaDB fails the run instead of
 * skipping the suites.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConnection } from 'mysql2/promise';
import { openDatabase } from '../../src/store/database.js';
import type { Database } from '../../src/store/database.js';
import type { DialectName } from '../../src/store/dialect.js';
import { migrate } from '../../src/store/migrate.js';
import { parseConnectionUrl } from '../../src/store/connection-url.js';
import type { MysqlConfig } from '../../src/store/connection-url.js';
import { track } from './leaks.js';

const MYSQL_BASE_URL = process.env.WEAVE_TEST_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/test';

async function probeMysql(): Promise<boolean> {
  if (process.env.WEAVE_TEST_MYSQL === 'off' && process.env.CI !== 'true') {
    return false;
  }
  try {
    const conn = await createConnection({ ...mysqlBase(), connectTimeout: 3000 });
    await conn.end();
    return true;
  } catch (e: unknown) {
    if (process.env.CI === 'true') {
      throw new Error(`CI=true but MariaDB at ${MYSQL_BASE_URL} does not answer`, { cause: e });
    }
    process.stderr.write(`# MariaDB not reachable at ${MYSQL_BASE_URL}: MariaDB suites skipped\n`);
    return false;
  }
}

/** Host and port: the test databases' URLs are built from them (over TCP, not a socket). */
function mysqlBase(): Omit<MysqlConfig, 'kind' | 'socketPath'> {
  const config = parseConnectionUrl(MYSQL_BASE_URL);
  if (config.kind !== 'mysql') {
    throw new Error('WEAVE_TEST_MYSQL_URL must be a mysql:// URL');
  }
  const { kind: _kind, socketPath: _socket, ...connection } = config;
  return connection;
}

/** The engines every storage suite runs on. */
export const DIALECTS: readonly DialectName[] = (await probeMysql())
  ? ['sqlite', 'mysql']
  : ['sqlite'];

/** `forEachDialect((d) => describe(d, () => …))` (Kysely's DIALECTS idea). */
export function forEachDialect(fn: (dialect: DialectName) => void): void {
  for (const dialect of DIALECTS) {
    fn(dialect);
  }
}

export interface TestDatabase {
  readonly url: string;
  readonly dialect: DialectName;
  /** Drops the database (MariaDB) or deletes the file (SQLite). */
  drop(): Promise<void>;
}

/** An empty database (no migrations applied), with a URL that `--db` accepts. */
export async function createEmptyDatabase(dialect: DialectName): Promise<TestDatabase> {
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'weave-test-'));
    const drop = () => rmSync(dir, { recursive: true, force: true });
    const tracked = track('database', dir, drop);
    return {
      url: join(dir, 'weave.sqlite'),
      dialect,
      drop: () => Promise.resolve(drop()).then(() => tracked.untrack()),
    };
  }
  const base = mysqlBase();
  const name = `weave_t_${randomBytes(6).toString('hex')}`;
  const admin = await createConnection(base);
  await admin.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin`);
  await admin.end();
  const auth =
    base.password === '' ? base.user : `${base.user}:${encodeURIComponent(base.password)}`;
  const drop = async () => {
    const conn = await createConnection(base);
    await conn.query(`DROP DATABASE IF EXISTS \`${name}\``);
    await conn.end();
  };
  const tracked = track('database', name, drop);
  return {
    url: `mysql://${auth}@${base.host}:${base.port}/${name}`,
    dialect,
    async drop() {
      await drop();
      tracked.untrack();
    },
  };
}

/** `openDatabase(url)`, checked by the leak check: the pool must be closed. */
export function openTestDatabase(url: string): Database {
  const database = openDatabase(url);
  const close = database.close.bind(database);
  const tracked = track('pool', url, close);
  return {
    ...database,
    async close() {
      await close();
      tracked.untrack();
    },
  };
}

export interface MigratedDatabase extends TestDatabase {
  readonly database: Database;
  /** Closes the pool, then drops. */
  close(): Promise<void>;
}

export async function createTestDatabase(dialect: DialectName): Promise<MigratedDatabase> {
  const empty = await createEmptyDatabase(dialect);
  const database = openTestDatabase(empty.url);
  await migrate(database);
  return {
    ...empty,
    database,
    async close() {
      await database.close();
      await empty.drop();
    },
  };
}
