/**
 * Reading an instance (runtime.md §6, A3.4–A3.6): the current view (Get), with its pinned
 * version verified; and the checks a Start replay still makes before it answers the frozen view
 * (A1.4: current rights and version ownership). Reads need `workflows:read` (the route) plus
 * scope over every queue of the pinned version.
 */
import { parse } from '@weave/json';
import type { Principal } from '../../auth/principal.js';
import { requireQueue } from '../../auth/principal.js';
import { WeaveError, notFound } from '../../errors.js';
import type { Tx } from '../../store/with-tx.js';
import type { Instance } from '../model/rows.js';
import { toInstance } from '../model/rows.js';

export interface InstanceWithVersion {
  readonly instance: Instance;
  readonly workflow: string;
  readonly queues: readonly string[];
}

/** The instance and its pinned version; a broken link is an error, never a partial view (A3.4). */
export async function readInstance(
  tx: Tx,
  namespaceId: string,
  instanceId: string,
): Promise<InstanceWithVersion> {
  const row = /^[0-9]{1,19}$/.test(instanceId)
    ? await tx.db
        .selectFrom('weave_instances')
        .selectAll()
        .where('namespace_id', '=', namespaceId)
        .where('id', '=', instanceId)
        .executeTakeFirst()
    : undefined;
  if (row === undefined) {
    throw notFound(`instance ${instanceId}`, { path: '$.instance' });
  }
  const instance = toInstance(row);
  const version = await tx.db
    .selectFrom('weave_definition_versions as v')
    .innerJoin('weave_definitions as d', (join) =>
      join.onRef('d.id', '=', 'v.definition_id').on('d.namespace_id', '=', namespaceId),
    )
    .select(['d.name', 'v.digest', 'v.queues'])
    .where('v.namespace_id', '=', namespaceId)
    .where('v.id', '=', instance.versionId)
    .executeTakeFirst();
  if (version === undefined || version.digest !== instance.digest) {
    throw new WeaveError('internal', `instance ${instanceId} has lost its pinned version`);
  }
  const queues = parse(version.queues);
  return {
    instance,
    workflow: version.name,
    queues: Array.isArray(queues) ? queues.filter((q): q is string => typeof q === 'string') : [],
  };
}

/** Scope over every queue of the pinned version (A3.6). */
export function requireInstanceQueues(principal: Principal, read: InstanceWithVersion): void {
  for (const queue of read.queues) {
    requireQueue(principal, queue);
  }
}
