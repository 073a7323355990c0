/**
 * `UPDATE table SET … WHERE namespace_id = ? AND id = ?` built and compiled by Kysely once per
 * shape (table and the columns set, in order), then reused with each call's own values
 * (docs/design/hot-path.md §26), as `insertRows` does for inserts.
 *
 * Kysely binds every SET value as a parameter in the object's key order, then the two WHERE
 * values; that is what `shaped` checks on the first statement of each shape
 * (store/statement-shapes.ts). A value left undefined (Kysely leaves the column out) makes
 * another statement than the shape's: built by Kysely, never kept.
 */
import type { Compilable, Kysely, Updateable } from 'kysely';
import type { Schema } from './schema.js';
import { shaped } from './statement-shapes.js';

type RowTable = {
  [T in keyof Schema]: Schema[T] extends { namespace_id: unknown; id: unknown } ? T : never;
}[keyof Schema];

export function updateRow<T extends RowTable>(
  db: Kysely<Schema>,
  table: T,
  set: Updateable<Schema[T]>,
  namespaceId: string,
  id: string,
): Compilable<unknown> {
  const columns = Object.keys(set);
  const values = Object.values(set);
  return shaped(
    db,
    values.includes(undefined) ? undefined : `update ${table}(${columns.join(',')})`,
    [...values, namespaceId, id],
    () =>
      // Typed as any table with the two keys: `set` was checked against `table` above.
      (db as unknown as Kysely<{ row: { namespace_id: string; id: string } }>)
        .updateTable(table as 'row')
        .set(set as never)
        .where('namespace_id', '=', namespaceId)
        .where('id', '=', id),
  );
}
