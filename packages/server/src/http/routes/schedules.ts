/**
 * Schedules (API.md "Pulse"): create, list, read, pause, resume, delete. Changing a schedule
 * takes `tasks:submit` (it submits tasks), reading takes `tasks:read`; a queue-limited
 * credential sees and changes only schedules of its queues.
 */
import { schedules } from '@weave/sdk/protocol';
import { requireQueue } from '../../auth/principal.js';
import {
  createSchedule,
  deleteSchedule,
  getSchedule,
  listSchedules,
  setSchedulePaused,
} from '../../pulse/schedules.js';
import { auditChange } from '../audit-change.js';
import { pageBody, readPage } from '../paging.js';
import { route } from '../route.js';
import type { RouteContext } from '../route.js';
import { parseSchedule, scheduleView } from '../schedule-fields.js';

async function visibleSchedule(ctx: RouteContext) {
  const schedule = await getSchedule(ctx.tx, ctx.principal.namespaceId, ctx.params.schedule ?? '');
  requireQueue(ctx.principal, schedule.queueName);
  return schedule;
}

async function setPaused(ctx: RouteContext, paused: boolean) {
  const schedule = await setSchedulePaused(ctx.tx, await visibleSchedule(ctx), paused);
  await auditChange(ctx, paused ? 'schedule.pause' : 'schedule.resume', {
    type: 'schedule',
    id: schedule.name,
  });
  return { body: { schedule: scheduleView(schedule) } };
}

export const scheduleRoutes = [
  route(schedules.createSchedule, {
    parse: parseSchedule,
    async handle(ctx, input) {
      requireQueue(ctx.principal, input.queueName);
      const schedule = await createSchedule(ctx.tx, ctx.principal.namespaceId, input);
      await auditChange(ctx, 'schedule.create', { type: 'schedule', id: schedule.name });
      return { body: { schedule: scheduleView(schedule) } };
    },
  }),
  route(schedules.listSchedules, {
    async handle(ctx) {
      const page = readPage(ctx.query);
      const result = await listSchedules(ctx.tx, {
        namespaceId: ctx.principal.namespaceId,
        allowedQueues: ctx.principal.queueNames,
        afterId: page.afterId,
        size: page.size,
      });
      return { body: pageBody(result.items.map(scheduleView), result.nextAfterId) };
    },
  }),
  route(schedules.getSchedule, {
    async handle(ctx) {
      return { body: { schedule: scheduleView(await visibleSchedule(ctx)) } };
    },
  }),
  route(schedules.pauseSchedule, { handle: (ctx) => setPaused(ctx, true) }),
  route(schedules.resumeSchedule, { handle: (ctx) => setPaused(ctx, false) }),
  route(schedules.deleteSchedule, {
    async handle(ctx) {
      const schedule = await visibleSchedule(ctx);
      await deleteSchedule(ctx.tx, schedule);
      await auditChange(ctx, 'schedule.delete', { type: 'schedule', id: schedule.name });
      return { body: { schedule: scheduleView(schedule) } };
    },
  }),
];
