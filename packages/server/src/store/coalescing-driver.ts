/**
 * Write coalescing for MariaDB/MySQL: a write whose answer nobody reads (an event insert, an
 * audit row, a settled attempt, BEGIN, SAVEPOINT) is not sent on its own. It waits on the
 * connection and goes out in the same packet as the next statement whose answer is needed (a
 * read, an insert that returns ids, COMMIT), as one multi-statement query. The server runs them
 * in order, as if sent one by one; the client saves a round trip — a socket write, a wake-up of
 * the server thread and a read — per deferred statement, which on this machine is most of the
 * cost of a small statement (docs/design/pulse.md "Round trips").
 *
 * Semantics, for code that defers (`tx.write`, with-tx.ts):
 *   - order is kept: a deferred write always runs before any later statement of the connection;
 *   - a deferred write that fails makes the statement that carried it fail with its error (the
 *     transaction rolls back as it would have); so only writes whose failure fails the
 *     transaction anyway may be deferred — never an insert whose duplicate-key error is caught;
 *   - `ROLLBACK` drops what is still waiting (it would be undone anyway, and a failing write must
 *     not keep the rollback from running).
 * Reads that are all needed can go out together too (`together`, `tx.readAll`): one packet, one
 * answer per statement.
 *
 * SQLite has no round trips: there the same wrapper runs a deferred write at once and the
 * statements of `together` one after the other.
 *
 * The pool must be created with `multipleStatements: true`. Every statement is still built by
 * Kysely with parameters (no SQL text from input), which is what makes that flag safe here.
 */
import { CompiledQuery, MysqlDialect, SqliteDialect } from 'kysely';
import type {
  DatabaseConnection,
  Driver,
  MysqlDialectConfig,
  QueryResult,
  SqliteDialectConfig,
  TransactionSettings,
} from 'kysely';
import { flatten } from './flatten.js';
import { packetParameters } from './statement-text.js';

/**
 * Test seam (STYLE.md §8): sees every statement a connection runs, each with its own text and
 * parameters — a deferred write when it is queued, each part of `together` on its own — before it
 * is sent (coalesced or not). `connection` is the same object for every statement of one
 * connection (a transaction runs on one), opaque to the caller.
 */
export type StatementHook = (
  sql: string,
  parameters: readonly unknown[],
  connection: object,
) => void;

const DEFERRED = new WeakSet<CompiledQuery>();

/**
 * Above this many characters waiting (SQL and string parameters, before escaping), the waiting
 * writes go out on their own first, so one packet stays far below `max_allowed_packet`
 * (16 MiB by default) even for a batch of large results.
 */
const MAX_PENDING_CHARS = 4 * 1024 * 1024;

/** Marks a compiled write as deferrable (see the module comment); returns it. */
export function deferred(query: CompiledQuery): CompiledQuery {
  DEFERRED.add(query);
  return query;
}

const TOGETHER = new WeakMap<CompiledQuery, readonly CompiledQuery[]>();

/**
 * Several statements sent as one; executing it answers `rows` = one raw result per statement
 * (an array of rows, or for a write its OK packet on MariaDB and `[]` on SQLite).
 */
export function together(queries: readonly CompiledQuery[]): CompiledQuery {
  const query = CompiledQuery.raw(
    queries.map((q) => q.sql).join(';\n'),
    flatten(queries, (q) => q.parameters),
  );
  TOGETHER.set(query, queries);
  return query;
}

export class CoalescingMysqlDialect extends MysqlDialect {
  readonly #onStatement: StatementHook | undefined;

  constructor(config: MysqlDialectConfig, onStatement?: StatementHook) {
    super(config);
    this.#onStatement = onStatement;
  }

  override createDriver(): Driver {
    return new CoalescingDriver(super.createDriver(), true, this.#onStatement);
  }
}

/** SQLite: `tx.write` runs at once, `together` one statement after the other. */
export class SequentialSqliteDialect extends SqliteDialect {
  readonly #onStatement: StatementHook | undefined;

  constructor(config: SqliteDialectConfig, onStatement?: StatementHook) {
    super(config);
    this.#onStatement = onStatement;
  }

  override createDriver(): Driver {
    return new CoalescingDriver(super.createDriver(), false, this.#onStatement);
  }
}

class CoalescingDriver implements Driver {
  readonly #inner: Driver;
  readonly #coalesce: boolean;
  readonly #onStatement: StatementHook | undefined;
  readonly #wrapped = new WeakMap<DatabaseConnection, CoalescingConnection>();

  constructor(inner: Driver, coalesce: boolean, onStatement: StatementHook | undefined) {
    this.#inner = inner;
    this.#coalesce = coalesce;
    this.#onStatement = onStatement;
  }

  init(): Promise<void> {
    return this.#inner.init();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    const inner = await this.#inner.acquireConnection();
    let connection = this.#wrapped.get(inner);
    if (connection === undefined) {
      connection = new CoalescingConnection(inner, this.#coalesce, this.#onStatement);
      this.#wrapped.set(inner, connection);
    }
    return connection;
  }

  beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    return this.#inner.beginTransaction(connection, settings);
  }

  commitTransaction(connection: DatabaseConnection): Promise<void> {
    return this.#inner.commitTransaction(connection);
  }

  rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    return this.#inner.rollbackTransaction(connection);
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    const coalescing = connection as CoalescingConnection;
    // Every transaction ends with COMMIT or ROLLBACK, which empty the queue; anything left is
    // outside a transaction and must not leak into the next user of the connection.
    await coalescing.flush();
    await this.#inner.releaseConnection(coalescing.inner);
  }

  destroy(): Promise<void> {
    return this.#inner.destroy();
  }
}

class CoalescingConnection implements DatabaseConnection {
  readonly inner: DatabaseConnection;
  readonly #coalesce: boolean;
  readonly #onStatement: StatementHook | undefined;
  #pending: CompiledQuery[] = [];
  #pendingChars = 0;

  constructor(
    inner: DatabaseConnection,
    coalesce: boolean,
    onStatement: StatementHook | undefined,
  ) {
    this.inner = inner;
    this.#coalesce = coalesce;
    this.#onStatement = onStatement;
  }

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    if (this.#onStatement !== undefined) {
      this.#log(this.#onStatement, query);
    }
    const parts = TOGETHER.get(query);
    if (parts !== undefined) {
      return { rows: (await this.#executeTogether(parts)) as R[] };
    }
    if (DEFERRED.has(query) && this.#coalesce) {
      const chars = sizeOf(query);
      if (this.#pendingChars + chars > MAX_PENDING_CHARS) {
        await this.flush();
      }
      this.#pending.push(query);
      this.#pendingChars += chars;
      return { rows: [] };
    }
    if (/^\s*rollback\s*$/i.test(query.sql)) {
      this.#pending = [];
      this.#pendingChars = 0;
    }
    if (this.#pending.length === 0) {
      return this.inner.executeQuery<R>(query);
    }
    // By index, not `const [result] =`: destructuring allocates an iterator a statement.
    const results = await this.#sendWithPending([query]);
    return shaped<R>(results[0]);
  }

  /** Each statement of `query` (each part of `together`) to the hook, with the inner connection. */
  #log(hook: StatementHook, query: CompiledQuery): void {
    for (const part of TOGETHER.get(query) ?? [query]) {
      hook(part.sql, part.parameters, this.inner);
    }
  }

  /** One raw result per statement of `parts`, sent in one packet after what is waiting. */
  async #executeTogether(parts: readonly CompiledQuery[]): Promise<unknown[]> {
    if (this.#coalesce) {
      return this.#sendWithPending(parts);
    }
    const results: unknown[] = [];
    for (const part of parts) {
      results.push((await this.inner.executeQuery(part)).rows);
    }
    return results;
  }

  /** Sends what is waiting, if anything, on its own. */
  async flush(): Promise<void> {
    const last = this.#pending.pop();
    if (last !== undefined) {
      await this.#sendWithPending([last]);
    }
  }

  async *streamQuery<R>(
    query: CompiledQuery,
    chunkSize?: number,
  ): AsyncIterableIterator<QueryResult<R>> {
    if (this.#onStatement !== undefined) {
      this.#log(this.#onStatement, query);
    }
    await this.flush();
    yield* this.inner.streamQuery<R>(query, chunkSize);
  }

  /**
   * What is waiting, then `parts`, in one packet: the raw result of each of `parts` (rows, or a
   * write's OK packet). A packet of one statement is answered as Kysely shapes it, so only its
   * rows are passed on (`parts` of one read, with nothing waiting).
   */
  async #sendWithPending(parts: readonly CompiledQuery[]): Promise<unknown[]> {
    const batch = this.#pending.length === 0 ? parts : this.#pending.concat(parts);
    this.#pending = [];
    this.#pendingChars = 0;
    const only = batch[0];
    if (batch.length === 1 && only !== undefined) {
      return [(await this.inner.executeQuery(only)).rows];
    }
    const { rows } = await this.inner.executeQuery(
      CompiledQuery.raw(batch.map((q) => q.sql).join(';\n'), packetParameters(batch)),
    );
    return rows.slice(-parts.length);
  }
}

function sizeOf(query: CompiledQuery): number {
  let chars = query.sql.length;
  const parameters = query.parameters;
  for (let i = 0; i < parameters.length; i++) {
    const p = parameters[i];
    chars += typeof p === 'string' ? p.length : 24;
  }
  return chars;
}

interface OkPacket {
  readonly insertId?: number | string | bigint | null;
  readonly affectedRows?: number | string | bigint | null;
  readonly changedRows?: number | string | bigint | null;
}

function isOkPacket(value: unknown): value is OkPacket {
  return (
    typeof value === 'object' && value !== null && 'insertId' in value && 'affectedRows' in value
  );
}

/**
 * One statement's raw result from a multi-statement answer (Kysely's MySQL connection passes the
 * array of per-statement results through as `rows`), shaped as Kysely shapes a single one.
 */
function shaped<R>(result: unknown): QueryResult<R> {
  if (Array.isArray(result)) {
    return { rows: result as R[] };
  }
  if (isOkPacket(result)) {
    const big = (v: number | string | bigint | null | undefined) =>
      v === undefined || v === null ? undefined : BigInt(v);
    const insertId = big(result.insertId);
    const affected = big(result.affectedRows);
    const changed = big(result.changedRows);
    return {
      ...(insertId === undefined || insertId === 0n ? {} : { insertId }),
      ...(affected === undefined ? {} : { numAffectedRows: affected }),
      ...(changed === undefined ? {} : { numChangedRows: changed }),
      rows: [],
    };
  }
  return { rows: [] };
}
