/** Percentiles and the Markdown tables of the burn-down bench (burn-down.ts). */
import type { CpuUse } from './cpu-use.js';

export interface Row {
  readonly name: string;
  readonly kind: 'pulse' | 'pg-boss' | 'graphile-worker';
  readonly jobs: number;
  readonly drainMs: number;
  readonly jobsPerSecond: number;
  /** Com_commit (MariaDB) or xact_commit (PostgreSQL) per job; undefined on SQLite. */
  readonly commitsPerJob: number | undefined;
  /** MariaDB Handler_commit per job. */
  readonly handlerCommitsPerJob: number | undefined;
  /** MariaDB: InnoDB buffer-pool page requests per job over the drain, and pages read from disk. */
  readonly pagesPerJob: number | undefined;
  readonly pagesFromDisk: number | undefined;
  readonly p50: number | undefined;
  readonly p99: number | undefined;
  readonly latencyCount: number;
  /** Paced phase: the submit call alone (until its answer), p50 and p99. */
  readonly submitP50: number | undefined;
  readonly submitP99: number | undefined;
  /** Pulse: worker calls per grouped transaction over the drain (`weave_group_commit_items`). */
  readonly callsPerGroup: number | undefined;
  /** Jobs per grouped worker call during the drain (completions and claims ride one call). */
  readonly jobsPerCall: number | undefined;
  /** CPU seconds by role over the drain (cpu-use.ts); undefined off Linux. */
  readonly cpu: CpuUse | undefined;
}

/** Nearest-rank percentile of sorted values. */
export function percentile(sorted: readonly number[], p: number): number | undefined {
  if (sorted.length === 0) {
    return undefined;
  }
  return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)];
}

/** A system's jobs/s over its reference's in one round; undefined when either did not run. */
export function jobsRatio(row: Row | undefined, reference: Row | undefined): number | undefined {
  return row === undefined || reference === undefined
    ? undefined
    : row.jobsPerSecond / reference.jobsPerSecond;
}

function ratio(row: Row, peer: Row | undefined): string {
  const value = row.kind === 'pulse' ? jobsRatio(row, peer) : undefined;
  return value === undefined ? '' : `${value.toFixed(2)}×`;
}

function fixed(value: number | undefined, digits: number): string {
  return value === undefined ? 'n/a' : value.toFixed(digits);
}

/**
 * A Markdown table: the first column left-aligned (a name) and the others right-aligned, or every
 * column right-aligned when the first is a number too (`firstIsName` false).
 */
export function markdownTable(
  header: readonly string[],
  body: readonly (readonly string[])[],
  firstIsName = true,
): string {
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => (b[i] ?? '').length)));
  const left = (i: number) => i === 0 && firstIsName;
  const line = (cells: readonly string[]) =>
    `| ${cells.map((c, i) => (left(i) ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join(' | ')} |`;
  const rule = `| ${widths.map((w, i) => (left(i) ? '-'.repeat(w) : '-'.repeat(w - 1) + ':')).join(' | ')} |`;
  return [line(header), rule, ...body.map(line)].join('\n');
}

/**
 * Where the drain's CPU went: ms of CPU per job for each role, how busy the machine was (cores in
 * use on average, out of all), how much of the cores the hypervisor took (its steal, as cores on
 * average), and the share of the database's, the server's and the workers' CPU spent in the
 * kernel.
 */
export function formatCpuTable(rows: readonly Row[]): string {
  const header = [
    'system',
    'database',
    'server',
    'workers',
    'harness',
    'other',
    'busy cores',
    'stolen cores',
    'calls/group',
    'jobs/call',
    'kernel % db / server / workers',
  ];
  const body = rows.map((r) => {
    const cpu = r.cpu;
    const perJob = (seconds: number | undefined) =>
      seconds === undefined ? 'n/a' : msPerJob(r, seconds).toFixed(3);
    const cores = (f: (r: Row, cpu: CpuUse) => number) =>
      cpu === undefined ? 'n/a' : f(r, cpu).toFixed(2);
    return [
      r.name,
      perJob(cpu?.database),
      r.kind === 'pulse' ? perJob(cpu?.server) : '',
      perJob(cpu?.workers),
      perJob(cpu?.harness),
      perJob(cpu?.other),
      cores(busyCores),
      cores(stolenCores),
      r.kind === 'pulse' ? fixed(r.callsPerGroup, 2) : '',
      r.kind === 'pulse' ? fixed(r.jobsPerCall, 2) : '',
      kernelShares(r),
    ];
  });
  return markdownTable(header, body);
}

/**
 * The kernel's share of one role's CPU over the drain, in per cent; undefined where the role did
 * no work of its own (no server beside graphile-worker or pg-boss; on SQLite the database's work
 * is the server's own, and the idle MariaDB's few ticks mean nothing).
 */
export function kernelPercent(r: Row, role: 'database' | 'server' | 'workers'): number | undefined {
  const cpu = r.cpu;
  if (
    cpu === undefined ||
    cpu[role] === 0 ||
    (role === 'server' && r.kind !== 'pulse') ||
    (role === 'database' && cpu.database < machineSeconds(cpu) / 100)
  ) {
    return undefined;
  }
  return (cpu.kernel[role] / cpu[role]) * 100;
}

/** The kernel's share of the database's, the server's and the workers' CPU, in per cent. */
function kernelShares(r: Row): string {
  if (r.cpu === undefined) {
    return 'n/a';
  }
  const share = (role: 'database' | 'server' | 'workers') => {
    const percent = kernelPercent(r, role);
    return percent === undefined ? '–' : percent.toFixed(0);
  };
  return `${share('database')} / ${share('server')} / ${share('workers')}`;
}

/** CPU seconds of every role over the drain (the whole machine's work for it). */
export function machineSeconds(cpu: CpuUse): number {
  return cpu.database + cpu.server + cpu.workers + cpu.harness + cpu.other;
}

/** CPU seconds over a row's drain as ms per job. */
export function msPerJob(r: Row, seconds: number): number {
  return (seconds * 1000) / r.jobs;
}

/** A role's sleeps over a row's drain (its threads' waits that a wake-up ended) a job. */
export function sleepsPerJob(r: Row, role: 'database' | 'server' | 'workers'): number | undefined {
  return r.cpu === undefined ? undefined : r.cpu.sleeps[role] / r.jobs;
}

/** How many cores a row's drain kept busy on average (its machine's CPU over the drain's time). */
export function busyCores(r: Row, cpu: CpuUse): number {
  return coresOverDrain(r, machineSeconds(cpu));
}

/** How many of the machine's cores the hypervisor took on average over a row's drain. */
export function stolenCores(r: Row, cpu: CpuUse): number {
  return coresOverDrain(r, cpu.stolen);
}

/** Seconds of all cores over a row's drain as cores in use on average. */
function coresOverDrain(r: Row, seconds: number): number {
  return seconds / (r.drainMs / 1000);
}

/** One node's turn (hot-path.md §30): its server's and its database's CPU, ms per job. */
export function turnMs(r: Row, cpu: CpuUse): number {
  return msPerJob(r, cpu.server + cpu.database);
}

/**
 * The lockstep check of hot-path.md §30: one Pulse node on MariaDB runs a group of worker calls
 * through its server and then its database, never both at once, so it drains at about
 * 1 / (server + database CPU per job). Beside it, what graphile-worker's rate asks of that sum,
 * and the rate Pulse would reach if it kept as many cores busy as graphile-worker does at its own
 * CPU per job (a perfect overlap). Only the one-node MariaDB rows; empty when there are none.
 */
export function formatTurnTable(rows: readonly Row[]): string {
  const body = turnRows(rows);
  return body.length === 0 ? '' : markdownTable(['system', ...TURN_HEADER], body);
}

/** The columns of the lockstep table after the system's name. */
export const TURN_HEADER = [
  'server + database (ms/job)',
  '1 / that (jobs/s)',
  'measured ÷ that',
  "for graphile-worker's rate (ms/job)",
  'machine (ms/job)',
  'machine ÷ graphile-worker',
  'at its busy cores ÷ graphile-worker',
] as const;

/** The lockstep table's rows (formatTurnTable), each the system's name and TURN_HEADER's cells. */
export function turnRows(rows: readonly Row[]): string[][] {
  const peer = rows.find((r) => r.kind === 'graphile-worker');
  const peerCpu = peer?.cpu;
  const body: string[][] = [];
  for (const r of rows) {
    const cpu = r.cpu;
    if (
      r.kind !== 'pulse' ||
      r.name.includes('2 nodes') ||
      cpu === undefined ||
      cpu.database === 0
    ) {
      continue;
    }
    const turn = turnMs(r, cpu);
    const machineMs = msPerJob(r, machineSeconds(cpu));
    const cells = [
      r.name,
      turn.toFixed(3),
      (1000 / turn).toFixed(0),
      (r.jobsPerSecond / (1000 / turn)).toFixed(2),
    ];
    if (peer === undefined || peerCpu === undefined) {
      body.push([...cells, '', machineMs.toFixed(3), '', '']);
      continue;
    }
    const peerMachineMs = msPerJob(peer, machineSeconds(peerCpu));
    const peerBusyCores = busyCores(peer, peerCpu);
    body.push([
      ...cells,
      (1000 / peer.jobsPerSecond).toFixed(3),
      machineMs.toFixed(3),
      (machineMs / peerMachineMs).toFixed(2),
      `${((peerBusyCores * 1000) / machineMs / peer.jobsPerSecond).toFixed(2)}×`,
    ]);
  }
  return body;
}

export function formatTable(rows: readonly Row[]): string {
  const boss = rows.find((r) => r.kind === 'pg-boss');
  const graphile = rows.find((r) => r.kind === 'graphile-worker');
  const header = [
    'system',
    'drain (s)',
    'jobs/s',
    'commits/job',
    'Handler_commit/job',
    'submit→claim p50 (ms)',
    'p99 (ms)',
    'submit p50 / p99 (ms)',
    '÷ pg-boss',
    '÷ graphile-worker',
  ];
  const body = rows.map((r) => [
    r.name,
    (r.drainMs / 1000).toFixed(2),
    r.jobsPerSecond.toFixed(0),
    fixed(r.commitsPerJob, 2),
    fixed(r.handlerCommitsPerJob, 2),
    fixed(r.p50, 0),
    fixed(r.p99, 0),
    `${fixed(r.submitP50, 0)} / ${fixed(r.submitP99, 0)}`,
    ratio(r, boss),
    ratio(r, graphile),
  ]);
  return markdownTable(header, body);
}

/** The median of some numbers (of an even count, the mean of the middle two). */
export function median(values: readonly number[]): number | undefined {
  const sorted = [...values].sort((a, b) => a - b);
  const half = Math.floor(sorted.length / 2);
  if (sorted.length === 0) {
    return undefined;
  }
  return sorted.length % 2 === 1
    ? sorted[half]
    : ((sorted[half - 1] as number) + (sorted[half] as number)) / 2;
}

/** The same system's "1 node" row for a "2 nodes" row, if the round has one. */
function oneNodeOf(row: Row, round: readonly Row[]): Row | undefined {
  return row.name.includes('2 nodes')
    ? round.find((r) => r.name === row.name.replace('2 nodes', '1 node'))
    : undefined;
}

/**
 * Several rounds of the same variants (`--rounds`): each system's jobs/s in every round and
 * their median, and the ratios taken within each round (a machine whose speed drifts between
 * rounds moves both sides of a ratio taken in one round alike) with their median.
 */
export function formatRounds(rounds: readonly (readonly Row[])[]): string {
  const names = [...new Set(rounds.flatMap((round) => round.map((r) => r.name)))];
  const header = [
    'system',
    'jobs/s by round',
    'median',
    '÷ graphile-worker by round',
    'median ÷',
    '÷ 1 node by round',
    'median ÷ 1 node',
  ];
  const list = (values: readonly number[], digits: number) =>
    values.map((v) => v.toFixed(digits)).join(', ');
  const body = names.map((name) => {
    const rates: number[] = [];
    const toPeer: number[] = [];
    const toOne: number[] = [];
    for (const round of rounds) {
      const row = round.find((r) => r.name === name);
      if (row === undefined) {
        continue;
      }
      rates.push(row.jobsPerSecond);
      const peer = round.find((r) => r.kind === 'graphile-worker');
      const overPeer = row.kind === 'pulse' ? jobsRatio(row, peer) : undefined;
      if (overPeer !== undefined) {
        toPeer.push(overPeer);
      }
      const overOne = jobsRatio(row, oneNodeOf(row, round));
      if (overOne !== undefined) {
        toOne.push(overOne);
      }
    }
    const middle = (values: number[], digits: number, unit = '') =>
      values.length === 0 ? '' : `${(median(values) ?? 0).toFixed(digits)}${unit}`;
    return [
      name,
      list(rates, 0),
      middle(rates, 0),
      list(toPeer, 2),
      middle(toPeer, 2, '×'),
      list(toOne, 2),
      middle(toOne, 2, '×'),
    ];
  });
  return markdownTable(header, body);
}
