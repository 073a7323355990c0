/**
 * `WeaveClient`: the typed HTTP client of the Weave API (API.md). Uses the global `fetch`, writes
 * and reads bodies with @weave/json so numbers stay exact.
 *
 * @example
 * const client = new WeaveClient({ url: 'http://127.0.0.1:8420', namespace: 'dev', apiKey });
 * const { queue } = await client.createQueue({ name: 'emails', application: 'dev' });
 */
import type { JsonInput } from '@weave/json';
import type { Plain } from './plain.js';
import { send } from './transport.js';
import type { ClientOptions, RawResponse, RequestOptions } from './transport.js';
import type {
  Application,
  BatchCompletionAnswer,
  BatchCompletionRequest,
  ClaimRequest,
  ClaimedTask,
  Completion,
  Credential,
  CreatedCredential,
  CreateScheduleInput,
  HeartbeatAnswer,
  Page,
  Queue,
  ReviewRequest,
  Schedule,
  SubmitTaskInput,
  Task,
  TaskEvent,
  TaskReceipt,
  TaskStatus,
} from './types.js';
import { ResultsClient } from './results.js';

export type { ClientOptions, RawResponse, RequestOptions } from './transport.js';

export class WeaveClient {
  readonly #options: ClientOptions;
  readonly #fetch: typeof fetch;
  /** Orbit result streams and subscriptions, with `subscribe()` (docs/results.md). */
  readonly results: ResultsClient = new ResultsClient((method, path, options) =>
    this.request(method, path, options),
  );

  constructor(options: ClientOptions) {
    this.#options = { ...options, url: options.url.replace(/\/+$/, '') };
    this.#fetch = options.fetch ?? globalThis.fetch;
  }

  /** One call below `/v1/namespaces/{ns}`; throws `WeaveApiError` on an error answer. */
  async request<T = Plain>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    return (await this.requestRaw(method, path, options)).body as T;
  }

  /** The whole answer of one call (status and headers too). */
  requestRaw(method: string, path: string, options: RequestOptions = {}): Promise<RawResponse> {
    return send(this.#options, this.#fetch, method, path, options);
  }

  createApplication(
    input: { name: string; quota?: { max_active_tasks: number } },
    idempotencyKey?: string,
  ) {
    return this.request<{ application: Application }>(
      'POST',
      '/applications',
      withKey({ body: input }, idempotencyKey),
    );
  }

  getApplication(name: string) {
    return this.request<{ application: Application }>(
      'GET',
      `/applications/${encodeURIComponent(name)}`,
    );
  }

  updateApplication(
    name: string,
    patch: { quota?: { max_active_tasks: number }; disabled?: boolean },
  ) {
    return this.request<{ application: Application }>(
      'PATCH',
      `/applications/${encodeURIComponent(name)}`,
      { body: patch },
    );
  }

  createQueue(
    input: { name: string; application: string; capacity?: number },
    idempotencyKey?: string,
  ) {
    return this.request<{ queue: Queue }>(
      'POST',
      '/queues',
      withKey({ body: input }, idempotencyKey),
    );
  }

  getQueue(name: string) {
    return this.request<{ queue: Queue }>('GET', `/queues/${encodeURIComponent(name)}`);
  }

  listQueues(page: { page_size?: number; page_token?: string } = {}) {
    return this.request<Page<Queue>>('GET', '/queues', { query: page });
  }

  updateQueue(name: string, patch: { capacity?: number; paused?: boolean }) {
    return this.request<{ queue: Queue }>('PATCH', `/queues/${encodeURIComponent(name)}`, {
      body: patch,
    });
  }

  pauseQueue(name: string) {
    return this.request<{ queue: Queue }>('POST', `/queues/${encodeURIComponent(name)}/pause`);
  }

  resumeQueue(name: string) {
    return this.request<{ queue: Queue }>('POST', `/queues/${encodeURIComponent(name)}/resume`);
  }

  createCredential(
    input: { name: string; scopes: string[]; queues?: string[]; expires_at?: string },
    idempotencyKey?: string,
  ) {
    return this.request<CreatedCredential>(
      'POST',
      '/credentials',
      withKey({ body: input }, idempotencyKey),
    );
  }

  listCredentials() {
    return this.request<{ items: Credential[] }>('GET', '/credentials');
  }

  revokeCredential(id: string) {
    return this.request<{ credential: Credential }>(
      'DELETE',
      `/credentials/${encodeURIComponent(id)}`,
    );
  }
  /**
   * Submit a task. With an idempotency key a retry (say after 429 `quota_exceeded`) is safe.
   *
   * @example
   * const { task } = await client.submitTask('emails', { input: { to: 'a@b.c' } }, 'order-42');
   */
  submitTask(queue: string, input: SubmitTaskInput, idempotencyKey?: string) {
    return this.request<{ task: Task }>(
      'POST',
      `/queues/${encodeURIComponent(queue)}/tasks`,
      withKey({ body: { ...input } }, idempotencyKey),
    );
  }

  /** @example const { task } = await client.getTask('42'); */
  getTask(id: string) {
    return this.request<{ task: Task }>('GET', `/tasks/${encodeURIComponent(id)}`);
  }

  /** @example await client.listTasks({ queue: 'emails', status: 'FAILED' }); */
  listTasks(
    filter: { queue?: string; status?: TaskStatus; page_size?: number; page_token?: string } = {},
  ) {
    return this.request<Page<Task>>('GET', '/tasks', { query: filter });
  }

  /** The raw status events of a task, one per revision. @example await client.listTaskEvents('42'); */
  listTaskEvents(id: string) {
    return this.request<{ items: TaskEvent[] }>('GET', `/tasks/${encodeURIComponent(id)}/events`);
  }

  /** Pending tasks cancel at once; running ones on their next heartbeat. @example await client.cancelTask('42'); */
  cancelTask(id: string, idempotencyKey?: string) {
    return this.request<TaskReceipt>(
      'POST',
      `/tasks/${encodeURIComponent(id)}/cancel`,
      withKey({}, idempotencyKey),
    );
  }

  /**
   * Resolve a NEEDS_REVIEW task (scope tasks:review).
   *
   * @example
   * await client.reviewTask('42', { action: 'succeed', output: { sent: true }, reason: 'checked the mail log' });
   */
  reviewTask(id: string, review: ReviewRequest, idempotencyKey?: string) {
    return this.request<TaskReceipt>(
      'POST',
      `/tasks/${encodeURIComponent(id)}/review`,
      withKey({ body: { ...review } }, idempotencyKey),
    );
  }

  /**
   * Many completions in one call, each whole or nothing on its own, optionally claiming the
   * next tasks in the same transaction.
   *
   * @example
   * const { receipts, errors, tasks } = await client.completeMany('emails', { completions, claim: { worker_id: 'w1', max_tasks: 10 } });
   */
  completeMany(queue: string, batch: BatchCompletionRequest) {
    return this.request<BatchCompletionAnswer>(
      'POST',
      `/queues/${encodeURIComponent(queue)}/completions`,
      { body: { ...batch } as JsonInput },
    );
  }

  /**
   * Claim tasks of a queue, long-polling up to `wait_ms`.
   *
   * @example
   * const { tasks } = await client.claimTasks('emails', { worker_id: 'w1', max_tasks: 10, wait_ms: 20000 });
   */
  claimTasks(queue: string, request: ClaimRequest, signal?: AbortSignal) {
    return this.request<{ tasks: ClaimedTask[] }>(
      'POST',
      `/queues/${encodeURIComponent(queue)}/claims`,
      { body: { ...request }, ...(signal === undefined ? {} : { signal }) },
    );
  }

  /** Declare that side effects begin. @example await client.startAttempt(t.task_id, t.attempt_id, t.permit); */
  startAttempt(taskId: string, attemptId: string, permit: string) {
    return this.request<TaskReceipt>('POST', `${attemptPath(taskId, attemptId)}/start`, {
      body: { permit },
    });
  }

  /** Extend the lease; says whether cancellation was requested. @example await client.heartbeat(t.task_id, t.attempt_id, t.permit); */
  heartbeat(taskId: string, attemptId: string, permit: string) {
    return this.request<HeartbeatAnswer>('POST', `${attemptPath(taskId, attemptId)}/heartbeat`, {
      body: { permit },
    });
  }

  /**
   * Report the outcome of an attempt. Sending the identical completion again returns the same
   * receipt.
   *
   * @example
   * await client.completeAttempt(t.task_id, t.attempt_id, t.permit, { outcome: 'succeeded', result: { ok: true } });
   */
  completeAttempt(taskId: string, attemptId: string, permit: string, completion: Completion) {
    return this.request<TaskReceipt>('POST', `${attemptPath(taskId, attemptId)}/complete`, {
      body: { permit, ...completion } as JsonInput,
    });
  }

  /**
   * Create a schedule (scope tasks:submit): each cron slot submits `task` to the queue once.
   *
   * @example
   * await client.createSchedule({ name: 'nightly', queue: 'reports', cron: '0 2 * * *', timezone: 'Europe/Berlin', task: { input: {} } });
   */
  createSchedule(input: CreateScheduleInput, idempotencyKey?: string) {
    return this.request<{ schedule: Schedule }>(
      'POST',
      '/schedules',
      withKey({ body: { ...input } }, idempotencyKey),
    );
  }

  /** @example const { items } = await client.listSchedules(); */
  listSchedules(page: { page_size?: number; page_token?: string } = {}) {
    return this.request<Page<Schedule>>('GET', '/schedules', { query: page });
  }

  /** @example const { schedule } = await client.getSchedule('nightly'); */
  getSchedule(name: string) {
    return this.request<{ schedule: Schedule }>('GET', schedulePath(name));
  }

  /** No firings until resumed. @example await client.pauseSchedule('nightly'); */
  pauseSchedule(name: string, idempotencyKey?: string) {
    const options = withKey({}, idempotencyKey);
    return this.request<{ schedule: Schedule }>('POST', `${schedulePath(name)}/pause`, options);
  }

  /** Resumes from the first slot after now. @example await client.resumeSchedule('nightly'); */
  resumeSchedule(name: string, idempotencyKey?: string) {
    const options = withKey({}, idempotencyKey);
    return this.request<{ schedule: Schedule }>('POST', `${schedulePath(name)}/resume`, options);
  }

  /** @example await client.deleteSchedule('nightly'); */
  deleteSchedule(name: string, idempotencyKey?: string) {
    const options = withKey({}, idempotencyKey);
    return this.request<{ schedule: Schedule }>('DELETE', schedulePath(name), options);
  }
}

function schedulePath(name: string): string {
  return `/schedules/${encodeURIComponent(name)}`;
}

function attemptPath(taskId: string, attemptId: string): string {
  return `/tasks/${encodeURIComponent(taskId)}/attempts/${encodeURIComponent(attemptId)}`;
}

function withKey(options: RequestOptions, idempotencyKey: string | undefined): RequestOptions {
  return idempotencyKey === undefined ? options : { ...options, idempotencyKey };
}
