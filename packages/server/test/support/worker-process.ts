/**
 * Real worker processes for end-to-end tests: a child `node` process running the SDK `Worker` as
 * shipped (worker-process-main.ts) against a test server over real HTTP, its tasks doing what
 * their input asks (task-behaviours.ts). The parent reads what the child ran (one JSON line per
 * handler call started and finished), releases held tasks, and stops it gracefully (SIGTERM:
 * finish in-flight work, exit 0) or SIGKILLs it. Tracked by the leak check: a test that forgets
 * to stop (or kill) its worker process fails.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { track } from './leaks.js';
import type { TestServer } from './servers.js';
import { waitFor } from './wait-for.js';

const MAIN_JS = fileURLToPath(new URL('./worker-process-main.js', import.meta.url));

/** What the child is started with (its one argument, as JSON). */
export interface WorkerProcessConfig {
  readonly url: string;
  readonly namespace: string;
  readonly apiKey: string;
  readonly queues: readonly string[];
  readonly concurrency: number;
  readonly waitMs: number;
  readonly heartbeatMs: number;
}

/** One handler call, as the child reported it. */
export interface TaskReport {
  readonly event: 'started' | 'finished';
  readonly pid: number;
  readonly queue: string;
  readonly task_id: string;
  readonly attempt_id: string;
  readonly attempt_number: number;
  readonly op: string;
  readonly key?: string;
  /** `started`: the task input as the worker received it (exact numbers as `{ kind, text }`). */
  readonly input?: unknown;
  readonly outcome?: 'succeeded' | 'failed';
  readonly result?: unknown;
  readonly error?: { readonly name: string; readonly message: string; readonly code?: string };
  /** `failed`: the attempt's cancel signal had fired. */
  readonly cancelled?: boolean;
}

export interface WorkerProcess {
  readonly pid: number;
  /** Every task report so far, in the order the child wrote them. */
  readonly reports: readonly TaskReport[];
  /** Errors the SDK worker survived (claim failures, refused completions), as it reported them. */
  readonly errors: readonly string[];
  /** Waits for a report that matches (already there, or to come). */
  waitForReport(
    match: (r: TaskReport) => boolean,
    what: string,
    timeoutMs?: number,
  ): Promise<TaskReport>;
  /** Lets the tasks held on `name` (task input `hold`) go on, now and later. */
  release(name: string): void;
  stderr(): string;
  /** SIGTERM: the worker stops claiming, finishes and reports in-flight tasks; its exit code. */
  stop(timeoutMs?: number): Promise<number | null>;
  /** SIGKILL, at once; resolves once the process is gone. */
  kill(): Promise<void>;
}

export interface WorkerProcessOptions {
  readonly queues?: readonly string[];
  readonly concurrency?: number;
  readonly waitMs?: number;
  readonly heartbeatMs?: number;
  readonly readyTimeoutMs?: number;
}

/** A worker process on the test server's namespace `ns` with its admin key. */
export function startWorkerProcessFor(
  t: TestServer,
  options: WorkerProcessOptions = {},
): Promise<WorkerProcess> {
  return startWorkerProcess({ url: t.server.url, namespace: 'ns', apiKey: t.adminKey }, options);
}

/** Starts the child and resolves once its SDK worker runs. */
export async function startWorkerProcess(
  server: { readonly url: string; readonly namespace: string; readonly apiKey: string },
  options: WorkerProcessOptions = {},
): Promise<WorkerProcess> {
  const config: WorkerProcessConfig = {
    ...server,
    queues: options.queues ?? ['q1'],
    concurrency: options.concurrency ?? 8,
    waitMs: options.waitMs ?? 1_000,
    heartbeatMs: options.heartbeatMs ?? 200,
  };
  const child = spawn(process.execPath, [MAIN_JS, JSON.stringify(config)], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const name = `worker process on ${config.queues.join(', ')}`;
  const tracked = track('process', name, () => child.kill('SIGKILL'));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => {
      tracked.untrack();
      resolve({ code, signal });
    }),
  );
  const reports: TaskReport[] = [];
  const errors: string[] = [];
  let ready = false;
  let stopped = false;
  let stderr = '';
  let pending = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  child.stdout.on('data', (d: Buffer) => {
    pending += d.toString();
    for (let nl = pending.indexOf('\n'); nl >= 0; nl = pending.indexOf('\n')) {
      const line = JSON.parse(pending.slice(0, nl)) as
        TaskReport | { event: string; message?: string };
      pending = pending.slice(nl + 1);
      if (line.event === 'ready') {
        ready = true;
      } else if (line.event === 'stopped') {
        stopped = true;
      } else if (line.event === 'error') {
        errors.push(String((line as { message?: string }).message));
      } else {
        reports.push(line as TaskReport);
      }
    }
  });
  let gone = false;
  void exited.then(() => (gone = true));
  try {
    await waitFor(
      () => ready || (gone ? Promise.reject(new Error(`exited: ${stderr}`)) : undefined),
      {
        timeoutMs: options.readyTimeoutMs ?? 20_000,
        what: `${name} ready`,
      },
    );
  } catch (e: unknown) {
    child.kill('SIGKILL');
    await exited;
    throw e;
  }
  return {
    pid: child.pid ?? 0,
    reports,
    errors,
    waitForReport: (match, what, timeoutMs = 20_000) =>
      waitFor(
        () =>
          reports.find(match) ?? (gone ? Promise.reject(new Error(`${name} exited`)) : undefined),
        { timeoutMs, what: `${what} (worker process ${child.pid})` },
      ),
    release(hold) {
      child.stdin.write(`${JSON.stringify({ release: hold })}\n`);
    },
    stderr: () => stderr,
    async stop(timeoutMs = 20_000) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      const timerTracked = track('timer', `${name} stop timeout`, () => clearTimeout(timer));
      const { code, signal } = await exited;
      clearTimeout(timer);
      timerTracked.untrack();
      if (signal !== null || !stopped) {
        throw new Error(
          `${name} did not stop gracefully within ${timeoutMs} ms (${signal ?? code}): ${stderr}`,
        );
      }
      return code;
    },
    async kill() {
      child.kill('SIGKILL');
      await exited;
    },
  };
}
