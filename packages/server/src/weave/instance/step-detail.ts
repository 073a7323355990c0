/**
 * Step detail (runtime.md §6): one step row (`$root` is not addressable), its latest 100
 * activations by number, their tasks and attempts (Pulse's `tasks` / `task_attempts`), poll
 * rounds and waits. Rows are never deleted, so the separate statements of one transaction can
 * show a newer state but never a missing link — a missing one is therefore a broken link: 500
 * `internal`, never a partial answer (A3.4). Broken links: the step's current activation is not
 * among its activations; an activation's or round's task row is missing or owned by someone
 * else; a POLL's current round is not one of its rounds.
 */
import { ROOT_STEP_ID } from '@weave/engine';
import { instances } from '@weave/sdk/protocol';
import { WeaveError, notFound } from '../../errors.js';
import { visibleStatus } from '../../pulse/list-tasks.js';
import { toTask } from '../../pulse/task-record.js';
import type { Task } from '../../pulse/task-record.js';
import type { AttemptStatus, TaskStatus } from '../../pulse/task-states.js';
import { ATTEMPT_STATUSES } from '../../pulse/task-states.js';
import type { Micros } from '../../store/values.js';
import { toId, toInt, toMicros, toMicrosOrNull } from '../../store/values.js';
import type { Tx } from '../../store/with-tx.js';
import type { Activation, PollRound, StepRow, Wait } from '../model/rows.js';
import { toActivation, toPollRound, toStepRow, toWait } from '../model/rows.js';
import { toState } from '../model/states.js';
import { OWNER_ACTIVATION } from '../delivery/deliver-result.js';
import { inNamespaces } from '../../store/namespace-filter.js';

export interface AttemptLine {
  readonly id: string;
  readonly number: number;
  readonly status: AttemptStatus;
  readonly workerId: string;
  readonly claimedAt: Micros;
  /** The attempt's lease: renewed by heartbeats, fixed once it ends. */
  readonly leaseUntil: Micros;
  readonly startedAt: Micros | null;
  readonly finishedAt: Micros | null;
  readonly errorCode: string | null;
}

export interface ActivationTaskRead {
  readonly id: string;
  readonly status: TaskStatus;
  readonly revision: bigint;
  readonly attempts: readonly AttemptLine[];
}

export interface ActivationRead {
  readonly activation: Activation;
  readonly task: ActivationTaskRead | null;
  readonly rounds: readonly PollRound[];
  readonly waits: readonly Wait[];
}

export interface StepDetailRead {
  readonly step: StepRow;
  readonly activations: readonly ActivationRead[];
}

export async function readStepDetail(
  tx: Tx,
  namespaceId: string,
  instanceId: string,
  stepId: string,
): Promise<StepDetailRead> {
  const stepRow =
    stepId === ROOT_STEP_ID
      ? undefined
      : await tx.db
          .selectFrom('weave_steps')
          .selectAll()
          .where('namespace_id', '=', namespaceId)
          .where('instance_id', '=', instanceId)
          .where('step_id', '=', stepId)
          .executeTakeFirst();
  if (stepRow === undefined) {
    throw notFound(`step ${stepId} of instance ${instanceId}`, { path: '$.step' });
  }
  const step = toStepRow(stepRow);
  const broken = (what: string) =>
    new WeaveError('internal', `instance ${instanceId} step ${stepId}: ${what}`);

  const activations = (
    await tx.db
      .selectFrom('weave_activations')
      .selectAll()
      .where('namespace_id', '=', namespaceId)
      .where('step_row_id', '=', step.id)
      .orderBy('number', 'desc')
      .limit(instances.MAX_VIEW_ACTIVATIONS)
      .execute()
  )
    .map(toActivation)
    .reverse();
  if (
    step.currentActivationId !== null &&
    !activations.some((a) => a.id === step.currentActivationId)
  ) {
    throw broken(`its current activation ${step.currentActivationId} is not one of its own`);
  }
  if (activations.some((a) => a.instanceId !== instanceId)) {
    throw broken('an activation of another instance points at the step');
  }
  const ids = activations.map((a) => a.id);
  const rounds =
    ids.length === 0
      ? []
      : (
          await tx.db
            .selectFrom('weave_poll_rounds')
            .selectAll()
            .where('namespace_id', '=', namespaceId)
            .where('activation_id', 'in', ids)
            .orderBy('activation_id')
            .orderBy('number')
            .execute()
        ).map(toPollRound);
  const waits =
    ids.length === 0
      ? []
      : (
          await tx.db
            .selectFrom('weave_waits')
            .selectAll()
            .where('namespace_id', '=', namespaceId)
            .where('activation_id', 'in', ids)
            .orderBy('id')
            .execute()
        ).map(toWait);
  for (const a of activations) {
    const current = a.poll?.currentRoundId ?? null;
    if (current !== null && !rounds.some((r) => r.id === current && r.activationId === a.id)) {
      throw broken(`activation ${a.id}'s current round ${current} is not one of its rounds`);
    }
  }

  const owners = new Map<string, { kind: string; id: string }>();
  for (const a of activations) {
    if (a.taskId !== null) {
      owners.set(a.taskId, { kind: OWNER_ACTIVATION, id: a.id });
    }
  }
  for (const r of rounds) {
    if (r.taskId !== null) {
      owners.set(r.taskId, { kind: OWNER_ACTIVATION, id: r.activationId });
    }
  }
  const tasks = await readTasks(tx, namespaceId, [...owners.keys()]);
  for (const [taskId, owner] of owners) {
    const task = tasks.get(taskId);
    if (task === undefined) {
      throw broken(`task ${taskId} is missing`);
    }
    if (task.ownerKind !== owner.kind || task.ownerId !== owner.id) {
      throw broken(`task ${taskId} is not owned by ${owner.kind} ${owner.id}`);
    }
  }
  const taskIds = activations.flatMap((a) => (a.taskId === null ? [] : [a.taskId]));
  const attempts = await readAttempts(tx, namespaceId, taskIds);

  return {
    step,
    activations: activations.map((activation) => {
      const task = activation.taskId === null ? undefined : tasks.get(activation.taskId);
      return {
        activation,
        task:
          task === undefined
            ? null
            : {
                id: task.id,
                status: visibleStatus(task, tx.now),
                revision: task.revision,
                attempts: attempts.get(task.id) ?? [],
              },
        rounds: rounds.filter((r) => r.activationId === activation.id),
        waits: waits.filter((w) => w.activationId === activation.id),
      };
    }),
  };
}

async function readTasks(
  tx: Tx,
  namespaceId: string,
  taskIds: readonly string[],
): Promise<Map<string, Task>> {
  if (taskIds.length === 0) {
    return new Map();
  }
  const rows = await tx.db
    .selectFrom('tasks')
    .selectAll()
    .where('id', 'in', taskIds)
    .where(inNamespaces([namespaceId]))
    .execute();
  return new Map(rows.map((row) => [toId(row.id), toTask(row)]));
}

async function readAttempts(
  tx: Tx,
  namespaceId: string,
  taskIds: readonly string[],
): Promise<Map<string, AttemptLine[]>> {
  const out = new Map<string, AttemptLine[]>();
  if (taskIds.length === 0) {
    return out;
  }
  const rows = await tx.db
    .selectFrom('task_attempts')
    .select([
      'id',
      'task_id',
      'attempt_number',
      'status',
      'worker_id',
      'claimed_at',
      'lease_until',
      'started_at',
      'finished_at',
      'error_code',
    ])
    .where('namespace_id', '=', namespaceId)
    .where('task_id', 'in', taskIds)
    .orderBy('task_id')
    .orderBy('attempt_number')
    .execute();
  for (const row of rows) {
    const taskId = toId(row.task_id);
    const list = out.get(taskId) ?? [];
    list.push({
      id: toId(row.id),
      number: toInt(row.attempt_number),
      status: toState(ATTEMPT_STATUSES, row.status, 'task_attempts.status'),
      workerId: row.worker_id,
      claimedAt: toMicros(row.claimed_at),
      leaseUntil: toMicros(row.lease_until),
      startedAt: toMicrosOrNull(row.started_at),
      finishedAt: toMicrosOrNull(row.finished_at),
      errorCode: row.error_code,
    });
    out.set(taskId, list);
  }
  return out;
}
