/**
 * Runs the shell commands of a documentation page as written (README quickstart, docs/
 * quickstart.md), so the page and its test cannot drift. The `sh` blocks of a section are read
 * from the Markdown file itself and run, in order, as one `sh -e` script in a fresh folder that
 * links the repository's `node_modules` and `examples` (the newcomer's checkout, without their
 * `.weave`). What the test changes, and only this:
 *
 * - `npm ci` is not run again (the checkout is installed);
 * - the default port `8420` becomes a free port, given to the scripts as WEAVE_PORT/WEAVE_URL;
 * - a long-running server command (`npx weave dev`, which a person leaves running in its own
 *   terminal) runs in the background, its output in a log, and the script then waits for what
 *   a person waits for, the printed banner: the server answering and the key file written;
 * - `replace` pairs, e.g. the MariaDB URL of the page → the test's database.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { track } from './leaks.js';

export const REPO_ROOT = fileURLToPath(new URL('../../../../../', import.meta.url));

/** The `sh` blocks under the `## …` heading that starts with `heading` (or the whole page). */
export function shellBlocks(file: string, heading?: string): string[] {
  let text = readFileSync(join(REPO_ROOT, file), 'utf8');
  if (heading !== undefined) {
    const start = text.split('\n').findIndex((l) => l.startsWith(`## ${heading}`));
    if (start < 0) {
      throw new Error(`${file} has no section "## ${heading}"`);
    }
    const lines = text.split('\n').slice(start + 1);
    const end = lines.findIndex((l) => l.startsWith('## '));
    text = (end < 0 ? lines : lines.slice(0, end)).join('\n');
  }
  const blocks: string[] = [];
  for (const m of text.matchAll(/^( *)```sh\n([\s\S]*?)^ *```$/gm)) {
    const indent = (m[1] ?? '').length;
    blocks.push(
      (m[2] ?? '')
        .split('\n')
        .map((l) => l.slice(Math.min(indent, l.length - l.trimStart().length)))
        .join('\n'),
    );
  }
  return blocks;
}

/** The commands as the test runs them (see the module comment). */
export function toTestScript(
  blocks: readonly string[],
  port: number,
  replace: readonly (readonly [string, string])[] = [],
): string {
  const lines: string[] = [];
  for (const block of blocks) {
    for (const line of block.split('\n')) {
      if (line.trim() === 'npm ci') {
        continue;
      }
      if (/^npx weave dev\b/.test(line.trim())) {
        lines.push(`${line.trim()} > weave-dev.log 2>&1 &`);
        lines.push(
          'until [ -s .weave/dev-key ] && curl -sf "$WEAVE_URL/readyz" > /dev/null; do sleep 0.2; done',
        );
        continue;
      }
      lines.push(line);
    }
  }
  let script = lines.join('\n').replaceAll('8420', String(port));
  for (const [from, to] of replace) {
    script = script.replaceAll(from, to);
  }
  return script;
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') {
    throw new Error('no port');
  }
  return address.port;
}

export interface ScriptRun {
  readonly code: number | null;
  readonly stdout: string;
  /** stderr, then the logs the commands left in their folder. */
  readonly stderr: string;
}

/**
 * Runs the script with `sh -e` in a fresh folder (in its own process group), then stops what it
 * left running in the background (SIGINT to the group, as Ctrl-C would; SIGKILL after 10 s).
 */
export async function runInCheckout(
  script: string,
  options: { readonly port: number; readonly timeoutMs?: number },
): Promise<ScriptRun> {
  const dir = mkdtempSync(join(tmpdir(), 'weave-doc-'));
  symlinkSync(join(REPO_ROOT, 'node_modules'), join(dir, 'node_modules'));
  symlinkSync(join(REPO_ROOT, 'examples'), join(dir, 'examples'));
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of ['WEAVE_URL', 'WEAVE_KEY', 'WEAVE_NAMESPACE', 'WEAVE_DATA', 'WEAVE_DB']) {
    delete env[name];
  }
  env.WEAVE_PORT = String(options.port);
  env.WEAVE_URL = `http://127.0.0.1:${options.port}`;
  const child = spawn('sh', ['-e', '-c', script], { cwd: dir, env, detached: true });
  const group = child.pid ?? 0;
  const signalGroup = (signal: NodeJS.Signals) => {
    try {
      process.kill(-group, signal);
    } catch {
      // the group is gone
    }
  };
  const tracked = track('process', `doc commands in ${dir}`, () => signalGroup('SIGKILL'));
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const timer = setTimeout(() => signalGroup('SIGKILL'), options.timeoutMs ?? 120_000);
  // 'exit', not 'close': a background command may still hold the script's stderr.
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  clearTimeout(timer);
  signalGroup('SIGINT');
  for (let i = 0; i < 100 && isAlive(group); i++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  signalGroup('SIGKILL');
  tracked.untrack();
  // Keep the folder's logs for a failure message, then remove it.
  const logs = ['weave-dev.log', 'worker.log', 'weave-server.log']
    .map((f) => {
      try {
        return `--- ${f}\n${readFileSync(join(dir, f), 'utf8')}`;
      } catch {
        return '';
      }
    })
    .join('\n');
  rmSync(dir, { recursive: true, force: true });
  return { code, stdout, stderr: `${stderr}\n${logs}` };
}

function isAlive(group: number): boolean {
  try {
    process.kill(-group, 0);
    return true;
  } catch {
    return false;
  }
}
