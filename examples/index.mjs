// What `weave dev --with-examples` loads (packages/server/src/cli/dev-examples.ts): the example
// workflows to publish and the handlers to run in-process, by queue.
import { QUEUES, createHandlers, loadDefinition } from './order-fulfilment.mjs';

/** Definitions to publish, as plain objects. */
export function loadWorkflows() {
  return [loadDefinition()];
}

/** Handlers by queue, for the SDK Worker. */
export function createExampleHandlers() {
  return createHandlers();
}

export const EXAMPLE_QUEUES = QUEUES;
