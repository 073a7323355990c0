/**
 * `GET /tasks/{id}/source` (API.md "Pulse", issue 12 Deliver 6): where a task came from — a
 * direct submit, a schedule's slot, or a workflow activation. Needs `tasks:read` and the task's
 * queue, as every task read. For a workflow task the answer adds where it sits (instance,
 * workflow, step, activation, poll round) when the caller may also read that instance
 * (`workflows:read` and every queue of its pinned version, A3.6); otherwise it stays
 * `{kind, owner_id}`, the answer a task reader always had.
 */
import { formatInstant, tasks } from '@weave/sdk/protocol';
import type { Principal } from '../../auth/principal.js';
import { canUseQueue, hasScope, requireQueue } from '../../auth/principal.js';
import { getTask } from '../../pulse/list-tasks.js';
import { taskSource } from '../../pulse/task-source.js';
import type { TaskSource } from '../../pulse/task-source.js';
import { OWNER_ACTIVATION } from '../../weave/delivery/deliver-result.js';
import { readTaskOwner } from '../../weave/instance/task-owner.js';
import type { TaskOwnerRead } from '../../weave/instance/task-owner.js';
import { route } from '../route.js';
import type { RouteContext } from '../route.js';

function workflowView(owner: TaskOwnerRead): tasks.WorkflowTaskSource {
  return {
    instance_id: owner.read.instance.id,
    workflow: owner.read.workflow,
    version: owner.read.instance.version,
    step_id: owner.stepId,
    activation_id: owner.activationId,
    activation_number: owner.activationNumber,
    ...(owner.pollRound === null ? {} : { poll_round: owner.pollRound }),
  };
}

function mayReadInstance(principal: Principal, owner: TaskOwnerRead): boolean {
  return (
    hasScope(principal, 'workflows:read') &&
    owner.read.queues.every((queue) => canUseQueue(principal, queue))
  );
}

async function sourceView(
  ctx: RouteContext,
  taskId: string,
  source: TaskSource,
): Promise<tasks.TaskSource> {
  if ('slotAt' in source) {
    return { kind: 'schedule', schedule: source.schedule, slot_at: formatInstant(source.slotAt) };
  }
  if (!('ownerId' in source)) {
    return { kind: 'submit' };
  }
  const plain = { kind: source.kind, owner_id: source.ownerId };
  if (source.kind !== OWNER_ACTIVATION || source.ownerId === null) {
    return plain;
  }
  const owner = await readTaskOwner(ctx.tx, {
    namespaceId: ctx.principal.namespaceId,
    taskId,
    activationId: source.ownerId,
  });
  return mayReadInstance(ctx.principal, owner)
    ? { ...plain, workflow: workflowView(owner) }
    : plain;
}

export const taskSourceRoutes = [
  route(tasks.getTaskSource, {
    async handle(ctx) {
      const namespaceId = ctx.principal.namespaceId;
      const { task, queueName } = await getTask(ctx.tx, namespaceId, ctx.params.task ?? '');
      requireQueue(ctx.principal, queueName);
      const source = await taskSource(ctx.tx, task);
      return { body: { task_id: task.id, source: await sourceView(ctx, task.id, source) } };
    },
  }),
];
