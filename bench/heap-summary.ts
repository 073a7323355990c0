/**
 * Where a process's bytes were allocated, from a sampling heap profile that counts freed objects
 * too (`bench/alloc-sampler.ts` writes one per burn-down drain): the bytes by module, as self
 * (allocated in the module's own frames) and as inclusive (the module anywhere on the stack),
 * per job (docs/design/hot-path.md §42):
 *
 *   rm -rf /tmp/alloc && WEAVE_ALLOC_SAMPLES=/tmp/alloc WEAVE_BENCH_DRAIN_SIGNAL=1 \
 *   WEAVE_BENCH_NODE_ARGS="--import ./bench/build/alloc-sampler.js" \
 *     node bench/build/burn-down.js --only pulse-mariadb-1-sdk --jobs 10000 --rounds 1 \
 *     2> /tmp/alloc-log.txt
 *   node bench/build/heap-summary.js /tmp/alloc/*.heapprofile --jobs 10000 [--top 25]
 *
 * The profile samples about one allocation in every 8 KiB, so a module's share below a few
 * tenths of a KiB a job is noise.
 */
import { readFileSync } from 'node:fs';
import { markdownTable } from './burn-down-report.js';
import { type FrameLocation, moduleOf } from './profile-modules.js';

interface HeapNode {
  readonly callFrame: FrameLocation;
  readonly selfSize: number;
  readonly children?: readonly HeapNode[];
}

const USAGE = 'node bench/build/heap-summary.js <file.heapprofile> --jobs N [--top N]';

function parseArgs(argv: readonly string[]): { file: string; jobs: number; top: number } {
  const [file, ...rest] = argv;
  const flags = new Map<string, number>();
  for (let i = 0; i < rest.length; i += 2) {
    flags.set(rest[i] as string, Number(rest[i + 1]));
  }
  const jobs = flags.get('--jobs');
  const top = flags.get('--top') ?? 25;
  const known = [...flags.keys()].every((k) => k === '--jobs' || k === '--top');
  const counts = [jobs, top].every((n) => Number.isInteger(n) && (n as number) > 0);
  if (file === undefined || jobs === undefined || !known || !counts || rest.length % 2 !== 0) {
    console.error(`usage: ${USAGE}`);
    process.exit(2);
  }
  return { file, jobs, top };
}

function summarise(head: HeapNode): {
  total: number;
  self: Map<string, number>;
  inclusive: Map<string, number>;
} {
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  const add = (m: Map<string, number>, key: string, bytes: number) =>
    m.set(key, (m.get(key) ?? 0) + bytes);
  let total = 0;
  const walk = (node: HeapNode, onStack: readonly string[]) => {
    const own = moduleOf(node.callFrame);
    const stack = onStack.includes(own) ? onStack : [...onStack, own];
    if (node.selfSize > 0) {
      total += node.selfSize;
      add(self, own, node.selfSize);
      for (const name of stack) {
        add(inclusive, name, node.selfSize);
      }
    }
    for (const child of node.children ?? []) {
      walk(child, stack);
    }
  };
  walk(head, []);
  inclusive.delete('(root)');
  return { total, self, inclusive };
}

function table(
  title: string,
  bytes: Map<string, number>,
  total: number,
  jobs: number,
  top: number,
) {
  const body = [...bytes]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([name, n]) => [name, (n / jobs / 1024).toFixed(2), ((100 * n) / total).toFixed(1)]);
  return markdownTable([title, 'KiB a job', '% of all'], body);
}

const { file, jobs, top } = parseArgs(process.argv.slice(2));
const profile = JSON.parse(readFileSync(file, 'utf8')) as { head: HeapNode };
const { total, self, inclusive } = summarise(profile.head);
process.stdout.write(
  `${file}: ${(total / 2 ** 20).toFixed(1)} MiB sampled, ${(total / jobs / 1024).toFixed(1)} KiB a job\n\n` +
    `${table('self', self, total, jobs, top)}\n\n${table('inclusive', inclusive, total, jobs, top)}\n`,
);
