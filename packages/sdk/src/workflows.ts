/**
 * `client.workflows`: workflow definitions (API.md "Weave", docs/sdk.md). Publish a definition
 * as an immutable version, list workflows, read one, its versions and a version's source.
 *
 * @example
 * const { version, created } = await client.workflows.publish(definition);
 */
import { callRoute } from './call-route.js';
import type { CallArgs } from './call-route.js';
import { isWorkflowHandle } from './define-workflow.js';
import type { QueryOf, RouteContract } from './protocol/index.js';
import { workflows } from './protocol/index.js';
import type { Requester } from './transport.js';

export class WorkflowsClient {
  readonly #request: Requester;

  constructor(request: Requester) {
    this.#request = request;
  }

  #call<C extends RouteContract>(contract: C, args: CallArgs<C> = {}) {
    return callRoute(this.#request, contract, args);
  }

  /**
   * Publish a definition (scope workflows:publish). The same source again returns the version
   * that holds it (`created: false`); a definition with problems is refused with every problem
   * in `details.problems`. Takes the definition as JSON or a `defineWorkflow` handle.
   *
   * @example
   * const { workflow, version } = await client.workflows.publish({ schema_version: 1, name: 'order', steps: [] });
   * await client.workflows.publish(defineWorkflow({ name: 'order', steps: [] }));
   */
  publish(definition: unknown, idempotencyKey?: string) {
    const body = { definition: isWorkflowHandle(definition) ? definition.definition : definition };
    return this.#call(workflows.publishWorkflow, { body, idempotencyKey });
  }

  /** @example const { items } = await client.workflows.list(); */
  list(page: QueryOf<typeof workflows.listWorkflows> = {}) {
    return this.#call(workflows.listWorkflows, { query: page });
  }

  /** The workflow and its latest version. @example const { latest } = await client.workflows.get('order'); */
  get(name: string) {
    return this.#call(workflows.getWorkflow, { params: { workflow: name } });
  }

  /** Newest first. @example const { items } = await client.workflows.listVersions('order'); */
  listVersions(name: string, page: QueryOf<typeof workflows.listWorkflowVersions> = {}) {
    return this.#call(workflows.listWorkflowVersions, { params: { workflow: name }, query: page });
  }

  /**
   * One version with its source as published (number text exact).
   *
   * @example
   * const { version } = await client.workflows.getVersion('order', 2);
   */
  getVersion(name: string, version: number) {
    const params = { workflow: name, version: String(version) };
    return this.#call(workflows.getWorkflowVersion, { params });
  }
}
