/**
 * A worker process of the Weave crash test (weave-crash.test.ts), started as
 * `node weave-crash-worker.js <server-url> <namespace> <api-key> <queue> <seed>`.
 *
 * It runs the SDK `Worker` on the workflow's queue. Every task of the test's workflow is
 * idempotent: the handler's result depends on its input only (`{ op, n }`, what the instance
 * output is checked against), after a wait of 0–20 ms drawn from `<seed>` (derived from the run's
 * WEAVE_CRASH_SEED). The test SIGKILLs the process at any moment. Run without arguments (the test
 * runner loads every file under build/test) it does nothing.
 */
import { WeaveClient, Worker } from '@weave/sdk';
import { seededRandom } from '../support/random.js';

const [url, namespace, apiKey, queue, seed] = process.argv.slice(2);

if (url !== undefined && namespace && apiKey && queue && seed) {
  await runWorker({ url, namespace, apiKey, queue, random: seededRandom(Number(seed)) });
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null;
}

async function runWorker(args: {
  url: string;
  namespace: string;
  apiKey: string;
  queue: string;
  random: () => number;
}): Promise<void> {
  const client = new WeaveClient({
    url: args.url,
    namespace: args.namespace,
    apiKey: args.apiKey,
  });
  const handle = async (input: unknown) => {
    await new Promise((resolve) => setTimeout(resolve, Math.floor(args.random() * 21)));
    return isRecord(input) ? { op: input.op, n: input.n } : null;
  };
  const worker = new Worker({
    client,
    concurrency: 8,
    waitMs: 5_000,
    heartbeatMs: 1_000,
    workerId: `weave-crash-${process.pid}`,
    handlers: { [args.queue]: handle },
    // Network errors while a server node is down and permit_stale after a lost lease are
    // expected here; the test judges the outcome from the database.
    onError: () => undefined,
  });
  worker.start();
  process.stdout.write(`weave crash worker ${process.pid} ready\n`);
  await new Promise<void>((resolve) => {
    process.once('SIGTERM', () => resolve());
  });
  await worker.stop();
}
