/**
 * The benches' child processes: the `weave` CLI run to completion (bootstrap), and worker
 * processes forked with one JSON argument that report `{ ready: true }` once they poll.
 */
import { fork, spawn } from 'node:child_process';
import type { ChildProcess, ForkOptions } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const WEAVE_BIN = fileURLToPath(
  new URL('../../packages/server/bin/weave.js', import.meta.url),
);

/** Runs `weave ARGS…` and resolves with its stdout; rejects with its stderr on a non-zero exit. */
function runWeave(args: readonly string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [WEAVE_BIN, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('close', (code) =>
      code === 0 ? resolve(out) : reject(new Error(`weave ${args[0]} exited ${code}: ${err}`)),
    );
  });
}

/** `weave bootstrap` of one namespace, application and queue; resolves with the new key. */
export async function bootstrapKey(
  db: string,
  where: { namespace: string; app: string; queue: string },
): Promise<string> {
  const out = await runWeave([
    'bootstrap',
    '--db',
    db,
    '--namespace',
    where.namespace,
    '--app',
    where.app,
    '--queue',
    where.queue,
    '--json',
  ]);
  return (JSON.parse(out) as { key: string }).key;
}

/**
 * Forks `script` with `config` as its one JSON argument; `ready` resolves when the child reports
 * `{ ready: true }` and rejects if it exits first or is not ready in 30 s.
 */
export function forkReady(
  script: string,
  config: unknown,
  options: ForkOptions = {},
): { child: ChildProcess; ready: Promise<void> } {
  const child = fork(script, [JSON.stringify(config)], { stdio: 'inherit', ...options });
  const ready = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('worker not ready in 30 s')), 30_000);
    child.on('message', (m: { ready?: boolean }) => {
      if (m.ready === true) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => reject(new Error(`worker exited (${code})`)));
  });
  return { child, ready };
}
