/**
 * A worker process of the crash test (crash.test.ts), started as
 * `node crash-worker.js <server-url> <namespace> <api-key> <queue> <db-url> <seed>`.
 *
 * It runs the SDK `Worker` (which starts each attempt before calling the handler) with a handler
 * that first writes a `crash_ledger` row (task, attempt, pid: the side effect), then waits
 * 0–50 ms (drawn from `<seed>`, derived from the run's WEAVE_CRASH_SEED) and returns. The test SIGKILLs it at any moment. Run without arguments (the test runner
 * loads every file under build/test) it does nothing.
 */
import { createPool } from 'mysql2/promise';
import { WeaveClient, Worker } from '@weave/sdk';
import { mysqlConnectionOptions, parseConnectionUrl } from '../../src/store/connection-url.js';
import { seededRandom } from '../support/random.js';

const [url, namespace, apiKey, queue, dbUrl, seed] = process.argv.slice(2);

if (url !== undefined && namespace && apiKey && queue && dbUrl && seed) {
  await runWorker({ url, namespace, apiKey, queue, dbUrl, random: seededRandom(Number(seed)) });
}

async function runWorker(args: {
  url: string;
  namespace: string;
  apiKey: string;
  queue: string;
  dbUrl: string;
  random: () => number;
}): Promise<void> {
  const config = parseConnectionUrl(args.dbUrl);
  if (config.kind !== 'mysql') {
    throw new Error('the crash worker needs a mysql:// ledger URL');
  }
  const connection = mysqlConnectionOptions(config);
  const ledger = createPool({ ...connection, connectionLimit: 4 });
  const client = new WeaveClient({
    url: args.url,
    namespace: args.namespace,
    apiKey: args.apiKey,
  });
  const worker = new Worker({
    client,
    concurrency: 4,
    waitMs: 5_000,
    heartbeatMs: 1_000,
    workerId: `crash-${process.pid}`,
    handlers: {
      [args.queue]: async (_input, ctx) => {
        await ledger.execute(
          'INSERT INTO crash_ledger (task_id, attempt_id, pid) VALUES (?, ?, ?)',
          [ctx.taskId, ctx.attemptId, process.pid],
        );
        await new Promise((resolve) => setTimeout(resolve, Math.floor(args.random() * 51)));
        return { pid: process.pid };
      },
    },
    // Network errors while a server node is down and permit_stale after a lost lease are
    // expected here; the test judges the outcome from the database.
    onError: () => undefined,
  });
  worker.start();
  process.stdout.write(`crash worker ${process.pid} ready\n`);
  await new Promise<void>((resolve) => {
    process.once('SIGTERM', () => resolve());
  });
  await worker.stop();
  await ledger.end();
}
