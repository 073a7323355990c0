/**
 * What running both cores at once costs each of them on this machine: the same loop of random
 * reads over a working set, alone and then as two processes at once, its CPU time compared. A
 * working set that fits a core's own cache shows what the cores compute side by side; a larger
 * one shows what they lose to the cache and memory they share. The burn-down's one-node variant
 * keeps about 1.5 cores busy and its two-node variant, like graphile-worker, both. This figure
 * moves from machine to machine and run to run; what two nodes pay on top of it is mostly two
 * servers taking turns on each core and twice the groups (docs/design/hot-path.md §28, §29).
 *
 *   node bench/build/core-sharing.js [--reads N]
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { onlyIntFlag } from './int-flag.js';

/** Working sets, in 4-byte cells: 256 KiB (a core's own cache here) and 16 MiB. */
const SIZES = [1 << 16, 1 << 22] as const;

/** The loop: `reads` dependent random reads over `cells` cells; CPU milliseconds it took. */
function readLoop(cells: number, reads: number): number {
  const table = new Uint32Array(cells);
  for (let i = 0; i < cells; i++) {
    table[i] = (i * 2654435761) >>> 0;
  }
  const from = process.cpuUsage();
  let at = 1;
  let sum = 0;
  for (let i = 0; i < reads; i++) {
    at = ((table[at] ?? 0) + i) % cells;
    sum += at;
  }
  const used = process.cpuUsage(from);
  if (sum < 0) {
    console.log(sum); // keeps the loop from being optimized away
  }
  return (used.user + used.system) / 1000;
}

/** `copies` processes at once, each running the loop; each one's CPU milliseconds. */
function inProcesses(cells: number, reads: number, copies: number): Promise<number[]> {
  const self = fileURLToPath(import.meta.url);
  return Promise.all(
    Array.from(
      { length: copies },
      () =>
        new Promise<number>((resolve, reject) => {
          const child = fork(self, ['--child', String(cells), String(reads)]);
          child.once('message', (ms) => resolve(Number(ms)));
          child.once('error', reject);
          child.once('exit', (code) => {
            if (code !== 0) {
              reject(new Error(`probe process exited ${code}`));
            }
          });
        }),
    ),
  );
}

const mean = (values: readonly number[]) => values.reduce((a, b) => a + b, 0) / values.length;

if (process.argv[2] === '--child') {
  const ms = readLoop(Number(process.argv[3]), Number(process.argv[4]));
  process.send?.(ms, () => process.exit(0));
} else {
  const reads = onlyIntFlag('--reads', 100_000_000, 'node bench/build/core-sharing.js [--reads N]');
  console.log(`${reads} dependent random reads, one process alone, then two at once`);
  console.log('| working set | alone (CPU ms) | two at once (CPU ms each) | slower by |');
  console.log('| --- | ---: | ---: | ---: |');
  for (const cells of SIZES) {
    const [alone = NaN] = await inProcesses(cells, reads, 1);
    const both = await inProcesses(cells, reads, 2);
    const kib = (cells * 4) / 1024;
    const size = kib >= 1024 ? `${kib / 1024} MiB` : `${kib} KiB`;
    const slower = ((mean(both) / alone - 1) * 100).toFixed(0);
    console.log(
      `| ${size} | ${alone.toFixed(0)} | ${both.map((ms) => ms.toFixed(0)).join(', ')} | ${slower} % |`,
    );
  }
}
