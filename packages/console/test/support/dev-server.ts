/**
 * A real `weave dev` process over a temp data folder (port 0), as a newcomer starts it; its
 * `--json` ready line gives the URL and the all-scopes dev key. Stopped with SIGINT by its pid.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const WEAVE = fileURLToPath(new URL('../../../../server/bin/weave.js', import.meta.url));
/** A cold start migrates a fresh SQLite file: seconds on a busy 2-core machine. */
const READY_TIMEOUT_MS = 30_000;

export interface DevServer {
  readonly url: string;
  readonly namespace: string;
  readonly key: string;
  stop(): Promise<void>;
}

/** `args`: more `weave dev` flags (e.g. `--with-examples`). */
export async function startDevServer(args: readonly string[] = []): Promise<DevServer> {
  const data = mkdtempSync(join(tmpdir(), 'weave-console-test-'));
  const child = spawn(
    process.execPath,
    [WEAVE, 'dev', '--port', '0', '--data', data, '--json', ...args],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const stderr: string[] = [];
  child.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk.toString('utf8')));
  try {
    const ready = await readyLine(child, stderr);
    return {
      ...ready,
      async stop() {
        await stopChild(child);
        rmSync(data, { recursive: true, force: true });
      },
    };
  } catch (e: unknown) {
    await stopChild(child);
    rmSync(data, { recursive: true, force: true });
    throw e;
  }
}

function readyLine(child: ChildProcess, stderr: string[]) {
  return new Promise<{ url: string; namespace: string; key: string }>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(
      () =>
        reject(new Error(`weave dev not ready after ${READY_TIMEOUT_MS} ms: ${stderr.join('')}`)),
      READY_TIMEOUT_MS,
    );
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      const line = out.split('\n')[0];
      if (out.includes('\n') && line !== undefined) {
        clearTimeout(timer);
        resolve(JSON.parse(line) as { url: string; namespace: string; key: string });
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`weave dev exited (${String(code)}): ${stderr.join('')}`));
    });
  });
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) {
    return;
  }
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGINT');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}
