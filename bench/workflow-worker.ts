/**
 * One worker process of the workflow bench (workflow.ts): the SDK `Worker` as shipped, default
 * options (concurrency 10, long-poll 20 s, completion window 5 ms, start on claim), one no-op
 * handler for the bench queue. Started with `fork()` and one JSON argument; sends
 * `{ ready: true }` once it claims, and on `{ stop: true }` stops gracefully, sends
 * `{ tasks }` (how many it ran) and exits.
 */
import { WeaveClient, Worker } from '@weave/sdk';

export interface WorkflowWorkerConfig {
  readonly url: string;
  readonly namespace: string;
  readonly key: string;
  readonly queue: string;
}

const arg = process.argv[2];
if (arg !== undefined && process.send !== undefined) {
  const config = JSON.parse(arg) as WorkflowWorkerConfig;
  let tasks = 0;
  const worker = new Worker({
    client: new WeaveClient({ url: config.url, namespace: config.namespace, apiKey: config.key }),
    handlers: {
      [config.queue]: () => {
        tasks++;
        return Promise.resolve(null);
      },
    },
    onError: (e) => console.error('worker:', e),
  });
  process.on('message', (m: { stop?: boolean }) => {
    if (m.stop === true) {
      void worker.stop().then(() => process.send?.({ tasks }, () => process.exit(0)));
    }
  });
  worker.start();
  process.send({ ready: true });
}
