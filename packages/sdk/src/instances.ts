/**
 * `client.instances`: workflow instances (API.md "Weave", docs/sdk.md). Start an instance of a
 * published workflow — by name, or by the handle `defineWorkflow` returns, which types the input —
 * and read its current view.
 *
 * @example
 * const { instance } = await client.instances.start('order', { input: { order_id: 'A-1' } }, 'order-A-1');
 */
import { callRoute } from './call-route.js';
import type { CallArgs } from './call-route.js';
import type { WorkflowHandle } from './define-workflow.js';
import type { BodyOf, RouteContract } from './protocol/index.js';
import { instances } from './protocol/index.js';
import type { Requester } from './transport.js';

type StartBody = BodyOf<typeof instances.startInstance>;

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

  /** The current view. @example const { instance } = await client.instances.get('42'); */
  get(id: string) {
    return this.#call(instances.getInstance, { params: { instance: id } });
  }
}
