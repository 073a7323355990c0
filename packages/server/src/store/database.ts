/**
 * Opening the one database a server uses: a Kysely instance over mysql2 (pool) or
 * better-sqlite3 (one connection, WAL, durable commits), plus the dialect object.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { CompiledQuery, Kysely } from 'kysely';
import { createPool } from 'mysql2';
import type { Pool, ResultSetHeader } from 'mysql2';
import { CoalescingMysqlDialect, SequentialSqliteDialect } from './coalescing-driver.js';
import type { StatementHook } from './coalescing-driver.js';
import type { ConnectionConfig, MysqlConfig } from './connection-url.js';
import {
  describeConnection,
  mysqlConnectionOptions,
  parseConnectionUrl,
} from './connection-url.js';
import type { Dialect } from './dialect.js';
import { mysqlDialect, sqliteDialect } from './dialect.js';
import type { Schema } from './schema.js';
import { WakeUps } from './wake-ups.js';
import type { BlockTable } from './id-blocks.js';
import { IdBlocks } from './id-blocks.js';
import type { Observations } from './observations.js';
import { NO_OBSERVATIONS } from './observations.js';
import { AdmissionsAtCommit } from './admissions-at-commit.js';
import { formatQuery } from './statement-text.js';

export interface Database {
  readonly kysely: Kysely<Schema>;
  readonly dialect: Dialect;
  readonly config: ConnectionConfig;
  /** The connection without its password, for logs. */
  readonly description: string;
  /** Only for SQLite: the raw handle (the migrator runs multi-statement files on it). */
  readonly sqliteHandle: BetterSqlite3.Database | undefined;
  /** Wake-ups for long-polls on this process (e.g. a stream's readers after an append). */
  readonly wakeUps: WakeUps;
  /** Where services report what committed, for metrics (observations.ts). */
  readonly observations: Observations;
  /**
   * The same database on connections of the background runners' own (MariaDB/MySQL: a second
   * small pool; SQLite: this handle). The workflow consumer and clock take their transactions
   * here, so they never queue for a connection behind requests that wait on row locks (a burst
   * of Starts on one application's quota row held every pooled connection and kept due timers
   * from firing: docs/benchmarks.md, workflow run 3). Shares the wake-ups and observations.
   */
  readonly runners: Database;
  /**
   * MariaDB/MySQL: this process's blocks of new task and attempt ids (store/id-blocks.ts), shared
   * with `runners`. SQLite: none (the inserts' RETURNING costs no round trip there).
   */
  readonly ids: IdBlocks | undefined;
  /** Whether admissions are left to the commit now (store/admissions-at-commit.ts). */
  readonly admissions: AdmissionsAtCommit;
  close(): Promise<void>;
}

export interface OpenOptions {
  /** mysql pool size; the default suits a 2-core machine (DESIGN.md §5a). */
  readonly poolSize?: number;
  /** mysql pool size of the runners' connections (`Database.runners`, default 4). */
  readonly runnerPoolSize?: number;
  /**
   * Test seam: sees every statement run on the pool or handle (coalescing-driver.ts
   * `StatementHook`), the session set-up of each new MariaDB connection included. Migrations run
   * on their own connection (or the raw SQLite handle) and are not seen.
   */
  readonly onStatement?: StatementHook;
  /** Receives the facts services report after commit (default: none are kept). */
  readonly observations?: Observations;
}

export type { StatementHook } from './coalescing-driver.js';

export function openDatabase(url: string, options: OpenOptions = {}): Database {
  const config = parseConnectionUrl(url);
  return config.kind === 'mysql' ? openMysql(config, options) : openSqlite(config, options);
}

/**
 * The session's sql_mode with STRICT_TRANS_TABLES and without NO_BACKSLASH_ESCAPES, every other
 * mode kept (a mode named twice is kept once).
 */
export const SESSION_SQL_MODE =
  "SET SESSION sql_mode = CONCAT('STRICT_TRANS_TABLES,', TRIM(BOTH ',' FROM " +
  "REPLACE(CONCAT(',', @@SESSION.sql_mode, ','), ',NO_BACKSLASH_ESCAPES,', ',')))";

function openMysql(config: MysqlConfig, options: OpenOptions): Database {
  const kysely = mysqlKysely(config, options, options.poolSize ?? 10);
  const runnerKysely = mysqlKysely(config, options, options.runnerPoolSize ?? 4);
  const reserving = reservingPool(config);
  const wakeUps = new WakeUps();
  const base = {
    ids: new IdBlocks((table, size) => reserveIds(reserving, table, size)),
    dialect: mysqlDialect,
    admissions: new AdmissionsAtCommit(),
    config,
    description: describeConnection(config),
    sqliteHandle: undefined,
    observations: options.observations ?? NO_OBSERVATIONS,
    wakeUps,
  };
  const runners: Database = {
    ...base,
    kysely: runnerKysely,
    get runners() {
      return runners;
    },
    close: () => runnerKysely.destroy(),
  };
  return {
    ...base,
    kysely,
    runners,
    close: async () => {
      wakeUps.close();
      await Promise.all([
        kysely.destroy(),
        runnerKysely.destroy(),
        new Promise<void>((resolve) => reserving.end(() => resolve())),
      ]);
    },
  };
}

/**
 * One connection of its own for id reservations (store/id-blocks.ts): each is a single
 * autocommitted statement, never inside a transaction of the pools, so it never waits for a
 * pooled connection that a transaction holds.
 */
function reservingPool(config: MysqlConfig): Pool {
  return createPool({ ...poolBase(config), connectionLimit: 1 });
}

function poolBase(config: MysqlConfig) {
  return {
    ...mysqlConnectionOptions(config),
    // BIGINT as decimal strings: ids and microsecond instants never pass through float64.
    supportBigNumbers: true,
    bigNumberStrings: true,
  };
}

/**
 * `[first, first + size)` of `table`'s ids for this process: `LAST_INSERT_ID(expr)` hands the
 * row's new value back in the statement's own answer (MariaDB has no UPDATE … RETURNING).
 */
function reserveIds(pool: Pool, table: BlockTable, size: number): Promise<bigint> {
  return new Promise((resolve, reject) => {
    pool.query<ResultSetHeader>(
      'UPDATE id_blocks SET next_id = LAST_INSERT_ID(next_id + ?) WHERE name = ?',
      [size, table],
      (error, result) => {
        if (error !== null) {
          reject(error);
        } else if (result.affectedRows !== 1) {
          reject(new Error(`id_blocks has no row for ${table} (migration 0012)`));
        } else {
          resolve(BigInt(String(result.insertId)) - BigInt(size));
        }
      },
    );
  });
}

function mysqlKysely(config: MysqlConfig, options: OpenOptions, connectionLimit: number) {
  const pool = createPool({
    ...poolBase(config),
    connectionLimit,
    charset: 'utf8mb4',
    timezone: 'Z',
    // Deferred writes travel with the next statement (coalescing-driver.ts).
    multipleStatements: true,
    // mysql2's own escaping, with fewer bytes allocated (statement-text.ts).
    queryFormat: formatQuery,
  });
  const { onStatement } = options;
  const kysely = new Kysely<Schema>({
    dialect: new CoalescingMysqlDialect(
      {
        pool,
        async onCreateConnection(connection) {
          const run = async (sql: string) => {
            onStatement?.(sql, [], connection);
            await connection.executeQuery(CompiledQuery.raw(sql));
          };
          // READ COMMITTED: queue scans with SKIP LOCKED take no gap locks; every decision that
          // needs more holds an explicit row lock.
          await run('SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED');
          await run("SET time_zone = '+00:00'");
          // mysql2 binds parameters by escaping them into the text with backslashes (`'` → `\'`).
          // Under NO_BACKSLASH_ESCAPES (a server's sql_mode may carry it) `\'` ends the string
          // and the rest of a value runs as SQL — with multipleStatements, as a stacked statement.
          // STRICT_TRANS_TABLES: a NULL into a NOT NULL column fails the statement instead of
          // writing 0 with a warning; an admission refused at commit relies on it (dialect.ts).
          await run(SESSION_SQL_MODE);
        },
      },
      onStatement,
    ),
  });
  return kysely;
}

function openSqlite(config: { kind: 'sqlite'; path: string }, options: OpenOptions): Database {
  if (config.path !== ':memory:') {
    mkdirSync(dirname(config.path), { recursive: true });
  }
  const handle = new BetterSqlite3(config.path);
  handle.pragma('journal_mode = WAL');
  // FULL: a committed result survives power loss, as on InnoDB with flush_log_at_trx_commit=1.
  handle.pragma('synchronous = FULL');
  handle.pragma('busy_timeout = 5000');
  handle.pragma('foreign_keys = OFF');
  handle.defaultSafeIntegers(true);
  const kysely = new Kysely<Schema>({
    dialect: new SequentialSqliteDialect(
      { database: withStatementCache(handle) },
      options.onStatement,
    ),
  });
  const database: Database = {
    kysely,
    dialect: sqliteDialect,
    admissions: new AdmissionsAtCommit(),
    config,
    description: describeConnection(config),
    sqliteHandle: handle,
    ids: undefined,
    observations: options.observations ?? NO_OBSERVATIONS,
    // One handle, one writer: the runners use it too.
    get runners() {
      return database;
    },
    ...closing(kysely),
  };
  return database;
}

/** Prepared statements kept per SQL text; the least recently added goes first when full. */
const STATEMENT_CACHE_SIZE = 500;

/**
 * Kysely's SQLite driver prepares every statement anew, which cost an eighth of the server's
 * time in the burn-down (docs/benchmarks.md). The same SQL text gets the same prepared
 * statement: better-sqlite3 runs a statement to completion synchronously, so one statement object
 * is never in use twice at once (nothing here iterates a statement lazily).
 */
function withStatementCache(handle: BetterSqlite3.Database) {
  const statements = new Map<string, BetterSqlite3.Statement>();
  return {
    close: () => handle.close(),
    prepare(sql: string): BetterSqlite3.Statement {
      let statement = statements.get(sql);
      if (statement === undefined) {
        statement = handle.prepare(sql);
        if (statements.size >= STATEMENT_CACHE_SIZE) {
          statements.delete(statements.keys().next().value as string);
        }
        statements.set(sql, statement);
      }
      return statement;
    },
  };
}

function closing(kysely: Kysely<Schema>): Pick<Database, 'wakeUps' | 'close'> {
  const wakeUps = new WakeUps();
  return {
    wakeUps,
    close: () => {
      wakeUps.close();
      return kysely.destroy();
    },
  };
}
