/**
 * Bytes a server node allocated a job during a burn-down drain, from `bench/alloc-sampler.ts`'s
 * samples and the drain windows the burn-down prints when `WEAVE_BENCH_NODE_ARGS` is set
 * (docs/design/hot-path.md §42):
 *
 *   rm -rf /tmp/alloc && WEAVE_ALLOC_SAMPLES=/tmp/alloc \
 *   WEAVE_BENCH_NODE_ARGS="--import ./bench/build/alloc-sampler.js" \
 *     node bench/build/burn-down.js --only pulse-mariadb-1-sdk --jobs 10000 --rounds 1 \
 *     2> /tmp/alloc-log.txt
 *   node bench/build/alloc-per-job.js /tmp/alloc --log /tmp/alloc-log.txt --jobs 10000
 *
 * One row per drain and per server node whose samples cover it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { markdownTable } from './burn-down-report.js';
import { drainWindows } from './profile-modules.js';

const USAGE = 'node bench/build/alloc-per-job.js <samples dir> --log <burn-down stderr> --jobs N';

interface Sample {
  readonly at: number;
  readonly allocated: number;
  readonly scavenges: number;
}

function parseArgs(argv: readonly string[]): { dir: string; log: string; jobs: number } {
  const [dir, logFlag, log, jobsFlag, jobs] = argv;
  const n = Number(jobs);
  const shaped = argv.length === 5 && logFlag === '--log' && jobsFlag === '--jobs';
  if (!shaped || dir === undefined || log === undefined || !Number.isInteger(n) || n < 1) {
    console.error(`usage: ${USAGE}`);
    process.exit(2);
  }
  return { dir, log, jobs: n };
}

function readSamples(file: string): Sample[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      const [at, allocated, scavenges] = line.split(' ').map(Number);
      return { at: at ?? NaN, allocated: allocated ?? NaN, scavenges: scavenges ?? NaN };
    });
}

/** The last sample at or before `at`, or undefined if the samples start after it. */
function sampleAt(samples: readonly Sample[], at: number): Sample | undefined {
  let found: Sample | undefined;
  for (const sample of samples) {
    if (sample.at > at) {
      break;
    }
    found = sample;
  }
  return found;
}

function main(): void {
  const { dir, log, jobs } = parseArgs(process.argv.slice(2));
  const windows = drainWindows(log);
  const nodes = readdirSync(dir)
    .filter((name) => name.endsWith('.txt'))
    .map((name) => ({ pid: name.slice(0, -4), samples: readSamples(join(dir, name)) }));
  const body: string[][] = [];
  for (const [i, window] of windows.entries()) {
    for (const { pid, samples } of nodes) {
      const from = sampleAt(samples, window.from);
      const to = sampleAt(samples, window.to);
      if (from === undefined || to === undefined || to === from) {
        continue;
      }
      const bytes = to.allocated - from.allocated;
      const seconds = (to.at - from.at) / 1e6;
      body.push([
        String(i + 1),
        pid,
        (bytes / 2 ** 20).toFixed(1),
        (bytes / jobs / 1024).toFixed(1),
        (bytes / 2 ** 20 / seconds).toFixed(0),
        String(to.scavenges - from.scavenges),
      ]);
    }
  }
  const header = ['drain', 'server pid', 'MiB allocated', 'KiB a job', 'MiB/s', 'scavenges'];
  process.stdout.write(markdownTable(header, body) + '\n');
}

main();
