/**
 * Debian's chromium driven by playwright-core: headless, no sandbox (CI runs as root), no
 * background networking or component updates, and a fresh user-data-dir per run. Missing
 * chromium skips the suite locally; with `CI=true` it is a failure (.ci/run installs it).
 */
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import type { BrowserContext } from 'playwright-core';

export const CHROMIUM = process.env['WEAVE_CHROMIUM'] ?? '/usr/bin/chromium';

/** Why the browser suite cannot run here, or undefined when it can. */
export function browserMissing(): string | undefined {
  if (existsSync(CHROMIUM)) {
    return undefined;
  }
  const reason = `${CHROMIUM} is missing (apt-get install -y chromium)`;
  if (process.env['CI'] === 'true') {
    throw new Error(`CI=true and ${reason}: the browser suite would be skipped`);
  }
  return reason;
}

export interface Browser {
  readonly context: BrowserContext;
  close(): Promise<void>;
}

export async function launchBrowser(): Promise<Browser> {
  const userDataDir = mkdtempSync(join(tmpdir(), 'weave-console-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-background-networking', '--disable-component-update'],
    viewport: { width: 1400, height: 1000 },
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}

/**
 * CPU time (user + system, ms) used so far by every running chromium process (browser,
 * renderers, GPU, network), from `/proc`; NaN where there is no `/proc`. Unlike wall time it does
 * not grow when other processes share the cores.
 */
export function chromiumCpuMs(): number {
  let ticks = 0;
  try {
    for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
      try {
        const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0] ?? '';
        if (!command.startsWith(CHROMIUM) && !command.endsWith('/chromium')) {
          continue;
        }
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        ticks += Number(fields[11]) + Number(fields[12]);
      } catch {
        // The process ended while /proc was read.
      }
    }
  } catch {
    return Number.NaN;
  }
  // Clock ticks are 1/100 s on Linux.
  return ticks * 10;
}
