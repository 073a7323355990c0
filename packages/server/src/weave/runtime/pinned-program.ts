/**
 * An instance's pinned version as a runner needs it (A1.3, A3.4): the compiled program — the
 * version row's digest checked against the instance's before the cache is asked — its queues,
 * the workflow name and whether the owning application is disabled (A5.2). A version that is
 * gone or whose digest differs is a broken link: an error, never a guess.
 */
import { parse } from '@weave/json';
import { WeaveError } from '../../errors.js';
import { shaped } from '../../store/statement-shapes.js';
import type { Tx } from '../../store/with-tx.js';
import type { Instance } from '../model/rows.js';
import type { ProgramCache } from './program-cache.js';
import { readVersionQueues } from './version-queues.js';

export type PinnedProgram = Awaited<ReturnType<typeof pinnedProgram>>;

export async function pinnedProgram(tx: Tx, instance: Instance, programs: ProgramCache) {
  const ns = instance.namespaceId;
  const { applicationId, versionId } = instance;
  const [[version]] = await tx.readAll(
    shaped(tx.db, 'pinned version', [ns, applicationId, ns, ns, versionId], () =>
      tx.db
        .selectFrom('weave_definition_versions as v')
        .innerJoin('weave_definitions as d', (j) =>
          j.onRef('d.id', '=', 'v.definition_id').on('d.namespace_id', '=', ns),
        )
        .innerJoin('applications as a', (j) =>
          j.on('a.id', '=', applicationId).on('a.namespace_id', '=', ns),
        )
        .select(['v.source', 'v.digest', 'v.queues', 'd.name', 'a.disabled'])
        .where('v.namespace_id', '=', ns)
        .where('v.id', '=', versionId),
    ),
  );
  const program =
    version !== undefined && version.digest === instance.digest
      ? programs.get(instance.versionId, version.digest, version.source)
      : undefined;
  if (version === undefined || program === undefined) {
    throw new WeaveError('internal', `instance ${instance.id} has lost its pinned version`);
  }
  const names = parse(version.queues);
  const queues = await readVersionQueues(
    tx,
    ns,
    Array.isArray(names) ? names.filter((n): n is string => typeof n === 'string') : [],
  );
  return { program, queues, workflow: version.name, disabled: Number(version.disabled) !== 0 };
}
