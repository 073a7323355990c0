/**
 * `client.instances`: workflow instances (API.md "Weave", docs/sdk.md). Start an instance of a
 * published workflow — by name, or by the handle `defineWorkflow` returns, which types the input —
 * and read it: its current view, its steps, one step's detail and its history (every read takes
 * `workflows:read` plus scope over every queue of the pinned version).
 *
 * @example
 * const { instance } = await client.instances.start('order', { input: { order_id: 'A-1' } }, 'order-A-1');
 */
import { callRoute } from './call-route.js';
import type { CallArgs } from './call-route.js';
import type { WorkflowHandle } from './define-workflow.js';
import type { BodyOf, QueryOf, RouteContract } from './protocol/index.js';
import { controls, instances, recovery, signals } from './protocol/index.js';
import type { Requester } from './transport.js';

type StartBody = BodyOf<typeof instances.startInstance>;
export type RetryStepOptions = BodyOf<typeof recovery.retryInstanceStep>;
export type ResolveStepOptions = BodyOf<typeof recovery.resolveInstanceStep>;
export type FailStepOptions = BodyOf<typeof recovery.failInstanceStep>;

export type SignalInstanceOptions = BodyOf<typeof signals.signalInstance>;

/** `expected_revision` (409 `revision_mismatch` when the instance moved on) and a `reason`. */
export type ControlOptions = BodyOf<typeof controls.pauseInstance>;

/**
 * The list filter: `workflow`, `version` (with `workflow`), `status` (one, or several joined by
 * commas), `business_key` (exact), `created_after` / `created_before` (RFC 3339), and the page
 * (`page_size`, `page_token`).
 */
export type InstanceListFilter = QueryOf<typeof instances.listInstances>;

/** The Start body, with `input` typed by the handle's `Input` when a handle is given. */
export type StartOptions<Input = unknown> = Omit<StartBody, 'input'> & { readonly input: Input };

export class InstancesClient {
  readonly #request: Requester;

  constructor(request: Requester) {
    this.#request = request;
  }

  #call<C extends RouteContract>(contract: C, args: CallArgs<C> = {}) {
    return callRoute(this.#request, contract, args);
  }

  /**
   * Start an instance (scope workflows:start; tasks:submit and the queues too when the workflow
   * has business tasks). With an idempotency key a retry returns the view frozen at admission.
   *
   * @example
   * const { instance } = await client.instances.start(order, { input: { order_id: 'A-1', amount: 1500 } }, 'order-A-1');
   */
  start<Input>(
    workflow: string | WorkflowHandle<Input, unknown>,
    options: StartOptions<Input>,
    idempotencyKey?: string,
  ) {
    const name = typeof workflow === 'string' ? workflow : workflow.name;
    return this.#call(instances.startInstance, {
      params: { workflow: name },
      body: options,
      idempotencyKey,
    });
  }

  /**
   * One page of instances, newest first (scope workflows:read; instances whose pinned version
   * uses a queue the key may not use are left out). Pass `next_page_token` back as `page_token`
   * for the next page; it is absent on the last one.
   *
   * @example
   * const { items, next_page_token } = await client.instances.list({ workflow: 'order', status: 'RUNNING,WAITING' });
   */
  list(filter: InstanceListFilter = {}) {
    return this.#call(instances.listInstances, { query: filter });
  }

  /**
   * Every instance matching the filter, page by page (`list` until the last page). A walk
   * returns each instance that existed when it began exactly once; instances started meanwhile
   * may or may not appear, never twice.
   *
   * @example
   * for await (const instance of client.instances.listAll({ status: 'FAILED' })) console.log(instance.id);
   */
  async *listAll(filter: InstanceListFilter = {}): AsyncGenerator<instances.InstanceSummary> {
    let token = filter.page_token;
    do {
      const page = await this.list({
        ...filter,
        ...(token === undefined ? {} : { page_token: token }),
      });
      yield* page.items;
      token = page.next_page_token;
    } while (token !== undefined);
  }

  /** The current view. @example const { instance } = await client.instances.get('42'); */
  get(id: string) {
    return this.#call(instances.getInstance, { params: { instance: id } });
  }

  /**
   * Every step (metadata only, document order, `$root` hidden) and the instance revision of the
   * same read.
   *
   * @example
   * const { revision, steps } = await client.instances.steps('42');
   */
  steps(id: string) {
    return this.#call(instances.listInstanceSteps, { params: { instance: id } });
  }

  /**
   * One step's detail: output, error, and its activations with their input, task and attempts,
   * poll rounds and waits.
   *
   * @example
   * const step = await client.instances.step('42', 'charge');
   */
  step(id: string, stepId: string) {
    return this.#call(instances.getInstanceStep, { params: { instance: id, step: stepId } });
  }

  /**
   * The instance's events after `after` (a seq, default 0), at most `limit` (default 100, max
   * 1000); read on from `next_after` until a page comes back empty.
   *
   * @example
   * const { events, next_after } = await client.instances.history('42', { after: '0', limit: 50 });
   */
  history(id: string, options: { readonly after?: string; readonly limit?: number } = {}) {
    return this.#call(instances.listInstanceHistory, {
      params: { instance: id },
      query: {
        ...(options.after === undefined ? {} : { after: options.after }),
        ...(options.limit === undefined ? {} : { limit: options.limit }),
      },
    });
  }

  /**
   * Pause (scope workflows:control): no new work starts; results of work in flight are still
   * recorded. `changed` is false when it already was paused.
   *
   * @example
   * const { instance, changed } = await client.instances.pause('42', { reason: 'maintenance' });
   */
  pause(id: string, options: ControlOptions = {}, idempotencyKey?: string) {
    return this.#call(controls.pauseInstance, {
      params: { instance: id },
      body: options,
      idempotencyKey,
    });
  }

  /** Resume a paused instance: it plans at once. @example await client.instances.resume('42'); */
  resume(id: string, options: ControlOptions = {}, idempotencyKey?: string) {
    return this.#call(controls.resumeInstance, {
      params: { instance: id },
      body: options,
      idempotencyKey,
    });
  }

  /**
   * Cancel: CANCELLING until the work in flight has settled, then CANCELLED (the outcome goes
   * to the result stream).
   *
   * @example
   * await client.instances.cancel('42', { reason: 'customer withdrew' });
   */
  cancel(id: string, options: ControlOptions = {}, idempotencyKey?: string) {
    return this.#call(controls.cancelInstance, {
      params: { instance: id },
      body: options,
      idempotencyKey,
    });
  }

  /**
   * Retry a FAILED or NEEDS_REVIEW TASK/POLL step, or a timed-out SIGNAL (a new wait), as a new
   * activation (scope workflows:control),
   * optionally with a corrected input; a FAILED instance is RUNNING again. The old activation
   * stays in the history. With an idempotency key a repeat returns the first answer.
   *
   * @example
   * await client.instances.retry('42', 'charge', { input: { amount: 1500 }, reason: 'fixed the amount' });
   */
  retry(id: string, stepId: string, options: RetryStepOptions, idempotencyKey?: string) {
    return this.#call(recovery.retryInstanceStep, {
      params: { instance: id, step: stepId },
      body: options,
      idempotencyKey,
    });
  }

  /**
   * Resolve a FAILED or NEEDS_REVIEW TASK/POLL/SIGNAL step with an output the operator gives
   * (validated like a task result); the instance continues from there.
   *
   * @example
   * await client.instances.resolve('42', 'mail', { output: { sent: true }, reason: 'checked the mail log' });
   */
  resolve(id: string, stepId: string, options: ResolveStepOptions, idempotencyKey?: string) {
    return this.#call(recovery.resolveInstanceStep, {
      params: { instance: id, step: stepId },
      body: options,
      idempotencyKey,
    });
  }

  /**
   * Fail a NEEDS_REVIEW TASK/POLL step; its scope fails as after any failure.
   *
   * @example
   * await client.instances.fail('42', 'mail', { error: { code: 'not_sent' }, reason: 'the mail never left' });
   */
  fail(id: string, stepId: string, options: FailStepOptions, idempotencyKey?: string) {
    return this.#call(recovery.failInstanceStep, {
      params: { instance: id, step: stepId },
      body: options,
      idempotencyKey,
    });
  }

  /**
   * Send a signal to this instance's waiting step of that name and payload version (scope
   * workflows:signal; no correlation check). 404 without the instance, 409 `invalid_state`
   * when no such step waits.
   *
   * @example
   * await client.instances.signal('42', { name: 'approval', payload: { approved: true } }, 'approve-42');
   */
  signal(id: string, options: SignalInstanceOptions, idempotencyKey?: string) {
    return this.#call(signals.signalInstance, {
      params: { instance: id },
      body: options,
      idempotencyKey,
    });
  }
}
