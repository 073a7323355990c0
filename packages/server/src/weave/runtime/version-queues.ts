/** The queues a version uses, by name (each must still exist: A1.3, A3.4). */
import { notFound } from '../../errors.js';
import { toId, toInt } from '../../store/values.js';
import { shaped } from '../../store/statement-shapes.js';
import type { Tx } from '../../store/with-tx.js';
import type { RoundQueue } from './activate-work.js';

export async function readVersionQueues(
  tx: Tx,
  namespaceId: string,
  names: readonly string[],
): Promise<Map<string, RoundQueue>> {
  if (names.length === 0) {
    return new Map();
  }
  const [rows] = await tx.readAll(
    shaped(tx.db, `version queues ×${names.length}`, [namespaceId, ...names], () =>
      tx.db
        .selectFrom('queues')
        .select(['id', 'name', 'application_id', 'capacity'])
        .where('namespace_id', '=', namespaceId)
        .where('name', 'in', [...names]),
    ),
  );
  const queues = new Map(
    rows.map((r) => [
      r.name,
      {
        id: toId(r.id),
        name: r.name,
        applicationId: toId(r.application_id),
        capacity: toInt(r.capacity),
      },
    ]),
  );
  for (const name of names) {
    if (!queues.has(name)) {
      throw notFound(`queue ${name}, which the workflow uses`, { path: '$.workflow' });
    }
  }
  return queues;
}
