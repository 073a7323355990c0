/**
 * A multi-row INSERT built and compiled by Kysely once per shape (table, columns, row count,
 * RETURNING), then reused with each call's own values (docs/design/hot-path.md §12). The hot
 * inserts of a worker-call group (attempts, task events, audit rows) are a few shapes each.
 *
 * Kysely binds every value of a VALUES list as a parameter, row by row in column order; that is
 * what `shaped` checks on the first statement of each shape (store/statement-shapes.ts).
 */
import type { Compilable, Insertable, Kysely } from 'kysely';
import type { Schema } from './schema.js';
import { shaped } from './statement-shapes.js';
import { flatten } from './flatten.js';

type Table = keyof Schema;

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
  const columns = Object.keys(rows[0] ?? {});
  const values = flatten(rows, (row) => columns.map((c) => (row as Record<string, unknown>)[c]));
  // A row with other columns (one left undefined, which Kysely leaves out, or one more) makes
  // another statement than the shape's: built by Kysely, never kept.
  const sameColumns =
    !values.includes(undefined) && rows.every((row) => Object.keys(row).length === columns.length);
  return shaped(
    db,
    sameColumns
      ? `insert ${table}(${columns.join(',')})×${rows.length}→${returning.join(',')}`
      : undefined,
    values,
    () => {
      const built = db.insertInto(table).values(rows);
      return returning.length === 0 ? built : built.returning(returning as never);
    },
  );
}
