/**
 * What one submit costs when nothing else is running (docs/design/hot-path.md §60): the floor
 * under issue 14's paced p99 line, where each submit is a transaction of its own and its task is
 * handed to a waiting worker inside it. One Pulse server node on MariaDB and one on SQLite, set up
 * as the burn-down sets them up (`PulseSystem`), no workers. Per engine: a warm-up of 3,000
 * submits back to back, so the hot path is compiled as in the burn-down's paced phase; the server's
 * and the database's CPU over ten idle seconds (the periodic loops); then `--submits` submits one
 * after another, first back to back and then each after 20 ms of idle (the burn-down's paced 50 a
 * second), their latency's p50 / p90 / p99 / worst and the server's and database's CPU a submit.
 *
 *   node bench/build/lone-submit.js [--submits 300]
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { percentile } from './burn-down-report.js';
import { PulseSystem } from './burn-down-systems.js';
import { cpuUse, snapshot } from './cpu-use.js';
import { onlyIntFlag } from './int-flag.js';

const SUBMITS = onlyIntFlag('--submits', 300, 'node bench/build/lone-submit.js [--submits N]');
const WARM_UP = 3000;
const IDLE_MS = 10_000;
const GAPS_MS = [0, 20];

interface Phase {
  readonly ms: number[];
  readonly serverMs: number;
  readonly databaseMs: number;
}

/** Runs `work`; the server's and the database's CPU milliseconds over it. */
async function measured(system: PulseSystem, work: () => Promise<void>) {
  const before = snapshot();
  await work();
  const use = cpuUse(before, snapshot(), { servers: system.serverPids, workers: [] });
  return { serverMs: (use?.server ?? NaN) * 1000, databaseMs: (use?.database ?? NaN) * 1000 };
}

async function submits(system: PulseSystem, gapMs: number): Promise<Phase> {
  const ms: number[] = [];
  const cpu = await measured(system, async () => {
    for (let i = 0; i < SUBMITS; i++) {
      if (gapMs > 0) {
        await sleep(gapMs);
      }
      const started = performance.now();
      await system.submit({ t: Date.now(), paced: true });
      ms.push(performance.now() - started);
    }
  });
  return { ms: ms.sort((a, b) => a - b), ...cpu };
}

/** The burn-down's own nearest-rank percentile, so this p99 reads as the paced line's does. */
function at(sorted: readonly number[], p: number): string {
  return (percentile(sorted, p) ?? NaN).toFixed(2);
}

const rows: string[] = [];
for (const dialect of ['mysql', 'sqlite'] as const) {
  const system = new PulseSystem(dialect, 1, 'pulse-sdk');
  await system.setup();
  try {
    for (let i = 0; i < WARM_UP; i++) {
      await system.submit({ t: Date.now(), paced: true });
    }
    const idle = await measured(system, () => sleep(IDLE_MS));
    const engine = dialect === 'mysql' ? 'MariaDB' : 'SQLite';
    const perSecond = (ms: number) => (ms / (IDLE_MS / 1000)).toFixed(1);
    for (const gapMs of GAPS_MS) {
      const phase = await submits(system, gapMs);
      const { ms } = phase;
      rows.push(
        `| ${engine} | ${gapMs} | ${at(ms, 0.5)} | ${at(ms, 0.9)} | ${at(ms, 0.99)} | ` +
          `${at(ms, 1)} | ${(phase.serverMs / SUBMITS).toFixed(2)} | ` +
          `${(phase.databaseMs / SUBMITS).toFixed(2)} | ${perSecond(idle.serverMs)} / ` +
          `${perSecond(idle.databaseMs)} |`,
      );
    }
  } finally {
    await system.teardown();
  }
}
console.log(
  `\n${SUBMITS} submits a phase, one at a time, after ${WARM_UP} back to back; no workers\n`,
);
console.log(
  '| engine | idle before each (ms) | p50 (ms) | p90 | p99 | worst | server CPU a submit (ms) | ' +
    'database CPU a submit (ms) | idle: server / database CPU (ms a second) |',
);
console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
for (const row of rows) {
  console.log(row);
}
