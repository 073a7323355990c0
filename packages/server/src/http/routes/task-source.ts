/** `GET /tasks/{id}/source` (API.md "Pulse"): where a task came from. */
import { requireQueue } from '../../auth/principal.js';
import { getTask } from '../../pulse/list-tasks.js';
import { taskSource } from '../../pulse/task-source.js';
import type { TaskSource } from '../../pulse/task-source.js';
import { formatInstant } from '../../store/values.js';
import type { Route } from '../route.js';

function sourceView(source: TaskSource) {
  if ('slotAt' in source) {
    return { kind: 'schedule', schedule: source.schedule, slot_at: formatInstant(source.slotAt) };
  }
  if ('ownerId' in source) {
    return { kind: source.kind, owner_id: source.ownerId };
  }
  return { kind: 'submit' };
}

export const taskSourceRoutes: Route[] = [
  {
    method: 'GET',
    path: '/tasks/:task/source',
    scope: 'tasks:read',
    summary:
      'Where the task came from: `submit`, `schedule` (name and slot), or its workflow owner',
    async handle(ctx) {
      const { task, queueName } = await getTask(
        ctx.tx,
        ctx.principal.namespaceId,
        ctx.params.task ?? '',
      );
      requireQueue(ctx.principal, queueName);
      return {
        status: 200,
        body: { task_id: task.id, source: sourceView(await taskSource(ctx.tx, task)) },
      };
    },
  },
];
