/**
 * `namespace_id` as a row filter that no index may serve, for statements that name their rows
 * by primary key (`WHERE id IN (…) AND namespace_id = ?`). SQLite's planner has no statistics
 * and, from 8 ids in the list on, prefers a namespace-first index (`ix_tasks_namespace
 * (namespace_id, …)` and its like on other tables) over the id list, for an UPDATE and a SELECT
 * alike: every row of the namespace read to find the listed ones (0.5–0.7 ms per statement at
 * 10,000 tasks, docs/design/hot-path.md §5, §18). The unary `+` makes the column an expression,
 * so the primary key is the only access path left; MariaDB, whose planner already chose
 * PRIMARY, reads the same plan. The filter still applies to every row.
 * `test/store/namespace-scope.test.ts` plans every listed statement of its workload on SQLite
 * with long lists and refuses a search by `namespace_id` alone.
 */
import { sql } from 'kysely';
import type { RawBuilder, SqlBool } from 'kysely';

/**
 * `+namespace_id IN (…)` with the ids bound as integers: an expression column has no affinity
 * in SQLite, so a text parameter ('1') would never equal it (docs: "Type Affinity").
 */
export function inNamespaces(namespaceIds: readonly string[]): RawBuilder<SqlBool> {
  const ids = namespaceIds.map((id) => BigInt(id));
  return sql<SqlBool>`+namespace_id in (${sql.join(ids)})`;
}
