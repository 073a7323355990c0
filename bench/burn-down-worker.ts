/**
 * One worker process of the burn-down bench (burn-down.ts), started with `fork()` and one JSON
 * argument (`WorkerConfig`). Every system runs the same no-op handler: it records, for jobs
 * submitted by the paced phase (payload `{ t, paced: true }`), `Date.now() - t` — submit→claim
 * as seen by the handler, on the same machine clock as the submitter — and returns.
 *
 * Protocol over IPC: the process connects and sends `{ ready: true }`, starts claiming on
 * `{ go: true }` (the harness's clock starts when it sends go), and on `{ stop: true }` stops its system's worker gracefully, sends `{ latencies }` and exits.
 */
import { WeaveClient, Worker } from '@weave/sdk';
import type { ClaimedTask } from '@weave/sdk';

export type WorkerConfig =
  | {
      readonly system: 'pulse-sdk' | 'pulse-batch';
      readonly url: string;
      readonly namespace: string;
      readonly key: string;
      readonly queue: string;
      readonly concurrency: number;
      /**
       * pulse-batch only: `loops` claim loops of up to `batchSize` tasks each (default: one loop
       * of `concurrency`). 6 × 50 is pg-boss's setting here (`work()` loops × `batchSize`).
       */
      readonly loops?: number;
      readonly batchSize?: number;
    }
  | {
      readonly system: 'pg-boss';
      readonly url: string;
      readonly queue: string;
      readonly concurrency: number;
      readonly batchSize: number;
    }
  | {
      readonly system: 'graphile-worker';
      readonly url: string;
      readonly queue: string;
      readonly concurrency: number;
    };

interface Payload {
  readonly t?: number;
  readonly paced?: boolean;
  /** The handler's time in ms (`--handler-ms`): a timer, no CPU. */
  readonly ms?: number;
}

const latencies: number[] = [];

function noop(payload: unknown): Promise<void> {
  const p = payload as Payload | null;
  if (p?.paced === true && typeof p.t === 'number') {
    latencies.push(Date.now() - p.t);
  }
  const ms = p?.ms;
  return typeof ms === 'number' && ms > 0
    ? new Promise((resolve) => setTimeout(resolve, ms))
    : Promise.resolve();
}

const arg = process.argv[2];
if (arg !== undefined && process.send !== undefined) {
  await main(JSON.parse(arg) as WorkerConfig);
}

async function main(config: WorkerConfig): Promise<void> {
  let go: () => void = () => undefined;
  const going = new Promise<void>((resolve) => (go = resolve));
  let stopNow: () => void = () => undefined;
  const stopped = new Promise<void>((resolve) => (stopNow = resolve));
  process.on('message', (m: { go?: boolean; stop?: boolean }) => {
    if (m.go === true) {
      go();
    }
    if (m.stop === true) {
      stopNow();
    }
  });
  const begin = await prepareSystem(config);
  process.send?.({ ready: true });
  await going;
  const stop = await begin();
  await stopped;
  await stop();
  process.send?.({ latencies }, () => process.exit(0));
}

type Begin = () => Promise<() => Promise<void>>;

/**
 * Connects (what can be done before the clock starts) and returns `begin`, which starts
 * claiming when the harness says go and resolves to a graceful `stop`.
 */
async function prepareSystem(config: WorkerConfig): Promise<Begin> {
  switch (config.system) {
    case 'pulse-sdk':
      return () => {
        const worker = new Worker({
          client: pulseClient(config),
          concurrency: config.concurrency,
          waitMs: 5_000,
          handlers: { [config.queue]: (input) => noop(input) },
          onError: (e) => console.error('pulse worker:', e),
        });
        worker.start();
        return Promise.resolve(() => worker.stop());
      };
    case 'pulse-batch':
      return () => {
        const loops = Array.from({ length: config.loops ?? 1 }, () =>
          startPulseBatch({ ...config, concurrency: config.batchSize ?? config.concurrency }),
        );
        return Promise.resolve(async () => {
          await Promise.all(loops.map((stop) => stop()));
        });
      };
    case 'pg-boss': {
      const PgBoss = (await import('pg-boss')).default;
      const boss = new PgBoss({
        connectionString: config.url,
        max: config.concurrency + 2,
        supervise: false,
        schedule: false,
        migrate: false,
      });
      boss.on('error', (e) => console.error('pg-boss:', e));
      await boss.start();
      return async () => {
        for (let i = 0; i < config.concurrency; i++) {
          await boss.work(
            config.queue,
            { batchSize: config.batchSize, pollingIntervalSeconds: 0.5 },
            async (jobs) => {
              await Promise.all(jobs.map((job) => noop(job.data)));
            },
          );
        }
        return () => boss.stop({ graceful: true, wait: true, timeout: 10_000 });
      };
    }
    case 'graphile-worker': {
      const { run, Logger } = await import('graphile-worker');
      return async () => {
        const runner = await run({
          connectionString: config.url,
          concurrency: config.concurrency,
          maxPoolSize: config.concurrency + 2,
          noHandleSignals: true,
          pollInterval: 1_000,
          taskList: { [config.queue]: (payload) => noop(payload) },
          logger: new Logger(() => () => undefined),
        });
        return () => runner.stop();
      };
    }
  }
}

function pulseClient(config: { url: string; namespace: string; key: string }): WeaveClient {
  return new WeaveClient({ url: config.url, namespace: config.namespace, apiKey: config.key });
}

/**
 * One batched Pulse loop: one long-poll claim for up to `concurrency` tasks, run them, then one
 * `POST /queues/{q}/completions` that reports all of them and claims the next ones in the same
 * transaction. No-op tasks have no side effect, so the loop completes from CLAIMED without a
 * start call (the protocol allows it; a start only matters before an effect).
 */
function startPulseBatch(config: {
  url: string;
  namespace: string;
  key: string;
  queue: string;
  concurrency: number;
}): () => Promise<void> {
  const client = pulseClient(config);
  const workerId = `bench-${process.pid}`;
  const abort = new AbortController();
  const loop = (async () => {
    let tasks: readonly ClaimedTask[] = [];
    while (!abort.signal.aborted || tasks.length > 0) {
      if (tasks.length === 0) {
        try {
          tasks = (
            await client.claimTasks(
              config.queue,
              { worker_id: workerId, max_tasks: config.concurrency, wait_ms: 5_000 },
              abort.signal,
            )
          ).tasks;
        } catch (e: unknown) {
          if (!abort.signal.aborted) {
            console.error('pulse claim:', e);
          }
        }
        continue;
      }
      await Promise.all(tasks.map((task) => noop(task.input)));
      const answer = await client.completeMany(config.queue, {
        completions: tasks.map((task) => ({
          task_id: task.task_id,
          attempt_id: task.attempt_id,
          permit: task.permit,
          outcome: 'succeeded' as const,
          result: null,
        })),
        ...(abort.signal.aborted
          ? {}
          : { claim: { worker_id: workerId, max_tasks: config.concurrency } }),
      });
      if (answer.errors.length > 0) {
        console.error('pulse completions:', JSON.stringify(answer.errors[0]));
      }
      tasks = answer.tasks;
    }
  })();
  return async () => {
    abort.abort();
    await loop;
  };
}
