/** Schedules (API.md "Pulse"): a cron expression and time zone that submit a task per slot. */
import { Duration, Id, Instant, Name, PageQuery, Payload, Revision, page } from './common.js';
import { defineRoute } from './contract.js';
import type { Infer } from './schema.js';
import { boolean, integer, literal, named, nullable, object, optional, string } from './schema.js';
import { KEY_PATTERN, RetryPolicy, ScheduledTaskInput } from './tasks.js';

export const OVERLAP_POLICIES = ['skip', 'allow'] as const;
export const CATCH_UP_POLICIES = ['none', 'latest', 'all'] as const;
export const MAX_CRON_LENGTH = 200;

const Overlap = literal(OVERLAP_POLICIES, {
  description: 'skip: no firing while the previous firing’s task is not terminal (default)',
});
const CatchUp = literal(CATCH_UP_POLICIES, {
  description: 'slots missed while the server was down: none (default), the latest, or all',
});
const Cron = string({
  maxLength: MAX_CRON_LENGTH,
  description: 'five fields: minute hour day-of-month month day-of-week (MON, JAN… allowed)',
  examples: ['0 2 * * *'],
});
const TimeZone = string({ description: 'IANA zone (default UTC)', examples: ['Europe/Berlin'] });

export const CreateScheduleInput = named(
  'CreateScheduleInput',
  object({
    name: Name,
    queue: Name,
    cron: Cron,
    timezone: optional(TimeZone),
    task: ScheduledTaskInput,
    overlap: optional(Overlap),
    catch_up: optional(CatchUp),
  }),
);
export type CreateScheduleInput = Infer<typeof CreateScheduleInput>;

/** The frozen template of a schedule, durations as ISO 8601. */
export const ScheduledTask = named(
  'ScheduledTask',
  object({
    input: Payload,
    idempotent: boolean(),
    priority: integer(),
    timeout: optional(Duration),
    attempt_timeout: optional(Duration),
    retry: RetryPolicy,
    trace_key: optional(string({ pattern: KEY_PATTERN })),
    resource_key: optional(string({ pattern: KEY_PATTERN })),
    result_stream: optional(Name),
  }),
);

export const Schedule = named(
  'Schedule',
  object({
    id: Id,
    name: Name,
    queue: Name,
    cron: string(),
    timezone: string(),
    task: ScheduledTask,
    overlap: Overlap,
    catch_up: CatchUp,
    paused: boolean(),
    revision: Revision,
    next_slot_at: nullable(Instant),
    retry_at: nullable(Instant),
    last_slot_at: nullable(Instant),
    last_task_id: nullable(Id),
    last_error_code: nullable(string()),
    created_at: Instant,
    updated_at: Instant,
  }),
);
export type Schedule = Infer<typeof Schedule>;

const ScheduleAnswer = object({ schedule: Schedule });

export const createSchedule = defineRoute({
  id: 'createSchedule',
  method: 'POST',
  path: '/schedules',
  scope: 'tasks:submit',
  tag: 'Schedules',
  operation: 'schedule.create',
  summary: 'Create a schedule: cron + IANA time zone, overlap and catch-up policies',
  body: CreateScheduleInput,
  status: 201,
  answer: ScheduleAnswer,
  errors: ['not_found', 'already_exists', 'payload_too_large'],
  example: {
    body: {
      name: 'nightly',
      queue: 'reports',
      cron: '0 2 * * *',
      timezone: 'Europe/Berlin',
      task: { input: { report: 'daily' }, timeout: 'PT1H' },
    },
  },
});

export const listSchedules = defineRoute({
  id: 'listSchedules',
  method: 'GET',
  path: '/schedules',
  scope: 'tasks:read',
  tag: 'Schedules',
  summary: 'List schedules',
  query: PageQuery,
  status: 200,
  answer: page('SchedulePage', Schedule),
  errors: [],
});

export const getSchedule = defineRoute({
  id: 'getSchedule',
  method: 'GET',
  path: '/schedules/{schedule}',
  scope: 'tasks:read',
  tag: 'Schedules',
  summary: 'Get a schedule with its next slot',
  status: 200,
  answer: ScheduleAnswer,
  errors: ['not_found'],
});

export const pauseSchedule = defineRoute({
  id: 'pauseSchedule',
  method: 'POST',
  path: '/schedules/{schedule}/pause',
  scope: 'tasks:submit',
  tag: 'Schedules',
  operation: 'schedule.pause',
  summary: 'Pause a schedule: no firings until resumed',
  status: 200,
  answer: ScheduleAnswer,
  errors: ['not_found'],
});

export const resumeSchedule = defineRoute({
  id: 'resumeSchedule',
  method: 'POST',
  path: '/schedules/{schedule}/resume',
  scope: 'tasks:submit',
  tag: 'Schedules',
  operation: 'schedule.resume',
  summary: 'Resume a schedule from its first slot after now (slots while paused are skipped)',
  status: 200,
  answer: ScheduleAnswer,
  errors: ['not_found'],
});

export const deleteSchedule = defineRoute({
  id: 'deleteSchedule',
  method: 'DELETE',
  path: '/schedules/{schedule}',
  scope: 'tasks:submit',
  tag: 'Schedules',
  operation: 'schedule.delete',
  summary: 'Delete a schedule; tasks it already submitted are not touched',
  status: 200,
  answer: ScheduleAnswer,
  errors: ['not_found'],
});
