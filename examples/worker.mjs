// The example worker: `node examples/worker.mjs` runs the order-fulfilment handlers with the SDK
// Worker against `weave dev` (or WEAVE_URL / WEAVE_NAMESPACE / WEAVE_KEY), printing one line per
// task, until Ctrl-C (which lets running tasks finish first).
import { stringify } from '@weave/json';
import { Worker } from '@weave/sdk';
import { connect, waitForServer } from './connect.mjs';
import { createHandlers } from './order-fulfilment.mjs';

/** Wraps a handler so that each task prints what it did. */
function logged(queue, handler) {
  return async (input, ctx) => {
    const what = `${queue} ${input.action ?? 'charge'} ${input.order_id ?? input.parcel} (task ${ctx.taskId}, attempt ${ctx.attemptNumber})`;
    try {
      const result = await handler(input, ctx);
      console.log(`${what}: ${stringify(result)}`);
      return result;
    } catch (e) {
      console.log(`${what}: failed ${e.code ?? ''} ${e.message}`);
      throw e;
    }
  };
}

const handlers = Object.fromEntries(
  Object.entries(createHandlers()).map(([queue, handler]) => [queue, logged(queue, handler)]),
);
await waitForServer();
const worker = new Worker({
  client: connect(),
  handlers,
  concurrency: 8,
  onError: (e) => console.error(`worker: ${e.message ?? e}`),
});
worker.start();
worker.stopOnSignals();
console.log(`worker ready on queues ${Object.keys(handlers).join(', ')} (Ctrl-C stops it)`);
