/** Tasks: submit, read, list, events, cancel (API.md "Pulse"). Handlers stay thin. */
import { requireQueue } from '../../auth/principal.js';
import { invalidArgument } from '../../errors.js';
import { cancelTask } from '../../pulse/cancel-task.js';
import { getTask, listTaskEvents, listTasks } from '../../pulse/list-tasks.js';
import { reviewTask } from '../../pulse/review-task.js';
import { submitTask } from '../../pulse/submit-task.js';
import { isTaskStatus } from '../../pulse/task-states.js';
import { readPage, pageToken } from '../paging.js';
import type { Route, RouteContext } from '../route.js';
import { parseReview, parseSubmit } from '../task-fields.js';
import { receiptView, taskEventView, taskView } from '../task-views.js';

async function visibleTask(ctx: RouteContext) {
  const found = await getTask(ctx.tx, ctx.principal.namespaceId, ctx.params.task ?? '');
  requireQueue(ctx.principal, found.queueName);
  return found;
}

function statusFilter(ctx: RouteContext) {
  const status = ctx.query.status;
  if (status !== undefined && !isTaskStatus(status)) {
    throw invalidArgument('status', 'must be a task status such as PENDING or RUNNING');
  }
  return status;
}

export const taskRoutes: Route[] = [
  {
    method: 'POST',
    path: '/queues/:queue/tasks',
    scope: 'tasks:submit',
    operation: 'task.submit',
    summary: 'Submit a task (429 quota_exceeded / queue_full: retry later with the same key)',
    requestSchema: { type: 'object', required: ['input'] },
    async handle(ctx) {
      const queueName = ctx.params.queue ?? '';
      requireQueue(ctx.principal, queueName);
      const input = parseSubmit(ctx.body, { namespaceId: ctx.principal.namespaceId, queueName });
      const created = await submitTask(ctx.tx, input);
      ctx.tx.afterCommit(() => ctx.notifier.notify(created.task.queueId, 1));
      return { status: 201, body: { task: taskView(created, ctx.tx.now) } };
    },
  },
  {
    method: 'GET',
    path: '/tasks/:task',
    scope: 'tasks:read',
    summary: 'Get a task',
    async handle(ctx) {
      return { status: 200, body: { task: taskView(await visibleTask(ctx), ctx.tx.now) } };
    },
  },
  {
    method: 'GET',
    path: '/tasks',
    scope: 'tasks:read',
    summary: 'List tasks by queue and status',
    queryParams: ['queue', 'status', 'page_size', 'page_token'],
    async handle(ctx) {
      const page = readPage(ctx.query);
      const result = await listTasks(ctx.tx, {
        namespaceId: ctx.principal.namespaceId,
        queueName: ctx.query.queue,
        status: statusFilter(ctx),
        allowedQueues: ctx.principal.queueNames,
        afterId: page.afterId,
        size: page.size,
      });
      const items = result.items.map((t) => taskView(t, ctx.tx.now));
      return { status: 200, body: { items, next_page_token: pageToken(result.nextAfterId) } };
    },
  },
  {
    method: 'GET',
    path: '/tasks/:task/events',
    scope: 'tasks:read',
    summary: "A task's raw status events, one per revision",
    async handle(ctx) {
      const { task } = await visibleTask(ctx);
      const events = await listTaskEvents(ctx.tx, ctx.principal.namespaceId, task.id);
      return { status: 200, body: { items: events.map(taskEventView) } };
    },
  },
  {
    method: 'POST',
    path: '/tasks/:task/cancel',
    scope: 'tasks:submit',
    operation: 'task.cancel',
    summary: 'Cancel: pending tasks at once, running ones on their next heartbeat',
    async handle(ctx) {
      const { task } = await visibleTask(ctx);
      const receipt = await cancelTask(ctx.tx, {
        namespaceId: ctx.principal.namespaceId,
        taskId: task.id,
        credentialId: ctx.principal.credentialId,
        requestId: ctx.requestId,
      });
      return { status: 200, body: receiptView(receipt) };
    },
  },
  {
    method: 'POST',
    path: '/tasks/:task/review',
    scope: 'tasks:review',
    operation: 'task.review',
    summary: 'Resolve a NEEDS_REVIEW task: succeed (with output), fail, or retry',
    requestSchema: { type: 'object', required: ['action', 'reason'] },
    async handle(ctx) {
      const { task } = await visibleTask(ctx);
      const receipt = await reviewTask(ctx.tx, {
        ...parseReview(ctx.body),
        namespaceId: ctx.principal.namespaceId,
        taskId: task.id,
        credentialId: ctx.principal.credentialId,
        requestId: ctx.requestId,
      });
      if (receipt.status === 'PENDING') {
        ctx.tx.afterCommit(() => ctx.notifier.notify(task.queueId, 1));
      }
      return { status: 200, body: receiptView(receipt) };
    },
  },
];
