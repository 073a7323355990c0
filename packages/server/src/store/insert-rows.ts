/**
 * A multi-row INSERT built and compiled by Kysely once per shape (table, columns, row count,
 * RETURNING), then reused with each call's own values (docs/design/hot-path.md §12). The hot
 * inserts of a worker-call group (attempts, task events, audit rows) are a few shapes each, and
 * building and compiling them was ~3 % of a node's busy time in a drain.
 *
 * The SQL text of a shape does not depend on the values: Kysely binds every value of a VALUES
 * list as a parameter, row by row in column order. That is checked, not assumed: a shape is
 * kept only when the parameters Kysely produced for its first statement are exactly the values
 * in that order; otherwise (a missing column, a value Kysely would write inline) every
 * statement of the shape is built by Kysely as before.
 */
import { createQueryId } from 'kysely';
import type {
  Compilable,
  CompiledQuery,
  DialectAdapter,
  Insertable,
  Kysely,
  RootOperationNode,
} from 'kysely';
import type { Schema } from './schema.js';

type Table = keyof Schema;

interface Shape {
  readonly sql: string;
  readonly query: RootOperationNode;
}

/** Enough for every table × row count the hot path writes; beyond it, nothing more is kept. */
const MAX_SHAPES = 1_024;

/**
 * By dialect adapter: a transaction's `tx.db` is a Kysely instance of its own, but every instance
 * of one database shares its dialect's adapter, and the SQL text depends only on the dialect.
 */
const shapesOf = new WeakMap<DialectAdapter, Map<string, Shape | null>>();

/**
 * `INSERT INTO table (columns of the first row) VALUES (…), …` with `RETURNING returning` if
 * given. Every row has the same columns, in the same order, and no `undefined` value.
 */
export function insertRows<T extends Table, R = Record<string, never>>(
  db: Kysely<Schema>,
  table: T,
  rows: readonly Insertable<Schema[T]>[],
  returning: readonly string[] = [],
): Compilable<R> {
  return {
    compile(): CompiledQuery<R> {
      const columns = Object.keys(rows[0] ?? {});
      const values = rows.flatMap((row) => columns.map((c) => (row as Record<string, unknown>)[c]));
      const key = `${table}(${columns.join(',')})×${rows.length}→${returning.join(',')}`;
      const adapter = db.getExecutor().adapter;
      let shapes = shapesOf.get(adapter);
      if (shapes === undefined) {
        shapes = new Map();
        shapesOf.set(adapter, shapes);
      }
      // A row with other columns (one left undefined, which Kysely leaves out, or one more) makes
      // another statement than the shape's: built by Kysely, never kept.
      const sameColumns =
        !values.includes(undefined) &&
        rows.every((row) => Object.keys(row).length === columns.length);
      const shape = sameColumns ? shapes.get(key) : null;
      if (shape !== undefined && shape !== null) {
        return {
          sql: shape.sql,
          parameters: values,
          query: shape.query,
          queryId: createQueryId(),
        };
      }
      const built = db.insertInto(table).values(rows);
      const compiled = (
        returning.length === 0 ? built : built.returning(returning as never)
      ).compile() as CompiledQuery<R>;
      if (shape === undefined && shapes.size < MAX_SHAPES) {
        const same =
          compiled.parameters.length === values.length &&
          compiled.parameters.every((p, i) => p === values[i]);
        shapes.set(key, same ? { sql: compiled.sql, query: compiled.query } : null);
      }
      return compiled;
    },
  };
}
