/**
 * Statements a server ran, for tests that prove what a transaction does and in which order
 * (E1.8, E1.9): pass `log.hook` as the server's `onStatement` and read the transactions back.
 * The hook sees every statement of a connection in the order it was issued (a deferred write
 * when it is queued, each part of a `readAll` on its own: coalescing-driver.ts), so the order
 * within one transaction is the order the database runs them in.
 */
import type { StatementHook } from '../../src/store/database.js';

export interface Statement {
  /** The SQL text as Kysely compiled it, identifier quotes removed, whitespace collapsed. */
  readonly sql: string;
  readonly parameters: readonly unknown[];
  readonly connection: object;
}

export interface Transaction {
  readonly statements: readonly Statement[];
  readonly committed: boolean;
}

export class StatementLog {
  readonly #all: Statement[] = [];

  /** The server option `onStatement`. */
  readonly hook: StatementHook = (sql, parameters, connection) => {
    this.#all.push({ sql: normalise(sql), parameters, connection });
  };

  /** A position to read from later (`transactions(mark)`). */
  mark(): number {
    return this.#all.length;
  }

  /** The transactions (BEGIN … COMMIT or ROLLBACK on one connection) begun after `from`. */
  transactions(from = 0): Transaction[] {
    const open = new Map<object, Statement[]>();
    const done: Transaction[] = [];
    for (const statement of this.#all.slice(from)) {
      const verb = verbOf(statement.sql);
      if (verb === 'begin') {
        open.set(statement.connection, [statement]);
        continue;
      }
      const list = open.get(statement.connection);
      if (list === undefined) {
        continue;
      }
      list.push(statement);
      if (verb === 'commit' || verb === 'rollback') {
        open.delete(statement.connection);
        done.push({ statements: list, committed: verb === 'commit' });
      }
    }
    return done;
  }

  /** The one committed transaction begun after `from` that has a statement matching `which`. */
  only(from: number, which: (s: Statement) => boolean): Transaction {
    const found = this.transactions(from).filter((t) => t.committed && t.statements.some(which));
    if (found.length !== 1) {
      throw new Error(`expected one such transaction, found ${found.length}`);
    }
    return found[0] as Transaction;
  }
}

function normalise(sql: string): string {
  return sql.replace(/[`"]/g, '').replace(/\s+/g, ' ').trim();
}

/** `select`, `insert`, `update`, `delete`, `begin`, `commit`, … (lower case). */
export function verbOf(sql: string): string {
  return /^\s*(\w+)/.exec(sql)?.[1]?.toLowerCase() ?? '';
}

/** Every table the statement names after FROM, JOIN, INTO or UPDATE. */
export function tablesOf(sql: string): string[] {
  return [...sql.matchAll(/\b(?:from|join|into|update)\s+(\w+)/gi)].map((m) => m[1] ?? '');
}

/** A locking read (`FOR UPDATE`, `FOR SHARE`, `LOCK IN SHARE MODE`; SQLite writes none). */
export function isLockingRead(sql: string): boolean {
  return (
    verbOf(sql) === 'select' && /\bfor update\b|\bfor share\b|\block in share mode\b/i.test(sql)
  );
}

/** Names a table (any of FROM/JOIN/INTO/UPDATE). */
export function touches(statement: Statement, table: string): boolean {
  return tablesOf(statement.sql).includes(table);
}
