/**
 * Everything that differs between MariaDB/MySQL and SQLite, in one object (STYLE.md §3, like
 * Kysely's DialectAdapter). No `if (mysql)` anywhere else.
 */
import { sql } from 'kysely';
import type { RawBuilder, SelectQueryBuilder } from 'kysely';

export type DialectName = 'mysql' | 'sqlite';

export interface Dialect {
  readonly name: DialectName;
  /** One row, one column `now_us`: the database clock in Unix microseconds. */
  readonly nowMicrosSql: string;
  /** Opens a write transaction. SQLite takes the write lock up front (no upgrade deadlocks). */
  readonly beginSql: string;
  /** Row lock for the rest of the transaction; SQLite's BEGIN IMMEDIATE already serialises. */
  forUpdate<DB, TB extends keyof DB, O>(
    qb: SelectQueryBuilder<DB, TB, O>,
  ): SelectQueryBuilder<DB, TB, O>;
  /** Shared row lock (the credential in seed 002 §1 step 1). */
  forShare<DB, TB extends keyof DB, O>(
    qb: SelectQueryBuilder<DB, TB, O>,
  ): SelectQueryBuilder<DB, TB, O>;
  /** Lock and skip rows other transactions hold (claiming). */
  forUpdateSkipLocked<DB, TB extends keyof DB, O>(
    qb: SelectQueryBuilder<DB, TB, O>,
  ): SelectQueryBuilder<DB, TB, O>;
  /**
   * A value computed once for several later statements of the same transaction that need no
   * answer (they travel in one packet on MariaDB): there a session variable `@weave_<name>`,
   * set by the statement `set` (run it first, before the statements that use `ref`), so the
   * value is evaluated once; on SQLite, where there are no round trips and no session variables,
   * `set` is undefined and `ref` is the expression itself, evaluated at each use.
   */
  once<T>(name: string, value: RawBuilder<T>): { set?: RawBuilder<unknown>; ref: RawBuilder<T> };
  /** String concatenation of SQL expressions (numbers become their decimal text). */
  concat(parts: readonly RawBuilder<unknown>[]): RawBuilder<string>;
  /**
   * Whether an admission may be left to the database until the commit's packet
   * (pulse/admission.ts `boundAtCommit`, `Tx.admitAtCommit`): MariaDB/MySQL, where it saves the
   * quota read's round trip and holds the quota row only while that packet runs. Not SQLite: a
   * read costs no round trip there, and its one writer holds every lock anyway.
   */
  readonly admitsAtCommit: boolean;
  /** The retry class of an error thrown by the driver, if the transaction may simply be re-run. */
  retryableReason(error: unknown): RetryReason | undefined;
  isUniqueViolation(error: unknown): boolean;
  isConnectionError(error: unknown): boolean;
}

/**
 * `admission`: an admission left to the commit (`admitsAtCommit`) found the quota or a queue at
 * its limit; the transaction runs again with the exact admission, which counts.
 */
export type RetryReason = 'deadlock' | 'lock_wait_timeout' | 'busy' | 'admission';

/**
 * The error of `boundAtCommit` (pulse/admission.ts) refusing: it sets NULL into the NOT NULL
 * `application_quotas.active_bound`, which STRICT_TRANS_TABLES (every session, database.ts) makes
 * ER_BAD_NULL_ERROR. No other statement sets that column to NULL.
 */
function refusedAtCommit(error: unknown): boolean {
  const message = error instanceof Error ? error.message : '';
  return errorProperty(error, 'errno') === 1048 && message.includes("'active_bound'");
}

function errorProperty(error: unknown, key: 'code' | 'errno'): unknown {
  return typeof error === 'object' && error !== null
    ? (error as Record<string, unknown>)[key]
    : undefined;
}

const MYSQL_CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'PROTOCOL_CONNECTION_LOST',
  'ER_CON_COUNT_ERROR',
  'ER_SERVER_SHUTDOWN',
]);

export const mysqlDialect: Dialect = {
  name: 'mysql',
  // UNIX_TIMESTAMP(NOW(6)) is an exact DECIMAL(…,6), independent of the session time zone.
  nowMicrosSql: 'SELECT CAST(UNIX_TIMESTAMP(NOW(6)) * 1000000 AS SIGNED) AS now_us',
  beginSql: 'BEGIN',
  forUpdate: (qb) => qb.forUpdate(),
  // MariaDB 10.11 has no FOR SHARE; LOCK IN SHARE MODE is the same lock on MariaDB and MySQL.
  forShare: (qb) => qb.modifyEnd(sql`lock in share mode`),
  forUpdateSkipLocked: (qb) => qb.forUpdate().skipLocked(),
  once: <T>(name: string, value: RawBuilder<T>) => ({
    set: sql`SET ${sql.raw(`@weave_${name}`)} = ${value}`,
    ref: sql<T>`${sql.raw(`@weave_${name}`)}`,
  }),
  concat: (parts) => sql<string>`CONCAT(${sql.join(parts)})`,
  admitsAtCommit: true,
  retryableReason(error) {
    const errno = errorProperty(error, 'errno');
    if (errno === 1213) {
      return 'deadlock';
    }
    if (refusedAtCommit(error)) {
      return 'admission';
    }
    return errno === 1205 ? 'lock_wait_timeout' : undefined;
  },
  isUniqueViolation: (error) => errorProperty(error, 'errno') === 1062,
  isConnectionError(error) {
    const code = errorProperty(error, 'code');
    return typeof code === 'string' && MYSQL_CONNECTION_CODES.has(code);
  },
};

export const sqliteDialect: Dialect = {
  name: 'sqlite',
  // unixepoch('subsec') has millisecond resolution; SQLite is single-node, so its clock is ours.
  nowMicrosSql: "SELECT CAST(unixepoch('subsec') * 1000 AS INTEGER) * 1000 AS now_us",
  beginSql: 'BEGIN IMMEDIATE',
  forUpdate: (qb) => qb,
  forShare: (qb) => qb,
  forUpdateSkipLocked: (qb) => qb,
  once: <T>(_name: string, value: RawBuilder<T>) => ({ ref: sql<T>`(${value})` }),
  // Each part in parentheses: `||` binds tighter than `+` and `-` in SQLite.
  concat: (parts) =>
    sql<string>`(${sql.join(
      parts.map((part) => sql`(${part})`),
      sql` || `,
    )})`,
  admitsAtCommit: false,
  retryableReason(error) {
    const code = errorProperty(error, 'code');
    return code === 'SQLITE_BUSY' || code === 'SQLITE_BUSY_SNAPSHOT' ? 'busy' : undefined;
  },
  isUniqueViolation(error) {
    const code = errorProperty(error, 'code');
    return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
  },
  isConnectionError: (error) => errorProperty(error, 'code') === 'SQLITE_CANTOPEN',
};
