/**
 * Wire types of the API (snake_case, as sent), each derived from its schema in
 * `@weave/sdk/protocol` — the same schemas the server's presenters are checked against and the
 * OpenAPI document embeds. Numbers in payloads arrive as JS numbers only when exact
 * (`plain.ts`); any other stays `{kind: 'number', text}`.
 */
import type {
  admin,
  instances,
  orbit,
  schedules,
  tasks,
  workers,
  workflows,
} from './protocol/index.js';

export type Application = admin.Application;
export type Queue = admin.Queue;
/** A queue with its tasks counted by status (`GET /queues/{q}`). */
export type QueueWithCounts = admin.QueueWithCounts;
export type Credential = admin.Credential;
/** The key is present only in the first answer, never in an idempotent replay. */
export type CreatedCredential = { readonly credential: Credential; readonly key?: string };

export interface Page<T> {
  readonly items: readonly T[];
  /** Absent on the last page. */
  readonly next_page_token?: string;
}

export type { TaskStatus } from './protocol/index.js';
/** The retry policy as frozen on a task (`task.retry`). */
export type RetryPolicy = tasks.RetryPolicy;
/** The retry policy a submit may give; every member has a default. */
export type RetryPolicyInput = NonNullable<tasks.SubmitTaskInput['retry']>;
/** Body of `POST /queues/{q}/tasks`. `input` is any JSON value. */
export type SubmitTaskInput = tasks.SubmitTaskInput;
export type Task = tasks.Task;
export type TaskEvent = tasks.TaskEvent;
export type TaskSource = tasks.TaskSource;
/** The answer of start, complete, cancel and review. */
export type TaskReceipt = tasks.TaskReceipt;
/** Body of `POST /tasks/{id}/review`. */
export type ReviewRequest = tasks.ReviewRequest;

/** A task handed to a worker by a claim; `permit` is shown only here. */
export type ClaimedTask = workers.ClaimedTask;
export type ClaimRequest = workers.ClaimRequest;
export type HeartbeatAnswer = workers.HeartbeatAnswer;
/** An attempt's outcome: succeeded with a result, failed with an error, or needs review. */
export type Completion = workers.Completion;
/** Body of `POST /queues/{q}/completions`. */
export type BatchCompletionRequest = workers.BatchCompletionRequest;
export type BatchCompletionAnswer = workers.BatchCompletionAnswer;

/** What a schedule submits at each slot: the submit members, without an absolute deadline. */
export type ScheduledTaskInput = tasks.ScheduledTaskInput;
/** `POST /schedules`. `timezone` defaults to UTC, `overlap` to skip, `catch_up` to none. */
export type CreateScheduleInput = schedules.CreateScheduleInput;
export type Schedule = schedules.Schedule;

/** One outcome on a stream, frozen when it was appended (payload numbers stay exact). */
export type ResultEvent = orbit.ResultEvent;
export type EventPage = orbit.EventPage;
export type Stream = orbit.Stream;
export type Subscription = orbit.Subscription;
export type CreateStreamInput = orbit.CreateStreamInput;
export type CreateSubscriptionInput = orbit.CreateSubscriptionInput;
/** One webhook delivery attempt. */
export type Delivery = orbit.Delivery;

export type Workflow = workflows.Workflow;
/** A version without its source. */
export type WorkflowVersionSummary = workflows.WorkflowVersionSummary;
/** A version with its source as published. */
export type WorkflowVersion = workflows.WorkflowVersion;

export type Instance = instances.Instance;
export type { InstanceStatus } from './protocol/instances.js';
