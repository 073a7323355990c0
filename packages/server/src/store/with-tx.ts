/**
 * `withTx(database, fn)`: run `fn` in one transaction, with the database clock read once
 * (`tx.now`), retrying deadlocks and lock-wait timeouts a bounded number of times with jittered
 * backoff (graphile's RETRYABLE_ERROR_CODES idea). Services take `tx` and never open
 * transactions themselves.
 */
import type { Compilable, Kysely } from 'kysely';
import { CompiledQuery } from 'kysely';
import { deferred, together } from './coalescing-driver.js';
import { WeaveError } from '../errors.js';
import type { Database } from './database.js';
import type { Dialect, RetryReason } from './dialect.js';
import type { BlockTable } from './id-blocks.js';
import type { Schema } from './schema.js';
import type { WakeUps } from './wake-ups.js';
import type { Observations } from './observations.js';
import type { Micros } from './values.js';
import { toMicros } from './values.js';

// The store types the layers above need with a transaction; http imports store only through this
// file (rule http-store-only-with-tx in .dependency-cruiser.mjs).
export type { Database } from './database.js';
export type { Micros } from './values.js';

export interface Tx {
  /** Queries inside the transaction (one connection). */
  readonly db: Kysely<Schema>;
  /**
   * A write whose answer nobody reads (no affected-row count, no insert id). On MariaDB it is
   * sent together with the next statement that needs an answer (coalescing-driver.ts): order is
   * kept, and its failure fails that statement and so the transaction. Never for a write whose
   * error is caught and handled.
   */
  write(query: Compilable): Promise<void>;
  /**
   * Several reads whose answers are all needed, sent together (one packet on MariaDB, with any
   * deferred writes before them): the rows of each, in order.
   */
  readAll<Q extends readonly Compilable<unknown>[]>(...queries: Q): Promise<RowsOf<Q>>;
  /**
   * `count` ids for new rows of `table` that the caller inserts with their ids, so the insert
   * needs no answer and can be a `write` (MariaDB/MySQL: from this process's reserved blocks,
   * store/id-blocks.ts; most calls take them from memory). `undefined` on SQLite: there the
   * database assigns them and the insert's `RETURNING` costs no round trip.
   */
  newIds(table: BlockTable, count: number): Promise<readonly string[] | undefined>;
  /** The database clock, read once when the transaction began (Unix microseconds). */
  readonly now: Micros;
  readonly dialect: Dialect;
  /**
   * Admissions may be left to the database until the commit's packet (pulse/admission.ts
   * `boundAtCommit`): the dialect allows it, no admission of this process was refused at commit
   * lately (store/admissions-at-commit.ts), and this is not the run again after such a refusal.
   */
  readonly admitAtCommit: boolean;
  /** Run after a successful commit (e.g. wake long-polls); never on rollback. */
  afterCommit(fn: () => void): void;
  /**
   * Run once the outcome is known: `committed` true after the COMMIT, false after a rollback of
   * the transaction, or at once when the savepoint it was registered in rolls back. For state
   * kept outside the database while a transaction decides (a long-poll reserved for a hand-off,
   * pulse/claim-hand-off.ts), which must be given back when the transaction does not commit.
   */
  onSettled(fn: (committed: boolean) => void): void;
  /**
   * Run inside the transaction, in order, after `fn` returned and just before COMMIT: work that
   * takes the hottest lock last (Orbit's stream row), so it is held for the shortest time.
   */
  beforeCommit(fn: () => Promise<void>): void;
  /**
   * Run `fn` inside a SAVEPOINT: on a throw, its writes and the hooks it registered are undone
   * and the error rethrown; the transaction goes on. A deadlock inside it took the whole
   * transaction (and the savepoint) with it: that error is rethrown for withTx to retry.
   */
  savepoint<T>(fn: () => Promise<T>): Promise<T>;
  /** This process's wake-ups (`wakeUps.notify` belongs in `afterCommit`). */
  readonly wakeUps: WakeUps;
  /** Where to report what committed, for metrics (report from `afterCommit`). */
  readonly observe: Observations;
}

/** The row arrays of a tuple of queries. */
export type RowsOf<Q extends readonly Compilable<unknown>[]> = {
  -readonly [K in keyof Q]: Q[K] extends Compilable<infer R> ? R[] : never;
};

/** Base delay per retry reason, in ms; doubled per attempt, with full jitter. */
const RETRY_BASE_MS: Readonly<Record<RetryReason, number>> = {
  deadlock: 2,
  lock_wait_timeout: 20,
  busy: 10,
  // Nothing to wait for: the run again counts exactly.
  admission: 0,
};

export interface TxOptions {
  /** Attempts in all, including the first (default 6). */
  readonly maxAttempts?: number;
  /** Test seam: called with the reason before each retry. */
  readonly onRetry?: (reason: RetryReason, attempt: number) => void;
  /** Test seams: `onClockRead` runs each time withTx reads the database clock (once per attempt). */
  readonly hooks?: TxHooks;
}

export interface TxHooks {
  onClockRead?(): void;
}

export async function withTx<T>(
  database: Database,
  fn: (tx: Tx) => Promise<T>,
  options: TxOptions = {},
): Promise<T> {
  const maxAttempts = options.maxAttempts ?? 6;
  let admitAtCommit = database.dialect.admitsAtCommit && database.admissions.allowed;
  for (let attempt = 1; ; attempt++) {
    try {
      return await runOnce(database, fn, options.hooks, admitAtCommit);
    } catch (e: unknown) {
      const reason = database.dialect.retryableReason(e);
      if (reason === undefined || attempt >= maxAttempts) {
        throw normaliseDriverError(database.dialect, e);
      }
      if (reason === 'admission') {
        database.admissions.refused();
        admitAtCommit = false;
      }
      options.onRetry?.(reason, attempt);
      await sleep(Math.random() * RETRY_BASE_MS[reason] * 2 ** attempt);
    }
  }
}

async function runOnce<T>(
  database: Database,
  fn: (tx: Tx) => Promise<T>,
  txHooks: TxHooks | undefined,
  admitAtCommit: boolean,
): Promise<T> {
  const hooks: (() => void)[] = [];
  const before: (() => Promise<void>)[] = [];
  const settled: ((committed: boolean) => void)[] = [];
  const result = await database.kysely.connection().execute(async (db) => {
    await db.executeQuery(deferred(CompiledQuery.raw(database.dialect.beginSql)));
    try {
      txHooks?.onClockRead?.();
      const now = await readNow(db, database.dialect);
      let savepoints = 0;
      const value = await fn({
        db,
        now,
        dialect: database.dialect,
        admitAtCommit,
        wakeUps: database.wakeUps,
        observe: database.observations,
        async write(query) {
          await db.executeQuery(deferred(query.compile()));
        },
        newIds: async (table, count) => database.ids?.take(table, count),
        async readAll<Q extends readonly Compilable<unknown>[]>(...queries: Q) {
          const { rows } = await db.executeQuery(together(queries.map((q) => q.compile())));
          return rows as RowsOf<Q>;
        },
        afterCommit: (h) => hooks.push(h),
        onSettled: (h) => settled.push(h),
        beforeCommit: (h) => before.push(h),
        async savepoint(inner) {
          const name = `sp_${++savepoints}`;
          const marks = [hooks.length, before.length, settled.length] as const;
          await db.executeQuery(deferred(CompiledQuery.raw(`SAVEPOINT ${name}`)));
          try {
            const out = await inner();
            await db.executeQuery(deferred(CompiledQuery.raw(`RELEASE SAVEPOINT ${name}`)));
            return out;
          } catch (e: unknown) {
            try {
              await db.executeQuery(CompiledQuery.raw(`ROLLBACK TO SAVEPOINT ${name}`));
              await db.executeQuery(CompiledQuery.raw(`RELEASE SAVEPOINT ${name}`));
            } catch (undo: unknown) {
              // The savepoint went with the whole transaction (MariaDB rolls all of it back on a
              // deadlock): rethrow the deadlock so withTx retries; anything else fails the
              // transaction, so no caller goes on after a refusal it could not undo.
              throw database.dialect.retryableReason(e) === undefined ? undo : e;
            }
            hooks.length = marks[0];
            before.length = marks[1];
            for (const undone of settled.splice(marks[2])) {
              undone(false);
            }
            throw e;
          }
        },
      });
      for (let i = 0; i < before.length; i++) {
        await (before[i] as () => Promise<void>)();
      }
      await db.executeQuery(CompiledQuery.raw('COMMIT'));
      return value;
    } catch (e: unknown) {
      await db.executeQuery(CompiledQuery.raw('ROLLBACK')).catch(() => undefined);
      for (const undone of settled.splice(0)) {
        undone(false);
      }
      throw e;
    }
  });
  for (const hook of hooks) {
    hook();
  }
  for (const done of settled) {
    done(true);
  }
  return result;
}

/** The database clock in Unix microseconds, outside any transaction. */
export async function readNow(db: Kysely<Schema>, dialect: Dialect): Promise<Micros> {
  const { rows } = await db.executeQuery<{ now_us: number | bigint | string }>(
    CompiledQuery.raw(dialect.nowMicrosSql),
  );
  const row = rows[0];
  if (row === undefined) {
    throw new Error('the database returned no clock row');
  }
  return toMicros(row.now_us);
}

function normaliseDriverError(dialect: Dialect, e: unknown): unknown {
  if (dialect.isConnectionError(e)) {
    return new WeaveError('unavailable', 'the database is unreachable', { cause: e });
  }
  return e;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
