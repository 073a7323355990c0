/**
 * The workflow bench (docs/design/runtime.md §9, docs/benchmarks.md "Workflows"): Weave on
 * MariaDB and on SQLite side by side with DBOS Transact on PostgreSQL, in one run, same
 * durability, all tasks no-ops.
 *
 *   npm run bench:workflow -- [--scale quick|full|FACTOR] [--only weave-mariadb,weave-sqlite,dbos]
 *     [--scenarios s2,s3,s4,timers] [--s2 N] [--s3 N] [--clients N] [--s4 N] [--s4-width N]
 *     [--timers N] [--workers N] [--plain]
 *
 * `WORKFLOW_BENCH_SCALE` sets the scale too (default full). Scenarios:
 * - S2: one client, closed loop: start an instance of 10 sequential TASKs, wait for its end,
 *   repeat. Per-step latency from the database's step times.
 * - S3: `--clients` (32) concurrent clients, each starting the 8-step workflow and waiting for
 *   its end, until `--s3` instances: instances/s and transitions/s.
 * - S4: `--s4` (100) instances of one PARALLEL of `--s4-width` (100) TASKs, all started, total
 *   time until the last ended.
 * - Timers: `--timers` (10,000) instances of one 1 s TIMER, all started by `--clients` lanes;
 *   lateness = the DB time of the firing transaction − due time.
 * Every scenario is bounded in time; everything runs on loopback.
 */
import { DbosSystem } from './workflow-dbos-system.js';
import { S3_SHAPE, TRANSITION_DEFINITION } from './workflow-defs.js';
import { describeMachine, load } from './workflow-machine.js';
import type { Machine } from './workflow-machine.js';
import { fixed, mean, quantiles, table, times, whole } from './workflow-report.js';
import type { KindStats, ServerStats, TxKind } from './workflow-server.js';
import type {
  BenchSystem,
  ScenarioId,
  ScenarioResult,
  Sizes,
  SystemInfo,
} from './workflow-types.js';
import { WeaveSystem } from './workflow-weave.js';

const FULL: Sizes = { s2: 200, s3: 1_000, clients: 32, s4: 100, s4Width: 100, timers: 10_000 };
const QUICK: Sizes = { s2: 20, s3: 100, clients: 32, s4: 5, s4Width: 100, timers: 300 };
const SCENARIOS: readonly ScenarioId[] = ['s2', 's3', 's4', 'timers'];
const SYSTEMS = ['weave-mariadb', 'weave-sqlite', 'dbos'] as const;
type SystemId = (typeof SYSTEMS)[number];

interface Options {
  readonly scale: string;
  readonly sizes: Sizes;
  readonly only: readonly SystemId[];
  readonly scenarios: readonly ScenarioId[];
  readonly workers: number;
  readonly plain: boolean;
}

function parseOptions(argv: readonly string[]): Options {
  const get = (name: string) => {
    const i = argv.indexOf(`--${name}`);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const scale = get('scale') ?? process.env['WORKFLOW_BENCH_SCALE'] ?? 'full';
  const factor = Number(scale);
  const base =
    scale === 'quick'
      ? QUICK
      : scale === 'full'
        ? FULL
        : Number.isFinite(factor) && factor > 0
          ? {
              ...FULL,
              s2: Math.max(1, Math.round(FULL.s2 * factor)),
              s3: Math.max(1, Math.round(FULL.s3 * factor)),
              s4: Math.max(1, Math.round(FULL.s4 * factor)),
              timers: Math.max(1, Math.round(FULL.timers * factor)),
            }
          : undefined;
  if (base === undefined) {
    throw new Error(`--scale must be quick, full or a positive factor (got ${scale})`);
  }
  const size = (name: string, fallback: number) => {
    const v = get(name);
    return v === undefined ? fallback : Number(v);
  };
  const sizes: Sizes = {
    s2: size('s2', base.s2),
    s3: size('s3', base.s3),
    clients: size('clients', base.clients),
    s4: size('s4', base.s4),
    s4Width: size('s4-width', base.s4Width),
    timers: size('timers', base.timers),
  };
  const only = (get('only')?.split(',') ?? [...SYSTEMS]) as SystemId[];
  for (const id of only) {
    if (!SYSTEMS.includes(id)) {
      throw new Error(`unknown system ${id}; known: ${SYSTEMS.join(', ')}`);
    }
  }
  const scenarios = (get('scenarios')?.split(',') ?? [...SCENARIOS]) as ScenarioId[];
  for (const s of scenarios) {
    if (!SCENARIOS.includes(s)) {
      throw new Error(`unknown scenario ${s}; known: ${SCENARIOS.join(', ')}`);
    }
  }
  return {
    scale,
    sizes,
    only,
    scenarios,
    workers: size('workers', 4),
    plain: argv.includes('--plain'),
  };
}

function makeSystem(id: SystemId, options: Options): BenchSystem {
  const weave = { workers: options.workers, plain: options.plain };
  switch (id) {
    case 'weave-mariadb':
      return new WeaveSystem('mysql', weave);
    case 'weave-sqlite':
      return new WeaveSystem('sqlite', weave);
    case 'dbos':
      return new DbosSystem();
  }
}

interface SystemRun {
  readonly info: SystemInfo;
  readonly results: Partial<Record<ScenarioId, ScenarioResult>>;
  readonly errors: string[];
  readonly idleCommitsPerSecond?: number;
}

const log = (text: string) => process.stderr.write(`${text}\n`);

async function runSystem(id: SystemId, options: Options): Promise<SystemRun> {
  const system = makeSystem(id, options);
  const results: Partial<Record<ScenarioId, ScenarioResult>> = {};
  const errors: string[] = [];
  try {
    let t0 = Date.now();
    await system.setup();
    await system.warmUp();
    log(`[${system.info.name}] set up and warmed up in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    for (const scenario of options.scenarios) {
      t0 = Date.now();
      try {
        const r = await system.run(scenario, options.sizes);
        results[scenario] = r;
        log(
          `[${system.info.name}] ${scenario}: ${r.instances} instances, ${r.transitions} ` +
            `transitions, ${(r.wallMs / 1000).toFixed(2)} s wall, ${r.failed} not succeeded ` +
            `(scenario took ${((Date.now() - t0) / 1000).toFixed(1)} s)`,
        );
      } catch (e: unknown) {
        errors.push(`${scenario}: ${String(e)}`);
        log(`[${system.info.name}] ${scenario} failed: ${String(e)}`);
      }
    }
  } catch (e: unknown) {
    errors.push(`setup: ${String(e)}`);
    log(`[${id}] failed: ${String(e)}`);
  } finally {
    await system.teardown().catch((e: unknown) => log(`[${id}] teardown: ${String(e)}`));
  }
  return {
    info: system.info,
    results,
    errors,
    ...(system instanceof DbosSystem ? { idleCommitsPerSecond: system.idleCommitsPerSecond } : {}),
  };
}

// ---------------------------------------------------------------------------------------------
// Report

function per(value: number | undefined, transitions: number): number | undefined {
  return value === undefined || transitions === 0 ? undefined : value / transitions;
}

function commitCells(r: ScenarioResult): string[] {
  return [
    fixed(per(r.counters.commits, r.transitions), 2),
    fixed(per(writeCommits(r), r.transitions), 2),
    fixed(per(r.counters.fsyncs, r.transitions), 2),
    fixed(per(r.counters.handlerCommit, r.transitions), 2),
    fixed(per(r.counters.comCommit, r.transitions), 2),
    fixed(per(r.server?.roundTrips, r.transitions), 1),
  ];
}

/** Weave: transactions that wrote (start, claim, complete, consume, other). */
function writeCommits(r: ScenarioResult): number | undefined {
  const kinds = r.server?.kinds;
  if (kinds === undefined) {
    return undefined;
  }
  const writing: readonly TxKind[] = ['start', 'claim', 'complete', 'consume', 'other'];
  return writing.reduce((sum, kind) => sum + (kinds[kind]?.count ?? 0), 0);
}

const COMMIT_HEADER = [
  'commits/transition',
  'write tx/tr.',
  'fsyncs/tr.',
  'Handler_commit/tr.',
  'Com_commit/tr.',
  'round trips/tr.',
];

function rowsFor(
  runs: readonly SystemRun[],
  scenario: ScenarioId,
): { run: SystemRun; r: ScenarioResult }[] {
  return runs.flatMap((run) => {
    const r = run.results[scenario];
    return r === undefined ? [] : [{ run, r }];
  });
}

function dbosOf(runs: readonly SystemRun[], scenario: ScenarioId): ScenarioResult | undefined {
  return runs.find((run) => run.info.kind === 'dbos')?.results[scenario];
}

function s2Table(runs: readonly SystemRun[]): string {
  const dbos = dbosOf(runs, 's2');
  const dbosStep = quantiles(dbos?.stepMs ?? []);
  return table(
    [
      'system',
      'instances',
      'per step p50 (ms)',
      'p99 (ms)',
      'instance/10 p50 (ms)',
      'p99 (ms)',
      'p50 × DBOS',
      'p99 × DBOS',
      ...COMMIT_HEADER,
    ],
    rowsFor(runs, 's2').map(({ run, r }) => {
      const step = quantiles(r.stepMs ?? []);
      const instance = quantiles(r.instanceMs.map((ms) => ms / 10));
      const isDbos = run.info.kind === 'dbos';
      return [
        run.info.name,
        whole(r.instances),
        fixed(step.p50, isDbos ? 0 : 2),
        fixed(step.p99, isDbos ? 0 : 2),
        fixed(instance.p50, 2),
        fixed(instance.p99, 2),
        isDbos ? '' : times(step.p50, dbosStep.p50),
        isDbos ? '' : times(step.p99, dbosStep.p99),
        ...commitCells(r),
      ];
    }),
  );
}

function s3Table(runs: readonly SystemRun[]): string {
  const dbos = dbosOf(runs, 's3');
  const rate = (r: ScenarioResult) => r.transitions / (r.wallMs / 1000);
  return table(
    [
      'system',
      'instances',
      'wall (s)',
      'instances/s',
      'transitions/s',
      '÷ DBOS',
      'instance p50 (ms)',
      'p99 (ms)',
      ...COMMIT_HEADER,
    ],
    rowsFor(runs, 's3').map(({ run, r }) => {
      const q = quantiles(r.instanceMs);
      return [
        run.info.name,
        whole(r.instances),
        fixed(r.wallMs / 1000, 2),
        whole(r.instances / (r.wallMs / 1000)),
        whole(rate(r)),
        run.info.kind === 'dbos' || dbos === undefined ? '' : times(rate(r), rate(dbos)),
        whole(q.p50),
        whole(q.p99),
        ...commitCells(r),
      ];
    }),
  );
}

function s4Table(runs: readonly SystemRun[], sizes: Sizes): string {
  const dbos = dbosOf(runs, 's4');
  return table(
    [
      'system',
      'instances × tasks',
      'total (s)',
      'tasks/s',
      'time × DBOS',
      'start phase (s)',
      ...COMMIT_HEADER,
    ],
    rowsFor(runs, 's4').map(({ run, r }) => [
      run.info.name,
      `${r.instances} × ${sizes.s4Width}`,
      fixed(r.wallMs / 1000, 2),
      whole((r.instances * sizes.s4Width) / (r.wallMs / 1000)),
      run.info.kind === 'dbos' ? '' : times(r.wallMs, dbos?.wallMs),
      fixed((r.startPhaseMs ?? 0) / 1000, 2),
      ...commitCells(r),
    ]),
  );
}

function timerTable(runs: readonly SystemRun[]): string {
  const dbos = quantiles(dbosOf(runs, 'timers')?.latenessMs ?? []);
  return table(
    [
      'system',
      'timers fired',
      'start phase (s)',
      'starts/s',
      'lateness p50 (ms)',
      'p99 (ms)',
      'max (ms)',
      'p99 × DBOS',
      'last end (s)',
      'commits/instance',
      'write tx/inst.',
      'fsyncs/inst.',
      'Handler_commit/inst.',
      'Com_commit/inst.',
    ],
    rowsFor(runs, 'timers').map(({ run, r }) => {
      const q = quantiles(r.latenessMs ?? []);
      return [
        run.info.name,
        whole(r.latenessMs?.length),
        fixed((r.startPhaseMs ?? 0) / 1000, 2),
        whole(r.instances / ((r.startPhaseMs ?? r.wallMs) / 1000)),
        fixed(q.p50, 1),
        fixed(q.p99, 1),
        fixed(q.max, 1),
        run.info.kind === 'dbos' ? '' : times(q.p99, dbos.p99),
        fixed(r.wallMs / 1000, 2),
        fixed(per(r.counters.commits, r.instances), 2),
        fixed(per(writeCommits(r), r.instances), 2),
        fixed(per(r.counters.fsyncs, r.instances), 2),
        fixed(per(r.counters.handlerCommit, r.instances), 2),
        fixed(per(r.counters.comCommit, r.instances), 2),
      ];
    }),
  );
}

const KIND_ORDER: readonly TxKind[] = [
  'start',
  'claim',
  'complete',
  'consume',
  'consume (nothing)',
  'scan',
  'read (stream)',
  'read (claim poll)',
  'clock only',
  'read',
  'other',
];

function serverProfile(r: ScenarioResult, server: ServerStats): string {
  const kinds = KIND_ORDER.flatMap((kind) => {
    const k: KindStats | undefined = server.kinds[kind];
    return k === undefined ? [] : [{ kind, k }];
  });
  const rows = kinds.map(({ kind, k }) => {
    const q = quantiles(k.durations);
    return [
      kind,
      whole(k.count),
      fixed(k.count / r.transitions, 2),
      fixed((mean(k.durations) ?? 0) / 1000, 2),
      fixed((q.p50 ?? 0) / 1000, 2),
      fixed((q.p99 ?? 0) / 1000, 2),
      fixed(k.roundTrips / k.count, 1),
      fixed(k.statements / k.count, 1),
      k.rollbacks === 0 ? '' : whole(k.rollbacks),
    ];
  });
  const cpuMs = server.cpuUserMs + server.cpuSystemMs;
  const busy = server.eventLoopActiveMs;
  const lines = [
    table(
      [
        'transaction',
        'count',
        'per transition',
        'mean (ms)',
        'p50 (ms)',
        'p99 (ms)',
        'round trips/tx',
        'statements/tx',
        'rollbacks',
      ],
      rows,
    ),
    '',
    ...(r.counters.rowLockWaits === undefined
      ? []
      : [
          `MariaDB row lock waits (global): ${whole(r.counters.rowLockWaits)}, ` +
            `${whole(r.counters.rowLockMs)} ms waited in all ` +
            `(${fixed((r.counters.rowLockMs ?? 0) / Math.max(1, r.counters.rowLockWaits), 1)} ms each).`,
        ]),
    ...(server.poolWaits.length === 0
      ? []
      : [
          (() => {
            const q = quantiles(server.poolWaits);
            const total = server.poolWaits.reduce((a, b) => a + b, 0);
            return (
              `Pool connection waits (pool of 10): ${whole(server.poolWaits.length)} ` +
              `acquisitions, p50 ${fixed((q.p50 ?? 0) / 1000, 2)} ms, p99 ` +
              `${fixed((q.p99 ?? 0) / 1000, 2)} ms, max ${fixed((q.max ?? 0) / 1000, 0)} ms, ` +
              `${fixed(total / 1e6, 1)} s in all.`
            );
          })(),
        ]),
    `Server process: ${fixed(cpuMs / r.transitions, 2)} ms CPU per transition ` +
      `(${fixed(cpuMs / server.wallMs, 2)} cores busy on average, event loop ` +
      `${fixed(server.eventLoopUtilization * 100, 0)} % utilised); ` +
      `${fixed(server.statements / r.transitions, 1)} statements and ` +
      `${fixed(server.roundTrips / r.transitions, 1)} driver calls per transition.`,
    `Planner (wall time inside the calls, against the event loop's busy wall time ` +
      `${fixed(busy, 0)} ms): ${whole(server.planCalls)} plan() calls, ` +
      `${fixed(server.planMs, 1)} ms = ${fixed((server.planMs / busy) * 100, 2)} % ` +
      `(${fixed((server.planMs * 1000) / Math.max(1, server.planCalls), 1)} µs per call); ` +
      `compile(): ${whole(server.compileCalls)} calls, ${fixed(server.compileMs, 1)} ms = ` +
      `${fixed((server.compileMs / busy) * 100, 2)} %; the measurement itself (statement hook, ` +
      `bookkeeping): ${fixed(server.probeMs, 1)} ms = ${fixed((server.probeMs / busy) * 100, 2)} %.`,
  ];
  return lines.join('\n');
}

function phaseTable(r: ScenarioResult): string {
  const phases = Object.entries(r.phases ?? {});
  return table(
    ['phase of one TASK step (DB times)', 'p50 (ms)', 'p99 (ms)', 'mean (ms)'],
    phases.map(([name, values]) => {
      const q = quantiles(values);
      return [name, fixed(q.p50, 2), fixed(q.p99, 2), fixed(mean(values), 2)];
    }),
  );
}

interface Target {
  readonly target: string;
  readonly result: string;
  readonly met: boolean | undefined;
}

function targets(runs: readonly SystemRun[]): Target[] {
  const out: Target[] = [];
  const weave = runs.filter((run) => run.info.kind !== 'dbos');
  for (const run of weave) {
    const s2 = run.results.s2;
    if (s2 !== undefined) {
      const q = quantiles(s2.stepMs ?? []);
      out.push({
        target: `S2 per-step p50 ≤ 5 ms, p99 ≤ 25 ms (${run.info.name})`,
        result: `p50 ${fixed(q.p50, 2)} ms, p99 ${fixed(q.p99, 2)} ms`,
        met: q.p50 !== undefined && q.p99 !== undefined && q.p50 <= 5 && q.p99 <= 25,
      });
    }
  }
  const mariadb = runs.find((run) => run.info.kind === 'weave-mysql')?.results.s3;
  if (mariadb !== undefined) {
    const rate = mariadb.transitions / (mariadb.wallMs / 1000);
    out.push({
      target: 'S3 ≥ 1,000 transitions/s (Weave MariaDB)',
      result: `${whole(rate)} transitions/s`,
      met: rate >= 1000,
    });
  }
  const dbosS4 = dbosOf(runs, 's4');
  for (const run of weave) {
    const s4 = run.results.s4;
    if (s4 !== undefined) {
      out.push({
        target: `S4 total time ≤ 2× DBOS (${run.info.name})`,
        result:
          dbosS4 === undefined
            ? `${fixed(s4.wallMs / 1000, 2)} s (no DBOS figure)`
            : `${fixed(s4.wallMs / 1000, 2)} s = ${times(s4.wallMs, dbosS4.wallMs)} DBOS`,
        met: dbosS4 === undefined ? undefined : s4.wallMs <= 2 * dbosS4.wallMs,
      });
    }
  }
  for (const run of weave) {
    const t = run.results.timers;
    if (t !== undefined) {
      const q = quantiles(t.latenessMs ?? []);
      const complete = (t.latenessMs?.length ?? 0) === t.instances;
      out.push({
        target: `timer lateness p99 ≤ 1 s (${run.info.name})`,
        result: `p99 ${fixed(q.p99, 1)} ms${complete ? '' : ` (${t.latenessMs?.length ?? 0} of ${t.instances} fired)`}`,
        met: q.p99 !== undefined && q.p99 <= 1000 && complete,
      });
    }
  }
  return out;
}

function report(machine: Machine, options: Options, runs: readonly SystemRun[]): string {
  const { sizes } = options;
  const systems = runs.map((run) => `${run.info.name}: ${run.info.durability}`);
  const commitMs = machine.commitMs;
  const out: string[] = [
    `workflow bench — ${new Date().toISOString()}, commit ${machine.commit}, scale ${options.scale}` +
      (options.plain ? ', plain `weave server` (no server profile)' : ''),
    '',
    `Machine: ${machine.cores} cores (${machine.cpu}), Node ${machine.node}, ` +
      `load average ${machine.load} before, ${load()} after; ${machine.mariadb}, ${machine.postgres}.`,
    `Durability: ${systems.join('; ')}.`,
    `One durable commit here (one client, autocommit INSERT, mean of 200): MariaDB ` +
      `${fixed(commitMs.mariadb, 2)} ms, PostgreSQL ${fixed(commitMs.postgres, 2)} ms, ` +
      `SQLite (WAL, FULL) ${fixed(commitMs.sqlite, 2)} ms.`,
    `Sizes: S2 ${sizes.s2} instances × 10 steps (one client, closed loop); S3 ${sizes.s3} ` +
      `instances, ${sizes.clients} clients; S4 ${sizes.s4} × PARALLEL of ${sizes.s4Width}; ` +
      `timers ${sizes.timers} (started by ${sizes.clients} lanes). Weave: 1 server process, ` +
      `${options.workers} worker processes (SDK Worker, default options: concurrency 10 each).`,
    `S3 workflow: ${S3_SHAPE}.`,
    `A ${TRANSITION_DEFINITION}.`,
    'commits/transition: committed transactions, read-only ones included — COMMIT statements ' +
      'counted at the Weave server (both dialects), PostgreSQL xact_commit of the DBOS database ' +
      '(less its idle rate); write tx: Weave transactions that wrote; fsyncs: MariaDB ' +
      'Innodb_data_fsyncs (global: redo log and data files) or PostgreSQL pg_stat_wal.wal_sync ' +
      '(whole cluster, less the idle rate); Handler_commit and Com_commit are MariaDB global ' +
      'counters (other clients of the same MariaDB server count too); round trips = driver ' +
      'calls of the Weave server (on SQLite: statements run).',
    'Fairness: DBOS runs each task as a step inside its own process (its model: no queue, no ' +
      'worker, no HTTP; one checkpoint write per step), while a Weave task is a Pulse task ' +
      'claimed and completed over HTTP by a separate worker process, with the workflow state ' +
      'advanced by the server. The figures compare the two models end to end on this machine, ' +
      'not equal amounts of work.',
    '',
  ];
  if (options.scenarios.includes('s2')) {
    out.push('S2 — 10 sequential no-op TASKs, one client, closed loop', '', s2Table(runs), '');
    out.push(
      'Per step: Weave finished_at − activation created_at of each step (µs DB times); DBOS ' +
        "completed_at_epoch_ms of each step minus the previous step's (ms, DBOS's resolution). " +
        'instance/10: client clock from the start call to the end notification, ÷ 10.',
      '',
    );
  }
  if (options.scenarios.includes('s3')) {
    out.push(
      `S3 — the 8-step workflow, ${sizes.clients} concurrent clients`,
      '',
      s3Table(runs),
      '',
    );
  }
  if (options.scenarios.includes('s4')) {
    out.push(
      `S4 — ${sizes.s4} instances × PARALLEL of ${sizes.s4Width} no-op TASKs`,
      '',
      s4Table(runs, sizes),
      '',
    );
  }
  if (options.scenarios.includes('timers')) {
    out.push(
      `Timers — ${sizes.timers} instances of one 1 s TIMER`,
      '',
      timerTable(runs),
      '',
      'Weave: weave_waits.closed_at − due_at (DB time of the firing transaction). DBOS: wake-up ' +
        '− (clock before DBOS.sleep + 1 s), on the process clock (DBOS sleeps on it).',
      '',
    );
  }
  for (const run of runs) {
    for (const scenario of options.scenarios) {
      const r = run.results[scenario];
      if (r?.server !== undefined) {
        out.push(
          `Where the time goes: ${run.info.name}, ${scenario}`,
          '',
          serverProfile(r, r.server),
        );
        if (r.lockWaits !== undefined) {
          const waits = Object.entries(r.lockWaits).sort((a, b) => b[1] - a[1]);
          out.push(
            `Lock waits sampled every 100 ms (${whole(r.lockSamples)} samples; waiting ` +
              `transactions summed over the samples, by the lock they wait for): ` +
              (waits.length === 0
                ? 'none seen.'
                : waits.map(([lock, n]) => `${lock} ${whole(n)}`).join(', ') + '.'),
          );
        }
        if (r.cpuMs !== undefined) {
          const c = r.cpuMs;
          out.push(
            `CPU per transition (/proc): server ${fixed(c.server / r.transitions, 2)} ms, ` +
              `workers ${fixed(c.workers / r.transitions, 2)} ms, harness (clients) ` +
              `${fixed(c.harness / r.transitions, 2)} ms; all three ` +
              `${fixed((c.server + c.workers + c.harness) / r.wallMs, 2)} cores on average.`,
          );
        }
        if (r.phases !== undefined) {
          out.push('', phaseTable(r));
        }
        out.push('');
      } else if (r?.processCpuMs !== undefined) {
        out.push(
          `${run.info.name}, ${scenario}: process CPU ${fixed(r.processCpuMs / r.transitions, 2)} ms ` +
            `per transition (${fixed(r.processCpuMs / r.wallMs, 2)} cores on average).`,
        );
      }
    }
    if (run.idleCommitsPerSecond !== undefined) {
      out.push(`${run.info.name}: idle xact_commit ${fixed(run.idleCommitsPerSecond, 1)}/s.`, '');
    }
  }
  out.push(
    'Targets (runtime.md §9)',
    '',
    table(
      ['target', 'result', 'met'],
      targets(runs).map((t) => [
        t.target,
        t.result,
        t.met === undefined ? 'n/a' : t.met ? 'met' : 'missed',
      ]),
    ),
  );
  const shared = runs.flatMap((run) =>
    Object.values(run.results).flatMap((r) => {
      const { comCommit, commits } = r.counters;
      return comCommit !== undefined && commits !== undefined && comCommit > commits * 1.1
        ? [
            `${run.info.name} ${r.scenario}: Com_commit ${whole(comCommit)} against ` +
              `${whole(commits)} COMMITs of the Weave server — other clients used this MariaDB ` +
              'server meanwhile, so its global counters (Handler_commit, Com_commit, fsyncs, row ' +
              'locks) overstate Weave',
          ]
        : [];
    }),
  );
  if (shared.length > 0) {
    out.push('', 'Shared database server:', ...shared.map((f) => `- ${f}`));
  }
  const failures = runs.flatMap((run) => run.errors.map((e) => `${run.info.name} ${e}`));
  const unfinished = runs.flatMap((run) =>
    Object.values(run.results).flatMap((r) =>
      r.failed > 0 ? [`${run.info.name} ${r.scenario}: ${r.failed} instances not SUCCEEDED`] : [],
    ),
  );
  if (failures.length + unfinished.length > 0) {
    out.push('', 'Problems:', ...[...failures, ...unfinished].map((f) => `- ${f}`));
  }
  return out.join('\n');
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const machine = await describeMachine();
  log(`machine: ${machine.cores} cores, Node ${machine.node}, load ${machine.load}`);
  const runs: SystemRun[] = [];
  for (const id of options.only) {
    runs.push(await runSystem(id, options));
  }
  process.stdout.write(`\n${report(machine, options, runs)}\n`);
  if (runs.some((run) => run.errors.length > 0)) {
    process.exitCode = 1;
  }
}

await main();
