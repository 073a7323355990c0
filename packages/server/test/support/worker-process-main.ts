/**
 * The entry of a test worker process (worker-process.ts starts it), run as
 * `node worker-process-main.js '<config JSON>'` with `{ url, namespace, apiKey, queues,
 * concurrency, waitMs, heartbeatMs }`.
 *
 * It runs the SDK `Worker` as shipped (`@weave/sdk`, real HTTP to the server) on the given queues,
 * every task doing what its input asks (task-behaviours.ts), and talks to its parent in JSON
 * lines: on stdout `{"event":"ready"}` once the worker runs, then per handler call a `started`
 * line and a `finished` line (its result or error), an `error` line per error the worker survives
 * and `stopped` after a graceful stop; on stdin `{"release":"<name>"}` lets the tasks held on
 * that name go on. SIGTERM stops gracefully (stop claiming, finish in-flight tasks, report them,
 * exit 0). Run without arguments (the test runner loads every file under build/test) it does
 * nothing.
 */
import { createInterface } from 'node:readline';
import { WeaveClient, Worker } from '@weave/sdk';
import type { TaskContext, TaskHandler } from '@weave/sdk';
import { behave, createTaskMemory, isRecord, opOf } from './task-behaviours.js';
import type { WorkerProcessConfig } from './worker-process.js';

const [configText] = process.argv.slice(2);

if (configText !== undefined) {
  await run(JSON.parse(configText) as WorkerProcessConfig);
}

function report(line: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify({ ...line, pid: process.pid })}\n`);
}

async function run(config: WorkerProcessConfig): Promise<void> {
  const memory = createTaskMemory();
  const client = new WeaveClient({
    url: config.url,
    namespace: config.namespace,
    apiKey: config.apiKey,
  });
  const handler =
    (queue: string): TaskHandler =>
    async (input: unknown, ctx: TaskContext) => {
      const task = {
        queue,
        task_id: ctx.taskId,
        attempt_id: ctx.attemptId,
        attempt_number: ctx.attemptNumber,
        op: opOf(input),
        key: isRecord(input) && typeof input.key === 'string' ? input.key : undefined,
      };
      report({ event: 'started', ...task, input });
      try {
        const result = await behave(input, ctx, memory);
        report({ event: 'finished', ...task, outcome: 'succeeded', result: result ?? null });
        return result;
      } catch (e: unknown) {
        const error = {
          name: e instanceof Error ? e.name : 'unknown',
          message: e instanceof Error ? e.message : String(e),
          code: isRecord(e) && typeof e.code === 'string' ? e.code : undefined,
        };
        report({
          event: 'finished',
          ...task,
          outcome: 'failed',
          error,
          cancelled: ctx.signal.aborted,
        });
        throw e;
      }
    };
  const worker = new Worker({
    client,
    concurrency: config.concurrency,
    waitMs: config.waitMs,
    heartbeatMs: config.heartbeatMs,
    workerId: `test-worker-${process.pid}`,
    handlers: Object.fromEntries(config.queues.map((q) => [q, handler(q)])),
    onError: (e: unknown) =>
      report({ event: 'error', message: e instanceof Error ? e.message : String(e) }),
  });
  const lines = createInterface({ input: process.stdin });
  lines.on('line', (line) => {
    const message = JSON.parse(line) as { release?: string };
    if (typeof message.release === 'string') {
      memory.release(message.release);
    }
  });
  const stopping = new Promise<void>((resolve) => process.once('SIGTERM', () => resolve()));
  worker.start();
  report({ event: 'ready' });
  await stopping;
  await worker.stop();
  lines.close();
  report({ event: 'stopped' });
}
