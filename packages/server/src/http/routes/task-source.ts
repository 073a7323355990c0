/** `GET /tasks/{id}/source` (API.md "Pulse"): where a task came from. */
import { formatInstant, tasks } from '@weave/sdk/protocol';
import { requireQueue } from '../../auth/principal.js';
import { getTask } from '../../pulse/list-tasks.js';
import { taskSource } from '../../pulse/task-source.js';
import type { TaskSource } from '../../pulse/task-source.js';
import { route } from '../route.js';

function sourceView(source: TaskSource): tasks.TaskSource {
  if ('slotAt' in source) {
    return { kind: 'schedule', schedule: source.schedule, slot_at: formatInstant(source.slotAt) };
  }
  if ('ownerId' in source) {
    return { kind: source.kind, owner_id: source.ownerId };
  }
  return { kind: 'submit' };
}

export const taskSourceRoutes = [
  route(tasks.getTaskSource, {
    async handle(ctx) {
      const namespaceId = ctx.principal.namespaceId;
      const { task, queueName } = await getTask(ctx.tx, namespaceId, ctx.params.task ?? '');
      requireQueue(ctx.principal, queueName);
      return { body: { task_id: task.id, source: sourceView(await taskSource(ctx.tx, task)) } };
    },
  }),
];
