/**
 * Where a process's main thread went, from a V8 `--cpu-prof` profile: its busy time by module
 * (an npm package, a file of a workspace package, a Node module, the collector), as self time
 * and as inclusive time (a module counted once per sample if anywhere on the stack), optionally
 * only inside a window and per job. The burn-down prints its drain's window on the profile's
 * clock when the server runs with profiler flags (docs/benchmarks.md "Profiles of a drain"):
 *
 *   mkdir -p /tmp/prof && rm -f /tmp/prof/*.cpuprofile
 *   WEAVE_BENCH_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" node bench/build/burn-down.js \
 *     --only pulse-mariadb-1-sdk --jobs 20000 --paced-seconds 2 --rounds 1 2> /tmp/prof/log.txt
 *   node bench/build/profile-summary.js /tmp/prof/CPU.*.cpuprofile --log /tmp/prof/log.txt \
 *     --jobs 20000 [--top 25] [--in server:pulse/settle-task]
 *
 * `--log` takes the window from the burn-down's "drain from … to … µs" line (its first);
 * `--from µs --to µs` give it by hand; without either the whole profile counts.
 * `--in` adds a third table: the self time of each function of that module (its name and its line
 * in the built `.js` file).
 *
 * Sample times are wall time on the main thread: a sample taken while the thread was runnable
 * but descheduled counts as busy, and a socket write's share is time, not CPU (hot-path.md §23).
 */
import { readFileSync } from 'node:fs';
import { type FrameLocation, drainWindows, moduleOf } from './profile-modules.js';

interface CallFrame extends FrameLocation {
  /** 0-based. */
  readonly lineNumber: number;
}

interface ProfileNode {
  readonly id: number;
  readonly callFrame: CallFrame;
  readonly children?: readonly number[];
}

interface Profile {
  readonly nodes: readonly ProfileNode[];
  readonly startTime: number;
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

const USAGE =
  'node bench/build/profile-summary.js <file.cpuprofile> [--log burn-down-stderr | --from µs ' +
  '--to µs] [--jobs N] [--top N] [--in module]';

interface Options {
  readonly file: string;
  readonly from: number;
  readonly to: number;
  readonly jobs: number | undefined;
  readonly top: number;
  readonly in: string | undefined;
}

function parseOptions(argv: readonly string[]): Options {
  const numbers = new Map<string, number>();
  let file: string | undefined;
  let module: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--in' && module === undefined && argv[i + 1] !== undefined) {
      module = argv[++i];
    } else if (arg === '--log' && argv[i + 1] !== undefined) {
      const [drain] = drainWindows(argv[++i] as string);
      numbers.set('--from', drain?.from ?? -Infinity);
      numbers.set('--to', drain?.to ?? Infinity);
    } else if (['--from', '--to', '--jobs', '--top'].includes(arg)) {
      const value = Number(argv[++i]);
      if (!Number.isFinite(value) || value < 0) {
        return usage();
      }
      numbers.set(arg, value);
    } else if (file === undefined && !arg.startsWith('--')) {
      file = arg;
    } else {
      return usage();
    }
  }
  if (file === undefined) {
    return usage();
  }
  return {
    file,
    from: numbers.get('--from') ?? -Infinity,
    to: numbers.get('--to') ?? Infinity,
    jobs: numbers.get('--jobs'),
    top: numbers.get('--top') ?? 25,
    in: module,
  };
}

function usage(): never {
  console.error(`usage: ${USAGE}`);
  process.exit(2);
}

interface Summary {
  readonly windowUs: number;
  readonly busyUs: number;
  readonly self: Map<string, number>;
  readonly inclusive: Map<string, number>;
  /** Self time by function (`name:line`) of the `--in` module. */
  readonly functions: Map<string, number>;
}

function summarise(profile: Profile, from: number, to: number, module?: string): Summary {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) {
    for (const child of n.children ?? []) {
      parent.set(child, n.id);
    }
  }
  const add = <K>(m: Map<K, number>, key: K, us: number) => m.set(key, (m.get(key) ?? 0) + us);
  // The window's time by stack (profile node) first, then each stack's modules once.
  const byNode = new Map<number, number>();
  let at = profile.startTime;
  let windowUs = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    at += profile.timeDeltas[i] ?? 0;
    if (at >= from && at <= to) {
      // A sample stands for the time until the next one.
      const us = profile.timeDeltas[i + 1] ?? 0;
      windowUs += us;
      add(byNode, profile.samples[i] as number, us);
    }
  }
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  const functions = new Map<string, number>();
  for (const [leaf, us] of byNode) {
    const { callFrame } = byId.get(leaf) as ProfileNode;
    const own = moduleOf(callFrame);
    add(self, own, us);
    if (own === module) {
      const name = callFrame.functionName === '' ? '(anonymous)' : callFrame.functionName;
      add(functions, `${name}:${callFrame.lineNumber + 1}`, us);
    }
    const onStack = new Set<string>();
    for (let id: number | undefined = leaf; id !== undefined; id = parent.get(id)) {
      onStack.add(moduleOf((byId.get(id) as ProfileNode).callFrame));
    }
    for (const name of onStack) {
      add(inclusive, name, us);
    }
  }
  const idle = (self.get('(idle)') ?? 0) + (self.get('(root)') ?? 0);
  for (const m of [self, inclusive]) {
    m.delete('(idle)');
    m.delete('(root)');
  }
  return { windowUs, busyUs: windowUs - idle, self, inclusive, functions };
}

function table(title: string, shares: Map<string, number>, s: Summary, options: Options): string {
  const { jobs } = options;
  const lines = [
    `| ${title} | ms | % of busy |${jobs === undefined ? '' : ' µs a job |'}`,
    `| --- | ---: | ---: |${jobs === undefined ? '' : ' ---: |'}`,
  ];
  for (const [name, us] of [...shares].sort((a, b) => b[1] - a[1]).slice(0, options.top)) {
    const job = jobs === undefined ? '' : ` ${(us / jobs).toFixed(1)} |`;
    lines.push(
      `| ${name} | ${(us / 1000).toFixed(0)} | ${((100 * us) / s.busyUs).toFixed(1)} |${job}`,
    );
  }
  return lines.join('\n');
}

const options = parseOptions(process.argv.slice(2));
const profile = JSON.parse(readFileSync(options.file, 'utf8')) as Profile;
const summary = summarise(profile, options.from, options.to, options.in);
const job =
  options.jobs === undefined ? '' : `, ${(summary.busyUs / options.jobs).toFixed(1)} µs a job`;
console.log(
  `window ${(summary.windowUs / 1000).toFixed(0)} ms, main thread busy ` +
    `${(summary.busyUs / 1000).toFixed(0)} ms (${((100 * summary.busyUs) / summary.windowUs).toFixed(1)} %)${job}\n`,
);
console.log(`${table('self', summary.self, summary, options)}\n`);
console.log(table('inclusive', summary.inclusive, summary, options));
if (options.in !== undefined) {
  console.log(`\n${table(`${options.in}, self`, summary.functions, summary, options)}`);
}
