/** Tasks: submit, read, list, events, cancel, review (API.md "Pulse"). Handlers stay thin. */
import { isTaskStatus, tasks } from '@weave/sdk/protocol';
import { requireQueue } from '../../auth/principal.js';
import { invalidArgument } from '../../errors.js';
import { cancelTask } from '../../pulse/cancel-task.js';
import { claimHandOffOf } from '../../pulse/claim-hand-off.js';
import { getTask, listTaskEvents, listTasks } from '../../pulse/list-tasks.js';
import { reviewTask } from '../../pulse/review-task.js';
import { submitTask } from '../../pulse/submit-task.js';
import { pageBody, readPage } from '../paging.js';
import { SHARE_SHORT, route } from '../route.js';
import type { RouteContext } from '../route.js';
import { wakeClaims } from '../wake-claims.js';
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
    throw invalidArgument('$.status', 'must be a task status such as PENDING or RUNNING');
  }
  return status;
}

export const taskRoutes = [
  route(tasks.submitTask, {
    parse: parseSubmit,
    shared: SHARE_SHORT,
    async handle(ctx, fields) {
      const queueName = ctx.params.queue ?? '';
      requireQueue(ctx.principal, queueName);
      const input = { ...fields, namespaceId: ctx.principal.namespaceId, queueName };
      // Claimed here for a long-poll parked on this node, if any (pulse/claim-hand-off.ts), its
      // scan in the packet of the task's insert; else a long-poll is woken to claim it. The
      // answer shows the task as submitted (a new task is available at once).
      const handOff = claimHandOffOf(ctx.tx);
      const created = await submitTask(ctx.tx, input, {
        handOff: (queue) => handOff.reserve(ctx.tx, queue, 1),
      });
      wakeClaims(ctx, created.handedOff > 0 ? [] : [created.task.queueId]);
      return { body: { task: taskView(created, ctx.tx.now) } };
    },
  }),
  route(tasks.getTask, {
    async handle(ctx) {
      return { body: { task: taskView(await visibleTask(ctx), ctx.tx.now) } };
    },
  }),
  route(tasks.listTasks, {
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
      return { body: pageBody(items, result.nextAfterId) };
    },
  }),
  route(tasks.listTaskEvents, {
    async handle(ctx) {
      const { task } = await visibleTask(ctx);
      const events = await listTaskEvents(ctx.tx, ctx.principal.namespaceId, task.id);
      return { body: { items: events.map(taskEventView) } };
    },
  }),
  route(tasks.cancelTask, {
    async handle(ctx) {
      const { task } = await visibleTask(ctx);
      const receipt = await cancelTask(ctx.tx, {
        namespaceId: ctx.principal.namespaceId,
        taskId: task.id,
        credentialId: ctx.principal.credentialId,
        requestId: ctx.requestId,
      });
      return { body: receiptView(receipt) };
    },
  }),
  route(tasks.reviewTask, {
    parse: parseReview,
    async handle(ctx, review) {
      const { task } = await visibleTask(ctx);
      const receipt = await reviewTask(ctx.tx, {
        ...review,
        namespaceId: ctx.principal.namespaceId,
        taskId: task.id,
        credentialId: ctx.principal.credentialId,
        requestId: ctx.requestId,
      });
      if (receipt.status === 'PENDING') {
        ctx.tx.afterCommit(() => ctx.notifier.notify(task.queueId, 1));
      }
      return { body: receiptView(receipt) };
    },
  }),
];
