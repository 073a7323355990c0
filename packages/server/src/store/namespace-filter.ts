/**
 * `namespace_id` as a row filter that no index may serve, for statements that name their rows
 * by primary key (`WHERE id IN (…) AND namespace_id = ?`). SQLite's planner has no statistics
 * and, for an UPDATE, preferred `ix_tasks_namespace (namespace_id, …)` over the id list: every
 * task of the namespace read to change six (0.5 ms per statement at 10,000 tasks, the largest
 * single cost of a burn-down on SQLite, docs/benchmarks.md "Hot path"). The unary `+` makes the
 * column an expression, so the primary key is the only access path left; MariaDB, whose planner
 * already chose PRIMARY, reads the same plan. The filter still applies to every row.
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
