/**
 * `client.operations`: bulk instance operations (API.md "Weave" Bulk, docs/sdk.md). `create`
 * starts a durable operation that cancels, pauses, resumes or retries the failed step of every
 * instance matching an instance-list filter; the server processes it in batches, each instance
 * exactly once, and `get` shows its progress (scope workflows:control).
 *
 * @example
 * const { operation } = await client.operations.create({ action: 'cancel', filter: { workflow: 'order', status: 'WAITING' }, reason: 'incident 7' }, 'incident-7-cancel');
 * const done = await client.operations.wait(operation.id);
 */
import { callRoute } from './call-route.js';
import type { BodyOf, QueryOf } from './protocol/index.js';
import { operations } from './protocol/index.js';
import type { Requester } from './transport.js';

/** The body of `POST /instance-operations`: `action`, `filter` (the instance list's), `reason?`. */
export type CreateOperationOptions = BodyOf<typeof operations.createOperation>;
/** `page_size`, `page_token`. */
export type OperationListOptions = QueryOf<typeof operations.listOperations>;

export class OperationsClient {
  readonly #request: Requester;

  constructor(request: Requester) {
    this.#request = request;
  }

  /**
   * Create a bulk operation (202): it runs on the server; with an idempotency key a retry
   * returns the same operation.
   *
   * @example
   * const { operation } = await client.operations.create({ action: 'retry_failed', filter: { workflow: 'order' } });
   */
  create(options: CreateOperationOptions, idempotencyKey?: string) {
    return callRoute(this.#request, operations.createOperation, { body: options, idempotencyKey });
  }

  /** Progress: `status`, `matched`, `done`, `failed`, `skipped`. @example await client.operations.get('3'); */
  get(id: string) {
    return callRoute(this.#request, operations.getOperation, { params: { operation: id } });
  }

  /** The namespace's operations, newest first. @example const { items } = await client.operations.list(); */
  list(options: OperationListOptions = {}) {
    return callRoute(this.#request, operations.listOperations, { query: options });
  }

  /**
   * Poll `get` until the operation is no longer RUNNING (every `intervalMs`, default 250).
   *
   * @example
   * const operation = await client.operations.wait(id, { timeoutMs: 60_000 });
   */
  async wait(
    id: string,
    options: { readonly intervalMs?: number; readonly timeoutMs?: number } = {},
  ): Promise<operations.Operation> {
    const until = Date.now() + (options.timeoutMs ?? 300_000);
    for (;;) {
      const { operation } = await this.get(id);
      if (operation.status !== 'RUNNING') {
        return operation;
      }
      if (Date.now() > until) {
        throw new Error(`instance operation ${id} still RUNNING after the timeout`);
      }
      await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 250));
    }
  }
}
