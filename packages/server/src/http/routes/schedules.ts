/**
 * Schedules (API.md "Pulse"): create, list, read, pause, resume, delete. Changing a schedule
 * takes `tasks:submit` (it submits tasks), reading takes `tasks:read`; a queue-limited
 * credential sees and changes only schedules of its queues.
 */
import { requireQueue } from '../../auth/principal.js';
import {
  createSchedule,
  deleteSchedule,
  getSchedule,
  listSchedules,
  setSchedulePaused,
} from '../../pulse/schedules.js';
import { auditChange } from '../audit-change.js';
import { readPage, pageToken } from '../paging.js';
import type { Route, RouteContext, RouteResult } from '../route.js';
import { parseSchedule, scheduleView } from '../schedule-fields.js';

async function visibleSchedule(ctx: RouteContext) {
  const schedule = await getSchedule(ctx.tx, ctx.principal.namespaceId, ctx.params.schedule ?? '');
  requireQueue(ctx.principal, schedule.queueName);
  return schedule;
}

async function setPaused(ctx: RouteContext, paused: boolean): Promise<RouteResult> {
  const schedule = await setSchedulePaused(ctx.tx, await visibleSchedule(ctx), paused);
  await auditChange(ctx, paused ? 'schedule.pause' : 'schedule.resume', {
    type: 'schedule',
    id: schedule.name,
  });
  return { status: 200, body: { schedule: scheduleView(schedule) } };
}

export const scheduleRoutes: Route[] = [
  {
    method: 'POST',
    path: '/schedules',
    scope: 'tasks:submit',
    operation: 'schedule.create',
    summary: 'Create a schedule: cron + IANA time zone, overlap and catch-up policies',
    requestSchema: { type: 'object', required: ['name', 'queue', 'cron', 'task'] },
    async handle(ctx) {
      const input = parseSchedule(ctx.body);
      requireQueue(ctx.principal, input.queueName);
      const schedule = await createSchedule(ctx.tx, ctx.principal.namespaceId, input);
      await auditChange(ctx, 'schedule.create', { type: 'schedule', id: schedule.name });
      return { status: 201, body: { schedule: scheduleView(schedule) } };
    },
  },
  {
    method: 'GET',
    path: '/schedules',
    scope: 'tasks:read',
    summary: 'List schedules',
    queryParams: ['page_size', 'page_token'],
    async handle(ctx) {
      const page = readPage(ctx.query);
      const result = await listSchedules(ctx.tx, {
        namespaceId: ctx.principal.namespaceId,
        allowedQueues: ctx.principal.queueNames,
        afterId: page.afterId,
        size: page.size,
      });
      const items = result.items.map(scheduleView);
      return { status: 200, body: { items, next_page_token: pageToken(result.nextAfterId) } };
    },
  },
  {
    method: 'GET',
    path: '/schedules/:schedule',
    scope: 'tasks:read',
    summary: 'Get a schedule with its next slot',
    async handle(ctx) {
      return { status: 200, body: { schedule: scheduleView(await visibleSchedule(ctx)) } };
    },
  },
  {
    method: 'POST',
    path: '/schedules/:schedule/pause',
    scope: 'tasks:submit',
    operation: 'schedule.pause',
    summary: 'Pause a schedule: no firings until resumed',
    handle: (ctx) => setPaused(ctx, true),
  },
  {
    method: 'POST',
    path: '/schedules/:schedule/resume',
    scope: 'tasks:submit',
    operation: 'schedule.resume',
    summary: 'Resume a schedule from its first slot after now (slots while paused are skipped)',
    handle: (ctx) => setPaused(ctx, false),
  },
  {
    method: 'DELETE',
    path: '/schedules/:schedule',
    scope: 'tasks:submit',
    operation: 'schedule.delete',
    summary: 'Delete a schedule; tasks it already submitted are not touched',
    async handle(ctx) {
      const schedule = await visibleSchedule(ctx);
      await deleteSchedule(ctx.tx, schedule);
      await auditChange(ctx, 'schedule.delete', { type: 'schedule', id: schedule.name });
      return { status: 200, body: { schedule: scheduleView(schedule) } };
    },
  },
];
