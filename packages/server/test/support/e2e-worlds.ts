/**
 * The worlds the end-to-end scenarios (e2e-scenarios.ts) run in: a test server with the given
 * workflows published and a worker on `q1` doing task-behaviours.ts — the SDK `Worker` inside
 * the test process, or a worker process of its own (worker-process.ts).
 */
import { startTestServer } from './servers.js';
import type { TestServer } from './servers.js';
import type { E2eWorld } from './e2e-scenarios.js';
import { behave, createTaskMemory, opOf } from './task-behaviours.js';
import type { TaskMemory } from './task-behaviours.js';
import { startWorkerProcessFor } from './worker-process.js';
import type { WorkerProcess } from './worker-process.js';
import { startWorker } from './workers.js';
import type { DialectName } from '../../src/store/dialect.js';

export interface World extends E2eWorld {
  /** Stops the worker (gracefully), then the server. */
  close(): Promise<void>;
}

export interface InProcessWorld extends World {
  readonly memory: TaskMemory;
}

export interface ProcessWorld extends World {
  readonly worker: WorkerProcess;
}

/** `sweepIntervalMs: false`: a task past its deadline stays as it is (the clock alone acts). */
async function serverWith(
  dialect: DialectName,
  workflows: readonly object[],
  sweepIntervalMs: number | false,
): Promise<TestServer> {
  const t = await startTestServer(dialect, { sweepIntervalMs, scheduleIntervalMs: false });
  for (const workflow of workflows) {
    await t.admin.workflows.publish(workflow);
  }
  return t;
}

export async function startInProcessWorld(
  dialect: DialectName,
  workflows: readonly object[],
  options: { sweepIntervalMs?: number | false; concurrency?: number; heartbeatMs?: number } = {},
): Promise<InProcessWorld> {
  const t = await serverWith(dialect, workflows, options.sweepIntervalMs ?? false);
  const memory = createTaskMemory();
  const ran: string[] = [];
  const worker = startWorker({
    client: t.admin,
    concurrency: options.concurrency ?? 8,
    waitMs: 1_000,
    ...(options.heartbeatMs === undefined ? {} : { heartbeatMs: options.heartbeatMs }),
    handlers: {
      q1: (input, ctx) => {
        ran.push(opOf(input));
        return behave(input, ctx, memory);
      },
    },
  });
  return {
    t,
    client: t.admin,
    dialect,
    memory,
    ran: () => ran,
    pollCalls: (key) => memory.attempts.get(key) ?? 0,
    async close() {
      await worker.stop();
      await t.close();
    },
  };
}

export async function startProcessWorld(
  dialect: DialectName,
  workflows: readonly object[],
  options: { sweepIntervalMs?: number | false; concurrency?: number } = {},
): Promise<ProcessWorld> {
  const t = await serverWith(dialect, workflows, options.sweepIntervalMs ?? false);
  let worker: WorkerProcess;
  try {
    worker = await startWorkerProcessFor(t, { concurrency: options.concurrency ?? 8 });
  } catch (e: unknown) {
    await t.close();
    throw e;
  }
  const started = () => worker.reports.filter((r) => r.event === 'started');
  return {
    t,
    client: t.admin,
    dialect,
    worker,
    ran: () => started().map((r) => r.op),
    pollCalls: (key) => started().filter((r) => r.op === 'poll' && r.key === key).length,
    async close() {
      try {
        await worker.stop();
      } finally {
        await t.close();
      }
    },
  };
}
