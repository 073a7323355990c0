/**
 * Where a workflow task sits (issue 12 Deliver 6, E4.7): the activation that owns it
 * (`tasks.owner_id`, E1.3), that activation's step and instance, the instance's workflow and
 * pinned version (verified as every read does, A3.4), and for a POLL query task its round
 * (`weave_poll_rounds.task_id`, unique per namespace). Plain reads, no locks; every link is
 * checked both ways, and a broken one is a 500, never a partial answer (A3.4).
 */
import { WeaveError } from '../../errors.js';
import { toId, toIdOrNull, toInt } from '../../store/values.js';
import type { Tx } from '../../store/with-tx.js';
import type { InstanceWithVersion } from './read-instance.js';
import { readInstance } from './read-instance.js';

export interface TaskOwnerRead {
  readonly read: InstanceWithVersion;
  readonly stepId: string;
  readonly activationId: string;
  readonly activationNumber: number;
  readonly pollRound: { readonly id: string; readonly number: number } | null;
}

export interface TaskOwnerKey {
  readonly namespaceId: string;
  readonly taskId: string;
  /** `tasks.owner_id` of a `workflow_activation` task. */
  readonly activationId: string;
}

export async function readTaskOwner(tx: Tx, key: TaskOwnerKey): Promise<TaskOwnerRead> {
  const { namespaceId, taskId, activationId } = key;
  const broken = (what: string) =>
    new WeaveError('internal', `task ${taskId} (activation ${activationId}): ${what}`);
  const activation = await tx.db
    .selectFrom('weave_activations')
    .select(['instance_id', 'step_id', 'number', 'kind', 'task_id'])
    .where('namespace_id', '=', namespaceId)
    .where('id', '=', activationId)
    .executeTakeFirst();
  if (activation === undefined) {
    throw broken('the owning activation is missing');
  }
  let pollRound: TaskOwnerRead['pollRound'] = null;
  if (activation.kind === 'POLL') {
    const round = await tx.db
      .selectFrom('weave_poll_rounds')
      .select(['id', 'number', 'activation_id'])
      .where('namespace_id', '=', namespaceId)
      .where('task_id', '=', taskId)
      .executeTakeFirst();
    if (round === undefined || toId(round.activation_id) !== activationId) {
      throw broken('no round of the POLL activation names this task');
    }
    pollRound = { id: toId(round.id), number: toInt(round.number) };
  } else if (toIdOrNull(activation.task_id) !== taskId) {
    throw broken('the activation names another task');
  }
  const read = await readInstance(tx, namespaceId, toId(activation.instance_id));
  return {
    read,
    stepId: activation.step_id,
    activationId,
    activationNumber: toInt(activation.number),
    pollRound,
  };
}
