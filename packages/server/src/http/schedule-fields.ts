/**
 * `POST /schedules` body → `ScheduleInput`, and a schedule → its wire view. The task template is
 * validated by the same `parseSubmit` as `POST /queues/{q}/tasks`, with its paths moved under
 * `$.task`, so a schedule can never hold a task the submit route would refuse.
 */
import type { JsonValue } from '@weave/json';
import { WeaveError, invalidArgument, isWeaveError } from '../errors.js';
import type { TaskTemplate } from '../pulse/schedule-template.js';
import { CATCH_UP_POLICIES, OVERLAP_POLICIES } from '../pulse/schedules.js';
import type { Schedule, ScheduleInput } from '../pulse/schedules.js';
import { formatInstant } from '@weave/sdk/protocol';
import type { Micros, schedules } from '@weave/sdk/protocol';
import { formatDuration } from './durations.js';
import { expectObject, readString, rejectUnknown, requireString } from './fields.js';
import { parseSubmit } from './task-fields.js';
import { retryView } from './task-views.js';

const SCHEDULE_FIELDS = ['name', 'queue', 'cron', 'timezone', 'task', 'overlap', 'catch_up'];

export function parseSchedule(body: JsonValue | undefined): ScheduleInput {
  const obj = expectObject(body);
  rejectUnknown(obj, SCHEDULE_FIELDS);
  const queueName = requireString(obj, 'queue');
  return {
    name: requireString(obj, 'name'),
    queueName,
    cron: requireString(obj, 'cron'),
    timezone: readString(obj, 'timezone') ?? 'UTC',
    template: parseTemplate(obj.get('task')),
    overlap: readChoice(obj.get('overlap'), '$.overlap', OVERLAP_POLICIES) ?? 'skip',
    catchUp: readChoice(obj.get('catch_up'), '$.catch_up', CATCH_UP_POLICIES) ?? 'none',
  };
}

function readChoice<T extends string>(
  value: JsonValue | undefined,
  path: string,
  choices: readonly T[],
): T | undefined {
  if (value === undefined) {
    return undefined;
  }
  if (typeof value !== 'string' || !(choices as readonly string[]).includes(value)) {
    throw invalidArgument(path, `must be one of ${choices.join(', ')}`);
  }
  return value as T;
}

function parseTemplate(value: JsonValue | undefined): TaskTemplate {
  if (value === undefined) {
    throw invalidArgument('$.task', 'is required (the submit fields of each firing)');
  }
  const task = expectObject(value, '$.task');
  if (task.has('deadline_at')) {
    // An absolute deadline would be in the past for every firing after it: use timeout.
    throw invalidArgument('$.task.deadline_at', 'is not allowed in a schedule; use timeout');
  }
  try {
    const { deadlineAt: _d, ...template } = parseSubmit(task);
    return template;
  } catch (e: unknown) {
    throw isWeaveError(e) ? underTask(e) : e;
  }
}

/** Re-roots an error of `parseSubmit` (`$.input`) under `$.task` (`$.task.input`). */
function underTask(e: WeaveError): WeaveError {
  const path = e.details.path;
  if (typeof path !== 'string' || !path.startsWith('$')) {
    return e;
  }
  const moved = `$.task${path.slice(1)}`;
  return new WeaveError(e.code, e.message.replace(path, moved), {
    details: { ...e.details, path: moved },
    cause: e,
  });
}

const instantOrNull = (at: Micros | null) => (at === null ? null : formatInstant(at));

function templateView(t: TaskTemplate): schedules.Schedule['task'] {
  return {
    input: { kind: 'raw', text: t.input },
    idempotent: t.idempotent,
    priority: t.priority,
    ...(t.timeoutUs === undefined ? {} : { timeout: formatDuration(t.timeoutUs) }),
    ...(t.attemptTimeoutUs === undefined
      ? {}
      : { attempt_timeout: formatDuration(t.attemptTimeoutUs) }),
    retry: retryView(t.retry),
    ...(t.traceKey === undefined ? {} : { trace_key: t.traceKey }),
    ...(t.resourceKey === undefined ? {} : { resource_key: t.resourceKey }),
    ...(t.resultStream === undefined ? {} : { result_stream: t.resultStream }),
  };
}

export function scheduleView(s: Schedule): schedules.Schedule {
  return {
    id: s.id,
    name: s.name,
    queue: s.queueName,
    cron: s.cron,
    timezone: s.timezone,
    task: templateView(s.template),
    overlap: s.overlap,
    catch_up: s.catchUp,
    paused: s.paused,
    revision: s.revision,
    next_slot_at: instantOrNull(s.nextSlotAt),
    retry_at: instantOrNull(s.retryAt),
    last_slot_at: instantOrNull(s.lastSlotAt),
    last_task_id: s.lastTaskId,
    last_error_code: s.lastErrorCode,
    created_at: formatInstant(s.createdAt),
    updated_at: formatInstant(s.updatedAt),
  };
}
