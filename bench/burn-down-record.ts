/**
 * A burn-down run as docs/benchmarks.md records it (the "Run N" sections of "Pulse burn-down"):
 * the acceptance lines by round, the lockstep table and the two-node bound by round, each
 * throughput line's rounds held (from the unrounded rates), and the ranges over the rounds of
 * commits, CPU, busy cores and kernel shares per system, with every p99 over the line beside the
 * paced submits' own p99.
 * Printed at the end of every run, so a session copies the figures instead of reading them off the
 * round tables by hand.
 */
import {
  TURN_HEADER,
  busyCores,
  jobsRatio,
  kernelPercent,
  machineSeconds,
  markdownTable,
  msPerJob,
  sleepsPerJob,
  stolenCores,
  turnMs,
  turnRows,
  type Row,
} from './burn-down-report.js';

/** issue 14's latency line: p99 submit→claim below saturation, in ms. */
const P99_LINE_MS = 20;

/** issue 14's two-node line: two nodes on MariaDB at least this share of one node's jobs/s. */
const TWO_NODES_LEAST = 0.9;

/** The acceptance's Pulse variants (the SDK Worker as shipped) by the record's short names. */
const PULSE_SHORT_NAMES: readonly (readonly [prefix: string, short: string])[] = [
  ['Pulse MariaDB, 1 node (SDK Worker)', 'one node'],
  ['Pulse MariaDB, 2 nodes (SDK Worker)', 'two nodes'],
  ['Pulse SQLite, 1 node (SDK Worker)', 'SQLite'],
];

/** The short name the record gives a system (the acceptance's four; others by their own name). */
export function shortName(r: Row): string {
  if (r.kind === 'graphile-worker') {
    return 'graphile-worker';
  }
  const known = PULSE_SHORT_NAMES.find(
    ([prefix]) => r.kind === 'pulse' && r.name.startsWith(prefix),
  );
  return known?.[1] ?? r.name;
}

/** "a–b" over some values at `digits` decimals ("a" when they print alike); "–" when none. */
export function span(values: readonly (number | undefined)[], digits: number): string {
  const known = values.filter((v): v is number => v !== undefined && Number.isFinite(v));
  if (known.length === 0) {
    return '–';
  }
  const low = Math.min(...known).toFixed(digits);
  const high = Math.max(...known).toFixed(digits);
  return low === high ? low : `${low}–${high}`;
}

function find(round: readonly Row[], name: string): Row | undefined {
  return round.find((r) => shortName(r) === name);
}

function rate(row: Row | undefined, reference: Row | undefined): string {
  return jobsRatio(row, reference)?.toFixed(2) ?? '';
}

/** The acceptance lines by round: the shape of the tables in docs/benchmarks.md's runs. */
function linesByRound(rounds: readonly (readonly Row[])[]): string {
  const header = [
    'round',
    'MariaDB 1 node jobs/s',
    '÷ graphile-worker',
    '2 nodes ÷ 1 node',
    'SQLite ÷ graphile-worker',
    'graphile-worker jobs/s',
    'p99 (ms) 1 node / 2 nodes / SQLite / graphile-worker',
  ];
  const body = rounds.map((round, i) => {
    const [one, two, sqlite, peer] = ['one node', 'two nodes', 'SQLite', 'graphile-worker'].map(
      (name) => find(round, name),
    );
    const p99 = [one, two, sqlite, peer]
      .map((r) => (r?.p99 === undefined ? '–' : r.p99.toFixed(0)))
      .join(' / ');
    return [
      String(i + 1),
      one === undefined ? '' : one.jobsPerSecond.toFixed(0),
      rate(one, peer),
      rate(two, one),
      rate(sqlite, peer),
      peer === undefined ? '' : peer.jobsPerSecond.toFixed(0),
      p99,
    ];
  });
  return markdownTable(header, body, false);
}

/** issue 14's throughput lines: a system's jobs/s over its reference's, and the least ratio. */
const THROUGHPUT_LINES = [
  {
    label: 'MariaDB one node ≥ 1.0× graphile-worker',
    name: 'one node',
    over: 'graphile-worker',
    least: 1,
  },
  { label: 'SQLite ≥ 1.0× graphile-worker', name: 'SQLite', over: 'graphile-worker', least: 1 },
  {
    label: `two nodes ≥ ${TWO_NODES_LEAST}× one node`,
    name: 'two nodes',
    over: 'one node',
    least: TWO_NODES_LEAST,
  },
] as const;

/**
 * Each throughput line held or not, round by round, from the unrounded jobs/s: the tables print
 * two decimals, so a ratio of 0.897 shows as 0.90 there; a round under a line is named here with
 * three.
 */
function verdicts(rounds: readonly (readonly Row[])[]): string[] {
  return THROUGHPUT_LINES.flatMap(({ label, name, over, least }) => {
    const ratios = rounds.flatMap((round, i) => {
      const value = jobsRatio(find(round, name), find(round, over));
      return value === undefined ? [] : [{ round: i + 1, ratio: value }];
    });
    if (ratios.length === 0) {
      return [];
    }
    const under = ratios
      .filter((r) => r.ratio < least)
      .map((r) => `round ${r.round}, ${r.ratio.toFixed(3)}×`);
    const held = `- ${label}: held in ${ratios.length - under.length} of ${ratios.length} rounds`;
    return [under.length === 0 ? held : `${held}; under it: ${under.join('; ')}`];
  });
}

/** The lockstep table (burn-down-report's formatTurnTable) of one node on MariaDB, by round. */
function turnByRound(rounds: readonly (readonly Row[])[]): string {
  const body: string[][] = [];
  for (const [i, round] of rounds.entries()) {
    // The one-node row beside its peer (turnRows reads graphile-worker's row from the same list).
    const shown = round.filter((r) => ['one node', 'graphile-worker'].includes(shortName(r)));
    for (const [, ...cells] of turnRows(shown)) {
      body.push([String(i + 1), ...cells]);
    }
  }
  return body.length === 0 ? '' : markdownTable(['round', ...TURN_HEADER], body, false);
}

/**
 * The two-node line's bound (docs/design/hot-path.md §46, §52), by round: two nodes drain at their
 * busy cores ÷ their machine a job, so they reach 0.9× of one node only while their machine a job
 * stays under their busy cores ÷ (0.9 × one node's jobs/s): about 2.1–2.2 times one node's
 * server and database a job where two nodes keep about 1.9 of two cores busy (more where the host
 * accounts more, §53).
 */
function twoNodesByRound(rounds: readonly (readonly Row[])[]): string {
  const body = rounds.flatMap((round, i) => {
    const [one, two] = [find(round, 'one node'), find(round, 'two nodes')];
    if (one?.cpu === undefined || two?.cpu === undefined) {
      return [];
    }
    const turn = turnMs(one, one.cpu);
    const machineMs = msPerJob(two, machineSeconds(two.cpu));
    const cores = busyCores(two, two.cpu);
    const allowedMs = (cores * 1000) / (TWO_NODES_LEAST * one.jobsPerSecond);
    return [
      [
        String(i + 1),
        one.jobsPerSecond.toFixed(0),
        turn.toFixed(3),
        two.jobsPerSecond.toFixed(0),
        cores.toFixed(2),
        machineMs.toFixed(3),
        (machineMs / turn).toFixed(2),
        allowedMs.toFixed(3),
        rate(two, one),
      ],
    ];
  });
  const header = [
    'round',
    '1 node jobs/s',
    'its server + database (ms/job)',
    '2 nodes jobs/s',
    'their busy cores',
    'their machine (ms/job)',
    "machine ÷ 1 node's server + database",
    'machine the line allows (ms/job)',
    '2 nodes ÷ 1 node',
  ];
  return body.length === 0 ? '' : markdownTable(header, body, false);
}

/**
 * Per system, over the rounds: commits, CPU per job by role, busy cores, the cores the hypervisor
 * took, kernel shares.
 */
function ranges(rounds: readonly (readonly Row[])[]): string {
  const names = [...new Set(rounds.flatMap((round) => round.map(shortName)))];
  const of = (name: string) =>
    rounds.map((round) => find(round, name)).filter((r): r is Row => r !== undefined);
  const roles = ['database', 'server', 'workers'] as const;
  // Where kernelPercent finds a role with no work of its own (SQLite's idle MariaDB, no server
  // beside graphile-worker, a role without CPU), the record shows "–", as for its kernel share.
  const worked = (r: Row, role: (typeof roles)[number]) => kernelPercent(r, role) !== undefined;
  const perJob = (r: Row, role: (typeof roles)[number]) =>
    r.cpu === undefined || !worked(r, role) ? undefined : msPerJob(r, r.cpu[role]);
  const cores = (r: Row) => (r.cpu === undefined ? undefined : busyCores(r, r.cpu));
  const stolen = (r: Row) => (r.cpu === undefined ? undefined : stolenCores(r, r.cpu));
  const percent = (share: string) => (share === '–' ? share : `${share} %`);
  const lines = names.map((name) => {
    const rows = of(name);
    const range = (f: (r: Row) => number | undefined, digits: number) => span(rows.map(f), digits);
    const cpu = roles.map((role) => range((r) => perJob(r, role), 3));
    const kernel = roles.map((role) => percent(range((r) => kernelPercent(r, role), 0)));
    // MariaDB's buffer pool over the drain: whether a drain's pages grow a job, or come from disk.
    const pages = rows.some((r) => r.pagesPerJob !== undefined)
      ? `; InnoDB pages per job ${range((r) => r.pagesPerJob, 0)}, read from disk ` +
        range((r) => r.pagesFromDisk, 0)
      : '';
    // The times a role's threads waited and were woken, a job: the hand-offs (hot-path.md §62).
    const sleeps = roles.map((role) =>
      range((r) => (worked(r, role) ? sleepsPerJob(r, role) : undefined), 1),
    );
    return (
      `- ${name}: commits per job ${range((r) => r.commitsPerJob, 2)}; CPU per job (ms, ` +
      `database / server / workers) ${cpu.join(' / ')}; busy cores ${range(cores, 2)}; ` +
      `stolen cores ${range(stolen, 2)}; the kernel's share ${kernel.join(' / ')}; ` +
      `sleeps per job ${sleeps.join(' / ')}${pages}`
    );
  });
  const over: string[] = [];
  for (const [i, round] of rounds.entries()) {
    for (const r of round) {
      if (r.kind !== 'graphile-worker' && r.p99 !== undefined && r.p99 > P99_LINE_MS) {
        const own = r.submitP99 === undefined ? 'n/a' : r.submitP99.toFixed(0);
        over.push(`round ${i + 1}, ${shortName(r)}: ${r.p99.toFixed(0)} ms (submits' own ${own})`);
      }
    }
  }
  const drains = rounds.reduce(
    (n, round) => n + round.filter((r) => r.kind !== 'graphile-worker').length,
    0,
  );
  const p99 =
    `- p99 submit→claim ≤ ${P99_LINE_MS} ms in ${drains - over.length} drains of ${drains}` +
    (over.length === 0 ? '' : `; over it: ${over.join('; ')}`);
  return [...lines, p99].join('\n');
}

/** The whole record of a run: both tables, the lines' rounds held and the ranges. */
export function formatRecord(rounds: readonly (readonly Row[])[]): string {
  const turn = turnByRound(rounds);
  const twoNodes = twoNodesByRound(rounds);
  return [
    linesByRound(rounds),
    ...(turn === '' ? [] : ['The lockstep table, one node on MariaDB:', turn]),
    ...(twoNodes === ''
      ? []
      : [
          'Two nodes against the machine a job the line allows (docs/design/hot-path.md §46, §52):',
          twoNodes,
        ]),
    [...verdicts(rounds), ranges(rounds)].join('\n'),
  ].join('\n\n');
}
