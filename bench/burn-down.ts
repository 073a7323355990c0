/**
 * The Pulse burn-down bench (issue 4, docs/benchmarks.md "Pulse burn-down"):
 *
 *   npm run bench:burn-down -- [--jobs 20000] [--rate 50] [--paced-seconds 10] [--only a,b]
 *                              [--rounds 1] [--input-bytes 0] [--handler-ms 0]
 *
 * For every system, on a fresh database: pre-enqueue `--jobs` no-op jobs (not timed), read the
 * database's commit counter, start 4 worker processes × concurrency 6 (= 24), time the drain
 * (jobs/s), read the counter again (commits per job). Then a paced phase on the same workers:
 * jobs are submitted at `--rate` per second for `--paced-seconds`; each handler records
 * `now - t` (t: taken right before the submit call) = submit→claim latency below saturation,
 * p50/p99. Every phase is bounded in time; everything runs on loopback.
 *
 * With `--rounds n` every variant runs n times, round by round, each round starting one variant
 * later in the list (so no variant always runs first or right after the same one); a table per
 * round, then each system's jobs/s by round with the median, and the ratios taken within each
 * round with theirs. The machines this runs on drift by ±15 % over minutes (docs/benchmarks.md
 * run 9): a ratio from one round is one sample. `--input-bytes N` pads each drained job's input
 * with a string of N bytes (every system alike), for what larger payloads cost. `--handler-ms N`
 * makes each drained job's handler take N ms (a timer: the worker's slot is held, no CPU), for
 * handlers that are not instant.
 */
import { availableParallelism } from 'node:os';
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import {
  GraphileSystem,
  PgBossSystem,
  PulseSystem,
  handlersTake,
  padInputsTo,
} from './burn-down-systems.js';
import type { Commits, System } from './burn-down-systems.js';
import {
  formatCpuTable,
  formatRounds,
  formatTable,
  formatTurnTable,
  percentile,
} from './burn-down-report.js';
import { cpuUse, snapshot } from './cpu-use.js';
import { formatRecord } from './burn-down-record.js';
import type { Row } from './burn-down-report.js';
import { forkReady } from './weave-processes.js';

const WORKER_JS = fileURLToPath(new URL('./burn-down-worker.js', import.meta.url));
const PROCESSES = 4;
const CONCURRENCY_PER_PROCESS = 6;
const DRAIN_TIMEOUT_MS = 300_000;
const POLL_MS = 50;
/** Between the drain and the paced phase: the workers go back to waiting for work. */
const PACED_SETTLE_MS = 1_000;

interface Options {
  readonly jobs: number;
  readonly rate: number;
  readonly pacedSeconds: number;
  readonly only: readonly string[] | undefined;
  readonly rounds: number;
  readonly inputBytes: number;
  readonly handlerMs: number;
  /** How the systems reach their database (burn-down-systems.ts `overSockets`). */
  readonly transport: 'socket' | 'tcp';
}

const USAGE =
  'usage: node bench/build/burn-down.js [--jobs N] [--rate N] [--paced-seconds N] ' +
  '[--only id,id,…] [--rounds N] [--input-bytes N] [--handler-ms N] [--transport socket|tcp]';
const FLAGS = new Set([
  '--jobs',
  '--rate',
  '--paced-seconds',
  '--only',
  '--rounds',
  '--input-bytes',
  '--handler-ms',
  '--transport',
]);

function parseOptions(argv: readonly string[]): Options {
  // Every flag takes a value; anything else (`--help` too) prints the usage instead of running.
  for (let i = 0; i < argv.length; i += 2) {
    const bad = argv[i] === '--transport' && argv[i + 1] !== 'socket' && argv[i + 1] !== 'tcp';
    if (!FLAGS.has(argv[i] as string) || argv[i + 1] === undefined || bad) {
      process.stderr.write(
        `${USAGE}\nvariants: ${Object.keys({ ...VARIANTS, ...SWEEP_VARIANTS }).join(', ')}\n`,
      );
      process.exit(argv[i] === '--help' ? 0 : 2);
    }
  }
  const get = (name: string) => {
    const i = argv.indexOf(`--${name}`);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  return {
    jobs: Number(get('jobs') ?? 20_000),
    // 50/s: below saturation for every variant. One-by-one HTTP submits top out at ~120–150/s
    // on MariaDB here, so at the earlier 200/s the p99 measured the submit queue, not pickup.
    rate: Number(get('rate') ?? 50),
    pacedSeconds: Number(get('paced-seconds') ?? 10),
    only: get('only')?.split(','),
    rounds: Math.max(1, Number(get('rounds') ?? 1)),
    inputBytes: Number(get('input-bytes') ?? 0),
    handlerMs: Number(get('handler-ms') ?? 0),
    transport: get('transport') === 'tcp' ? 'tcp' : 'socket',
  };
}

/** pg-boss's setting here: per process 6 `work()` loops × `batchSize: 50`. */
const PG_BOSS_SHAPE = { loops: 6, batchSize: 50 } as const;

/**
 * Only with `--only`: the batched loop on MariaDB with batches of 3 (2 loops × 3 per process:
 * 24 tasks held at most, like the default 1 × 6) and of 12 (1 × 12: 48), to split the cost per
 * batch from the cost per job (docs/benchmarks.md run 6).
 */
const SWEEP_VARIANTS: Record<string, () => System> = {
  'pulse-mariadb-1-b3': () =>
    new PulseSystem('mysql', 1, 'pulse-batch', { loops: 2, batchSize: 3 }),
  'pulse-mariadb-1-b12': () =>
    new PulseSystem('mysql', 1, 'pulse-batch', { loops: 1, batchSize: 12 }),
};

/** Variant ids → systems, in the order they run. */
const VARIANTS: Record<string, () => System> = {
  'pulse-mariadb-1': () => new PulseSystem('mysql', 1, 'pulse-batch'),
  'pulse-mariadb-2': () => new PulseSystem('mysql', 2, 'pulse-batch'),
  'pulse-sqlite': () => new PulseSystem('sqlite', 1, 'pulse-batch'),
  'pulse-mariadb-1-b50': () => new PulseSystem('mysql', 1, 'pulse-batch', PG_BOSS_SHAPE),
  'pulse-mariadb-2-b50': () => new PulseSystem('mysql', 2, 'pulse-batch', PG_BOSS_SHAPE),
  'pulse-sqlite-b50': () => new PulseSystem('sqlite', 1, 'pulse-batch', PG_BOSS_SHAPE),
  'pulse-mariadb-1-sdk': () => new PulseSystem('mysql', 1, 'pulse-sdk'),
  'pulse-mariadb-2-sdk': () => new PulseSystem('mysql', 2, 'pulse-sdk'),
  'pulse-sqlite-sdk': () => new PulseSystem('sqlite', 1, 'pulse-sdk'),
  'pg-boss': () => new PgBossSystem(PG_BOSS_SHAPE.batchSize),
  'graphile-worker': () => new GraphileSystem(),
};

class Workers {
  readonly #children: ChildProcess[] = [];

  async start(system: System): Promise<void> {
    const ready: Promise<void>[] = [];
    for (let slot = 0; slot < PROCESSES; slot++) {
      const config = system.workerConfig(slot, CONCURRENCY_PER_PROCESS);
      // WEAVE_BENCH_WORKER_ARGS: extra node flags for the worker processes (e.g. `--cpu-prof`).
      const execArgv = (process.env['WEAVE_BENCH_WORKER_ARGS'] ?? '').split(' ').filter(Boolean);
      const { child, ready: up } = forkReady(WORKER_JS, config, { execArgv });
      this.#children.push(child);
      ready.push(up);
    }
    await Promise.all(ready);
  }

  get pids(): number[] {
    return this.#children.flatMap((child) => (child.pid === undefined ? [] : [child.pid]));
  }

  /** Every process starts claiming now. */
  go(): void {
    this.#children.forEach((child) => child.send({ go: true }));
  }

  /** Graceful stop; resolves to the latencies every process recorded. */
  async stop(): Promise<number[]> {
    const all = await Promise.all(
      this.#children.splice(0).map(
        (child) =>
          new Promise<number[]>((resolve) => {
            let latencies: number[] = [];
            const kill = setTimeout(() => child.kill('SIGKILL'), 20_000);
            child.on('message', (m: { latencies?: number[] }) => {
              latencies = m.latencies ?? latencies;
            });
            child.once('exit', () => {
              clearTimeout(kill);
              resolve(latencies);
            });
            if (child.exitCode !== null || !child.connected) {
              clearTimeout(kill);
              resolve(latencies);
              return;
            }
            child.send({ stop: true });
          }),
      ),
    );
    return all.flat();
  }
}

async function waitDrained(system: System, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (await system.anyLeft()) {
    if (Date.now() > until) {
      throw new Error(`${system.name}: jobs left after ${timeoutMs} ms`);
    }
    await sleep(POLL_MS);
  }
}

/**
 * WEAVE_BENCH_DRAIN_SIGNAL=1: a SIGUSR2 to each server node as its drain starts and as it ends, for
 * `bench/alloc-sampler.ts`'s heap profile of the drain alone (docs/design/hot-path.md §42).
 */
function signalServers(system: System): void {
  if (process.env['WEAVE_BENCH_DRAIN_SIGNAL'] === '1') {
    for (const pid of system.serverPids) {
      process.kill(pid, 'SIGUSR2');
    }
  }
}

async function runVariant(system: System, options: Options): Promise<Row> {
  const log = (text: string) => process.stderr.write(`[${system.name}] ${text}\n`);
  const workers = new Workers();
  try {
    await system.setup();
    let started = Date.now();
    await system.enqueue(options.jobs);
    log(`enqueued ${options.jobs} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    const before: Commits | undefined = await system.commits();
    const queriesBefore = system.ownQueries;
    await workers.start(system);
    const cpuBefore = snapshot();
    const drainFrom = process.hrtime.bigint() / 1000n;
    signalServers(system);
    started = Date.now();
    workers.go();
    await waitDrained(system, DRAIN_TIMEOUT_MS);
    const drainMs = Date.now() - started;
    signalServers(system);
    if (process.env['WEAVE_BENCH_NODE_ARGS'] !== undefined) {
      // The drain on the monotonic clock a `--cpu-prof` profile's timestamps are on.
      log(`drain from ${drainFrom} to ${process.hrtime.bigint() / 1000n} µs`);
    }
    const cpu = cpuUse(cpuBefore, snapshot(), {
      servers: system.serverPids,
      workers: workers.pids,
    });
    const after: Commits | undefined = await system.commits();
    const ownQueries = system.ownQueries - queriesBefore;
    const jobsPerSecond = options.jobs / (drainMs / 1000);
    log(`drained in ${(drainMs / 1000).toFixed(2)} s: ${jobsPerSecond.toFixed(0)} jobs/s`);

    // Paced phase, well below capacity, on the same (warm) worker processes: new processes
    // would still be compiling their hot paths on the two vCPUs when the first jobs arrive, and
    // the p99 would measure that start-up rather than pickup (docs/benchmarks.md run 4).
    await sleep(PACED_SETTLE_MS);
    const total = Math.round(options.rate * options.pacedSeconds);
    const pacedStart = Date.now();
    const submits: Promise<void>[] = [];
    const submitMs: number[] = [];
    for (let k = 0; k < total; k++) {
      const due = pacedStart + (k * 1000) / options.rate;
      const wait = due - Date.now();
      if (wait > 0) {
        await sleep(wait);
      }
      const t = Date.now();
      submits.push(
        system.submit({ t, paced: true }).then(() => void submitMs.push(Date.now() - t)),
      );
    }
    await Promise.all(submits);
    await waitDrained(system, 60_000);
    const latencies = (await workers.stop()).sort((a, b) => a - b);
    log(`paced: ${latencies.length} of ${total} latencies recorded`);
    const pgOwn = system.kind === 'pulse' ? 0 : ownQueries;
    // How far a database counter moved over the drain; undefined where the system has none.
    const grew = (counter: (c: Commits) => number | undefined): number | undefined => {
      const from = before === undefined ? undefined : counter(before);
      const to = after === undefined ? undefined : counter(after);
      return from === undefined || to === undefined || Number.isNaN(to) ? undefined : to - from;
    };
    const perJob = (n: number | undefined) => (n === undefined ? undefined : n / options.jobs);
    const groups = grew((c) => c.groups?.count);
    const calls = grew((c) => c.groups?.calls);
    const commits = grew((c) => c.commits);
    return {
      name: system.name,
      kind: system.kind,
      jobs: options.jobs,
      drainMs,
      jobsPerSecond,
      commitsPerJob: perJob(commits === undefined ? undefined : commits - pgOwn),
      callsPerGroup:
        groups === undefined || calls === undefined ? undefined : calls / Math.max(1, groups),
      jobsPerCall: calls === undefined ? undefined : options.jobs / Math.max(1, calls),
      handlerCommitsPerJob: perJob(grew((c) => c.handler)),
      pagesPerJob: perJob(grew((c) => c.pages?.requests)),
      pagesFromDisk: grew((c) => c.pages?.fromDisk),
      p50: percentile(latencies, 0.5),
      p99: percentile(latencies, 0.99),
      latencyCount: latencies.length,
      submitP50: percentile(
        submitMs.sort((a, b) => a - b),
        0.5,
      ),
      submitP99: percentile(submitMs, 0.99),
      cpu,
    };
  } finally {
    await workers.stop();
    await system.teardown();
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  process.env['WEAVE_BENCH_TRANSPORT'] = options.transport;
  padInputsTo(options.inputBytes);
  handlersTake(options.handlerMs);
  const ids = options.only ?? Object.keys(VARIANTS);
  const known = { ...VARIANTS, ...SWEEP_VARIANTS };
  for (const id of ids) {
    if (known[id] === undefined) {
      throw new Error(`unknown variant ${id}; known: ${Object.keys(known).join(', ')}`);
    }
  }
  const rounds: Row[][] = [];
  const missing: string[] = [];
  for (let round = 0; round < options.rounds; round++) {
    const ran: { at: number; row: Row }[] = [];
    for (let k = 0; k < ids.length; k++) {
      const at = (k + round) % ids.length;
      const id = ids[at] as string;
      try {
        ran.push({ at, row: await runVariant((known[id] as () => System)(), options) });
      } catch (e: unknown) {
        process.stderr.write(`variant ${id} failed: ${String(e)}\n`);
        missing.push(id);
      }
    }
    // Tables in the order asked for, whatever order the round ran in.
    rounds.push(ran.sort((a, b) => a.at - b.at).map((r) => r.row));
  }
  process.stdout.write(
    `\nburn-down: ${options.jobs} no-op jobs` +
      (options.inputBytes > 0 ? ` (inputs padded by ${options.inputBytes} bytes)` : '') +
      `, ${PROCESSES} worker processes × ` +
      `${CONCURRENCY_PER_PROCESS}; paced ${options.rate}/s × ${options.pacedSeconds} s` +
      (options.rounds > 1 ? `; ${options.rounds} rounds` : '') +
      `; databases reached over ${options.transport === 'tcp' ? 'TCP (127.0.0.1)' : 'their Unix sockets'}` +
      '\n',
  );
  for (const [i, rows] of rounds.entries()) {
    if (options.rounds > 1) {
      process.stdout.write(`\nRound ${i + 1}:\n`);
    }
    process.stdout.write('\n' + formatTable(rows) + '\n');
    process.stdout.write(
      '\nCPU during the drain, ms per job (all processes of each role; the machine has ' +
        `${availableParallelism()} cores):\n\n${formatCpuTable(rows)}\n`,
    );
    const turn = formatTurnTable(rows);
    if (turn !== '') {
      process.stdout.write(
        '\nOne node on MariaDB, its server and database in turn (docs/design/hot-path.md §30):\n\n' +
          `${turn}\n`,
      );
    }
  }
  if (options.rounds > 1) {
    process.stdout.write(`\nOver the ${options.rounds} rounds:\n\n${formatRounds(rounds)}\n`);
  }
  process.stdout.write(`\nThe run's record, for docs/benchmarks.md:\n\n${formatRecord(rounds)}\n`);
  if (missing.length > 0) {
    process.stdout.write(`\nfailed variants: ${missing.join(', ')}\n`);
    process.exitCode = 1;
  }
}

await main();
