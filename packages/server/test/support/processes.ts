/** Real `weave` processes for CLI and crash tests. */
import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { track } from './leaks.js';

export const WEAVE_BIN = fileURLToPath(new URL('../../../bin/weave.js', import.meta.url));

/** The repository's `node_modules/.bin/weave`, as an installed project has it. */
export const WEAVE_DOT_BIN = fileURLToPath(
  new URL('../../../../../node_modules/.bin/weave', import.meta.url),
);

export interface Finished {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export function runWeave(args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<Finished> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [WEAVE_BIN, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...env },
    });
    const tracked = track('process', `weave ${args.join(' ')}`, () => child.kill('SIGKILL'));
    child.on('close', () => tracked.untrack());
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

export interface Running {
  readonly child: ChildProcessWithoutNullStreams;
  /** The first line the process printed on stdout. */
  readonly firstLine: string;
  /** Everything printed on stdout so far. */
  stdout(): string;
  stderr(): string;
  /** SIGTERM, then wait for exit; resolves to the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * Starts `weave …` and resolves once it printed its first line on `readyOn` (stdout for
 * `weave dev`, stderr for `weave server`, whose stdout carries the JSON logs). Fails after
 * `timeoutMs` instead of hanging.
 */
export function startWeave(
  args: readonly string[],
  env: NodeJS.ProcessEnv = {},
  options: {
    readyOn?: 'stdout' | 'stderr';
    timeoutMs?: number;
    /** What to run instead of `node bin/weave.js` (e.g. a shell that `exec`s the bin). */
    command?: readonly [string, ...string[]];
  } = {},
): Promise<Running> {
  const [file, ...prefix] = options.command ?? [process.execPath, WEAVE_BIN];
  const child = spawn(file, [...prefix, ...args], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  const tracked = track('process', `weave ${args.join(' ')}`, () => child.kill('SIGKILL'));
  let err = '';
  let allOut = '';
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  child.stdout.on('data', (d: Buffer) => (allOut += d.toString()));
  const exited = new Promise<number | null>((resolve) =>
    child.on('exit', (code) => {
      tracked.untrack();
      resolve(code);
    }),
  );
  const stream = options.readyOn === 'stderr' ? child.stderr : child.stdout;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      timerTracked.untrack();
      child.kill('SIGKILL');
      reject(
        new Error(
          `weave ${args[0] ?? ''} printed nothing within ${options.timeoutMs ?? 20_000} ms: ${err}`,
        ),
      );
    }, options.timeoutMs ?? 20_000);
    const timerTracked = track('timer', `startWeave ${args[0] ?? ''} readiness timeout`, () =>
      clearTimeout(timer),
    );
    const settleTimer = () => {
      clearTimeout(timer);
      timerTracked.untrack();
    };
    let out = '';
    const onData = (d: Buffer) => {
      out += d.toString();
      const nl = out.indexOf('\n');
      if (nl >= 0) {
        settleTimer();
        stream.off('data', onData);
        resolve({
          child,
          firstLine: out.slice(0, nl),
          stdout: () => allOut,
          stderr: () => err,
          async stop(signal = 'SIGTERM') {
            child.kill(signal);
            return exited;
          },
        });
      }
    };
    stream.on('data', onData);
    void exited.then((code) => {
      // Exiting before the first line used to leave the readiness timer running for 20 s.
      settleTimer();
      reject(new Error(`weave ${args[0] ?? ''} exited (${code}) before printing: ${err}`));
    });
  });
}
