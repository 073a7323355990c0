/**
 * Statements built and compiled by Kysely once per shape, then reused with each call's own
 * parameters (docs/design/hot-path.md §12–§13). The hot statements of a worker-call group (the
 * claim's task update, the settled tasks' and attempts' updates, the reads, the inserts) are a
 * few shapes each, and building and compiling them per call was ~10 % of a node's busy time in
 * a drain.
 *
 * A shape is named by its caller: a key that, with the parameters all bound, fixes the SQL text
 * (the table, the columns, the row or id count, which values are one for every row and which go
 * through CASE, …). The caller also says which parameters it expects, in order. That is checked,
 * not assumed: a shape is kept only when the parameters Kysely produced for its first statement
 * are exactly those; otherwise (a value Kysely writes inline, an order the caller got wrong)
 * every statement of the shape is built by Kysely as before. A statement whose expected
 * parameters include anything but a plain value (an `sql` expression, say) never takes a kept
 * shape either: it would change the text.
 */
import { createQueryId } from 'kysely';
import type { Compilable, CompiledQuery, DialectAdapter, Kysely, RootOperationNode } from 'kysely';
import type { Schema } from './schema.js';

interface Shape {
  readonly sql: string;
  readonly query: RootOperationNode;
}

/** Enough for every statement × row count the hot path runs; beyond it, nothing more is kept. */
const MAX_SHAPES = 4_096;

/**
 * By dialect adapter: a transaction's `tx.db` is a Kysely instance of its own, but every instance
 * of one database shares its dialect's adapter, and the SQL text depends only on the dialect.
 * A key maps to its shape, or to null when Kysely's parameters were not the expected ones.
 */
const shapesOf = new WeakMap<DialectAdapter, Map<string, Shape | null>>();

/**
 * `build()`'s statement, compiled by Kysely the first time `shape` is seen and taken from the
 * kept text after that, with `parameters`. `shape` undefined: never kept (a statement of a
 * shape the caller cannot name).
 */
export function shaped<R>(
  db: Kysely<Schema>,
  shape: string | undefined,
  parameters: readonly unknown[],
  build: () => Compilable<R>,
): Compilable<R> {
  return {
    compile(): CompiledQuery<R> {
      const shapes = shapesFor(db);
      const plain = shape !== undefined && parameters.every(isPlain);
      const kept = plain ? shapes.get(shape) : null;
      if (kept !== undefined && kept !== null) {
        return { sql: kept.sql, parameters, query: kept.query, queryId: createQueryId() };
      }
      const compiled = build().compile();
      if (kept === undefined && shapes.size < MAX_SHAPES) {
        const same =
          compiled.parameters.length === parameters.length &&
          compiled.parameters.every((p, i) => p === parameters[i]);
        shapes.set(shape as string, same ? { sql: compiled.sql, query: compiled.query } : null);
      }
      return compiled;
    },
  };
}

/** Test seam: each shape seen on `db`'s dialect, true if kept, false if Kysely disagreed. */
export function shapesSeen(db: Kysely<Schema>): ReadonlyMap<string, boolean> {
  return new Map([...shapesFor(db)].map(([key, shape]) => [key, shape !== null]));
}

function shapesFor(db: Kysely<Schema>): Map<string, Shape | null> {
  const adapter = db.getExecutor().adapter;
  let shapes = shapesOf.get(adapter);
  if (shapes === undefined) {
    shapes = new Map();
    shapesOf.set(adapter, shapes);
  }
  return shapes;
}

/** A value Kysely binds as one parameter whatever it is: never part of the text. */
function isPlain(value: unknown): boolean {
  return (
    value === null ||
    typeof value === 'string' ||
    typeof value === 'number' ||
    typeof value === 'bigint' ||
    typeof value === 'boolean' ||
    value instanceof Uint8Array
  );
}
