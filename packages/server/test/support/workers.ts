/** SDK workers for tests, checked by the leak check: `stop()` must have been called. */
import { Worker } from '@weave/sdk';
import type { WorkerOptions } from '@weave/sdk';
import { track } from './leaks.js';

/** `new Worker(options)`, started. */
export function startWorker(options: WorkerOptions): Worker {
  const worker = new Worker(options);
  const stop = worker.stop.bind(worker);
  const tracked = track('worker', `worker of ${Object.keys(options.handlers).join(', ')}`, stop);
  worker.stop = async () => {
    await stop();
    tracked.untrack();
  };
  worker.start();
  return worker;
}
