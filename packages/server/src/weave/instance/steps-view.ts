/**
 * Steps (runtime.md §6, A3.3): every static step's metadata and the instance revision from
 * **one statement**, so the revision and the rows come from the same read view (InnoDB gives a
 * statement one consistent snapshot even at READ COMMITTED). The instance is left-joined to its
 * steps so that an instance without steps still gives its revision; a POLL's current round is
 * joined too (its task is the step's task reference). `$root` is never listed; no inputs or
 * outputs are read. A current activation that is not an activation of that step is a broken
 * link: 500, never a partial answer (A3.4).
 */
import { ROOT_STEP_ID } from '@weave/engine';
import type { StepKind, StepStatus } from '@weave/engine';
import { STEP_KINDS, STEP_STATUSES } from '@weave/engine';
import { WeaveError, notFound } from '../../errors.js';
import { toId, toIdOrNull, toInt } from '../../store/values.js';
import type { Tx } from '../../store/with-tx.js';
import { toState } from '../model/states.js';

export interface StepLine {
  readonly stepId: string;
  readonly kind: StepKind;
  readonly status: StepStatus;
  readonly position: number;
  readonly activationId: string | null;
  /** A TASK's task, or a POLL's current round's query task. */
  readonly taskId: string | null;
}

export interface StepsRead {
  readonly revision: bigint;
  readonly steps: readonly StepLine[];
}

export async function readSteps(
  tx: Tx,
  namespaceId: string,
  instanceId: string,
): Promise<StepsRead> {
  const rows = await tx.db
    .selectFrom('weave_instances as i')
    .leftJoin('weave_steps as s', (join) =>
      join
        .onRef('s.namespace_id', '=', 'i.namespace_id')
        .onRef('s.instance_id', '=', 'i.id')
        .on('s.step_id', '<>', ROOT_STEP_ID),
    )
    .leftJoin('weave_activations as a', (join) =>
      join
        .onRef('a.namespace_id', '=', 'i.namespace_id')
        .onRef('a.id', '=', 's.current_activation_id'),
    )
    .leftJoin('weave_poll_rounds as r', (join) =>
      join.onRef('r.namespace_id', '=', 'i.namespace_id').onRef('r.id', '=', 'a.current_round_id'),
    )
    .select([
      'i.revision',
      's.id as step_row_id',
      's.step_id',
      's.kind',
      's.status',
      's.position',
      's.current_activation_id',
      'a.id as a_id',
      'a.step_row_id as a_step',
      'a.task_id as a_task',
      'a.current_round_id as a_round',
      'r.id as r_id',
      'r.activation_id as r_activation',
      'r.task_id as r_task',
    ])
    .where('i.namespace_id', '=', namespaceId)
    .where('i.id', '=', instanceId)
    .orderBy('s.position')
    .execute();
  const [first] = rows;
  if (first === undefined) {
    throw notFound(`instance ${instanceId}`, { path: '$.instance' });
  }
  const steps: StepLine[] = [];
  for (const row of rows) {
    if (row.step_row_id === null || row.step_id === null) {
      continue;
    }
    const broken = (what: string) =>
      new WeaveError('internal', `instance ${instanceId} step ${row.step_id}: ${what}`);
    const kind = toState(STEP_KINDS, row.kind ?? '', 'weave_steps.kind');
    const activationId = toIdOrNull(row.current_activation_id);
    if (activationId !== null) {
      if (row.a_id === null || toId(row.a_step ?? 0) !== toId(row.step_row_id)) {
        throw broken(`its current activation ${activationId} is not an activation of the step`);
      }
    }
    let taskId: string | null = null;
    if (activationId !== null && kind === 'TASK') {
      taskId = toIdOrNull(row.a_task);
    }
    if (activationId !== null && kind === 'POLL' && row.a_round !== null) {
      if (row.r_id === null || toId(row.r_activation ?? 0) !== activationId) {
        throw broken(`its current round ${toId(row.a_round)} is not a round of its activation`);
      }
      taskId = toIdOrNull(row.r_task);
    }
    steps.push({
      stepId: row.step_id,
      kind,
      status: toState(STEP_STATUSES, row.status ?? '', 'weave_steps.status'),
      position: toInt(row.position ?? 0),
      activationId,
      taskId,
    });
  }
  return { revision: BigInt(first.revision), steps };
}
