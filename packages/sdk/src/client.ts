/**
 * `WeaveClient`: the typed HTTP client of the Weave API (API.md). Every method is one route
 * contract of `@weave/sdk/protocol` (method, path, body and answer types); bodies are written
 * and read with @weave/json so numbers stay exact. Sends over `node:http` on Node and the global
 * `fetch` elsewhere, unless given a `fetch` (http-exchange.ts).
 *
 * @example
 * const client = new WeaveClient({ url: 'http://127.0.0.1:8420', namespace: 'dev', apiKey });
 * const { queue } = await client.createQueue({ name: 'emails', application: 'dev' });
 */
import { callRoute } from './call-route.js';
import type { CallArgs } from './call-route.js';
import type { Plain } from './plain.js';
import type { BodyOf, QueryOf, RouteContract } from './protocol/index.js';
import { admin, schedules, tasks, workers } from './protocol/index.js';
import { ResultsClient } from './results.js';
import { defaultExchange, viaFetch } from './http-exchange.js';
import type { HttpExchange } from './http-exchange.js';
import { DEFAULT_MAX_BODY_BYTES, send } from './transport.js';
import type { ClientOptions, RawResponse, Requester, RequestOptions } from './transport.js';
import type { Completion } from './types.js';
import { InstancesClient } from './instances.js';
import { OperationsClient } from './operations.js';
import { SignalsClient } from './signals.js';
import { WorkflowsClient } from './workflows.js';

export type { ClientOptions, RawResponse, RequestOptions } from './transport.js';

export class WeaveClient {
  readonly #options: ClientOptions;
  readonly #exchange: HttpExchange;
  readonly #request: Requester = (method, path, options) => this.request(method, path, options);
  /** Orbit result streams and subscriptions, with `subscribe()` (docs/results.md). */
  readonly results: ResultsClient = new ResultsClient(this.#request);
  /** Workflow definitions: publish, list, read versions (docs/sdk.md). */
  readonly workflows: WorkflowsClient = new WorkflowsClient(this.#request);
  /** Workflow instances: start, read (docs/sdk.md). */
  readonly instances: InstancesClient = new InstancesClient(this.#request);
  /** Workflow signals by name and correlation key (docs/sdk.md). */
  readonly signals: SignalsClient = new SignalsClient(this.#request);
  /** Bulk instance operations: cancel, pause, resume, retry_failed by filter (docs/sdk.md). */
  readonly operations: OperationsClient = new OperationsClient(this.#request);

  constructor(options: ClientOptions) {
    this.#options = { ...options, url: options.url.replace(/\/+$/, '') };
    this.#exchange = options.fetch === undefined ? defaultExchange() : viaFetch(options.fetch);
  }

  /**
   * The largest request body this client sends, in UTF-8 bytes (`ClientOptions.maxBodyBytes`,
   * default 2 MiB); the `Worker` splits its completion batches to stay under it.
   *
   * @example if (bytes > client.maxBodyBytes) { … }
   */
  get maxBodyBytes(): number {
    return this.#options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  }

  /** One call below `/v1/namespaces/{ns}`; throws `WeaveApiError` on an error answer. */
  async request<T = Plain>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    return (await this.requestRaw(method, path, options)).body as T;
  }

  /** The whole answer of one call (status and headers too). */
  requestRaw(method: string, path: string, options: RequestOptions = {}): Promise<RawResponse> {
    return send(this.#options, this.#exchange, method, path, options);
  }

  #call<C extends RouteContract>(contract: C, args: CallArgs<C> = {}) {
    return callRoute(this.#request, contract, args);
  }

  /** @example await client.createApplication({ name: 'shop', quota: { max_active_tasks: 1000 } }); */
  createApplication(input: BodyOf<typeof admin.createApplication>, idempotencyKey?: string) {
    return this.#call(admin.createApplication, { body: input, idempotencyKey });
  }

  /** @example const { application } = await client.getApplication('shop'); */
  getApplication(name: string) {
    return this.#call(admin.getApplication, { params: { application: name } });
  }

  /** @example await client.updateApplication('shop', { disabled: true }); */
  updateApplication(
    name: string,
    patch: BodyOf<typeof admin.updateApplication>,
    idempotencyKey?: string,
  ) {
    const params = { application: name };
    return this.#call(admin.updateApplication, { params, body: patch, idempotencyKey });
  }

  /** @example await client.createQueue({ name: 'emails', application: 'shop' }); */
  createQueue(input: BodyOf<typeof admin.createQueue>, idempotencyKey?: string) {
    return this.#call(admin.createQueue, { body: input, idempotencyKey });
  }

  /** With the queue's tasks counted by status. @example (await client.getQueue('emails')).queue.counts */
  getQueue(name: string) {
    return this.#call(admin.getQueue, { params: { queue: name } });
  }

  /** @example const { items, next_page_token } = await client.listQueues({ page_size: 100 }); */
  listQueues(page: QueryOf<typeof admin.listQueues> = {}) {
    return this.#call(admin.listQueues, { query: page });
  }

  /** @example await client.updateQueue('emails', { capacity: 5000 }); */
  updateQueue(name: string, patch: BodyOf<typeof admin.updateQueue>, idempotencyKey?: string) {
    const params = { queue: name };
    return this.#call(admin.updateQueue, { params, body: patch, idempotencyKey });
  }

  /** No claims or starts until resumed; submissions are still accepted. @example await client.pauseQueue('emails'); */
  pauseQueue(name: string, idempotencyKey?: string) {
    return this.#call(admin.pauseQueue, { params: { queue: name }, idempotencyKey });
  }

  /** @example await client.resumeQueue('emails'); */
  resumeQueue(name: string, idempotencyKey?: string) {
    return this.#call(admin.resumeQueue, { params: { queue: name }, idempotencyKey });
  }

  /**
   * The key is in this answer only (never in an idempotent replay).
   *
   * @example
   * const { key } = await client.createCredential({ name: 'worker', scopes: ['tasks:work'] });
   */
  createCredential(input: BodyOf<typeof admin.createCredential>, idempotencyKey?: string) {
    return this.#call(admin.createCredential, { body: input, idempotencyKey });
  }

  /** @example const { items } = await client.listCredentials(); */
  listCredentials() {
    return this.#call(admin.listCredentials);
  }

  /** @example await client.revokeCredential('7'); */
  revokeCredential(id: string, idempotencyKey?: string) {
    return this.#call(admin.revokeCredential, { params: { id }, idempotencyKey });
  }

  /**
   * Submit a task. With an idempotency key a retry (say after 429 `quota_exceeded`) is safe.
   *
   * @example
   * const { task } = await client.submitTask('emails', { input: { to: 'a@b.c' } }, 'order-42');
   */
  submitTask(queue: string, input: BodyOf<typeof tasks.submitTask>, idempotencyKey?: string) {
    return this.#call(tasks.submitTask, { params: { queue }, body: input, idempotencyKey });
  }

  /** @example const { task } = await client.getTask('42'); */
  getTask(id: string) {
    return this.#call(tasks.getTask, { params: { task: id } });
  }

  /** @example await client.listTasks({ queue: 'emails', status: 'FAILED' }); */
  listTasks(filter: QueryOf<typeof tasks.listTasks> = {}) {
    return this.#call(tasks.listTasks, { query: filter });
  }

  /** The raw status events of a task, one per revision. @example await client.listTaskEvents('42'); */
  listTaskEvents(id: string) {
    return this.#call(tasks.listTaskEvents, { params: { task: id } });
  }

  /** Where the task came from: submit, a schedule slot, or its workflow owner. @example await client.getTaskSource('42'); */
  getTaskSource(id: string) {
    return this.#call(tasks.getTaskSource, { params: { task: id } });
  }

  /** Pending tasks cancel at once; running ones on their next heartbeat. @example await client.cancelTask('42'); */
  cancelTask(id: string, idempotencyKey?: string) {
    return this.#call(tasks.cancelTask, { params: { task: id }, idempotencyKey });
  }

  /**
   * Resolve a NEEDS_REVIEW task (scope tasks:review).
   *
   * @example
   * await client.reviewTask('42', { action: 'succeed', output: { sent: true }, reason: 'checked the mail log' });
   */
  reviewTask(id: string, review: BodyOf<typeof tasks.reviewTask>, idempotencyKey?: string) {
    return this.#call(tasks.reviewTask, { params: { task: id }, body: review, idempotencyKey });
  }

  /**
   * Many completions in one call, each whole or nothing on its own, optionally claiming the
   * next tasks in the same transaction.
   *
   * @example
   * const { receipts, errors, tasks } = await client.completeMany('emails', { completions, claim: { worker_id: 'w1', max_tasks: 10 } });
   */
  completeMany(queue: string, batch: BodyOf<typeof workers.completeMany>, signal?: AbortSignal) {
    return this.#call(workers.completeMany, { params: { queue }, body: batch, signal });
  }

  /**
   * Claim tasks of a queue, long-polling up to `wait_ms`.
   *
   * @example
   * const { tasks } = await client.claimTasks('emails', { worker_id: 'w1', max_tasks: 10, wait_ms: 20000 });
   */
  claimTasks(queue: string, request: BodyOf<typeof workers.claimTasks>, signal?: AbortSignal) {
    return this.#call(workers.claimTasks, { params: { queue }, body: request, signal });
  }

  /** Declare that side effects begin. @example await client.startAttempt(t.task_id, t.attempt_id, t.permit); */
  startAttempt(taskId: string, attemptId: string, permit: string, signal?: AbortSignal) {
    const params = { task: taskId, attempt: attemptId };
    return this.#call(workers.startAttempt, { params, body: { permit }, signal });
  }

  /** Extend the lease; says whether cancellation was requested. @example await client.heartbeat(t.task_id, t.attempt_id, t.permit); */
  heartbeat(taskId: string, attemptId: string, permit: string, signal?: AbortSignal) {
    const params = { task: taskId, attempt: attemptId };
    return this.#call(workers.heartbeatAttempt, { params, body: { permit }, signal });
  }

  /**
   * Report the outcome of an attempt. Sending the identical completion again returns the same
   * receipt.
   *
   * @example
   * await client.completeAttempt(t.task_id, t.attempt_id, t.permit, { outcome: 'succeeded', result: { ok: true } });
   */
  completeAttempt(taskId: string, attemptId: string, permit: string, completion: Completion) {
    const params = { task: taskId, attempt: attemptId };
    return this.#call(workers.completeAttempt, { params, body: { permit, ...completion } });
  }

  /**
   * Create a schedule (scope tasks:submit): each cron slot submits `task` to the queue once.
   *
   * @example
   * await client.createSchedule({ name: 'nightly', queue: 'reports', cron: '0 2 * * *', timezone: 'Europe/Berlin', task: { input: {} } });
   */
  createSchedule(input: BodyOf<typeof schedules.createSchedule>, idempotencyKey?: string) {
    return this.#call(schedules.createSchedule, { body: input, idempotencyKey });
  }

  /** @example const { items } = await client.listSchedules(); */
  listSchedules(page: QueryOf<typeof schedules.listSchedules> = {}) {
    return this.#call(schedules.listSchedules, { query: page });
  }

  /** @example const { schedule } = await client.getSchedule('nightly'); */
  getSchedule(name: string) {
    return this.#call(schedules.getSchedule, { params: { schedule: name } });
  }

  /** No firings until resumed. @example await client.pauseSchedule('nightly'); */
  pauseSchedule(name: string, idempotencyKey?: string) {
    return this.#call(schedules.pauseSchedule, { params: { schedule: name }, idempotencyKey });
  }

  /** Resumes from the first slot after now. @example await client.resumeSchedule('nightly'); */
  resumeSchedule(name: string, idempotencyKey?: string) {
    return this.#call(schedules.resumeSchedule, { params: { schedule: name }, idempotencyKey });
  }

  /** @example await client.deleteSchedule('nightly'); */
  deleteSchedule(name: string, idempotencyKey?: string) {
    return this.#call(schedules.deleteSchedule, { params: { schedule: name }, idempotencyKey });
  }
}
