/**
 * Issue 14's workflow lines in one command: `bench/workflow.ts` (S2 and S3, Weave on MariaDB and
 * SQLite) run in pairs, an earlier commit and this checkout, each pair on the same machine minutes
 * apart, so a machine whose speed drifts moves both sides of a pair alike. The order alternates:
 * odd pairs run the earlier commit first, even pairs this checkout first, so that a machine which
 * slows (or warms) over a pair does not favour the same side in every pair.
 *
 *   node bench/build/workflow-against.js [--landed da25fda] [--pairs 5] [--dir DIR] [--keep]
 *
 * The earlier commit is checked out as a git worktree (`--dir`, by default under the system's temp
 * folder), installed with `npm ci` and built once; `--keep` leaves it for the next run, otherwise it
 * is removed at the end. Each side's full report is kept beside it as `<dir>-reports/`. The table
 * printed at the end gives S3 transitions/s of both sides and their ratio (the line: ≥ 1.3×) and
 * S2's per-step p50 / p99 of both sides (the line: p50 not worse), per engine and pair, then the
 * medians over the pairs. Each pair's row also gives the cores the hypervisor took (its steal, as
 * cores on average) over each side: a side run while the host's other guests took a share of its
 * cores is slower for it, and a pair whose sides were robbed unequally is no comparison
 * (docs/design/hot-path.md §54).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median } from './burn-down-report.js';
import { stolenSeconds } from './cpu-use.js';

const HERE = fileURLToPath(new URL('../..', import.meta.url));
const ENGINES = ['Weave MariaDB', 'Weave SQLite'] as const;
type Engine = (typeof ENGINES)[number];

/** One side's figures, per engine: S3 transitions/s and S2's per-step p50 and p99 (ms). */
export type Figures = Partial<Record<Engine, { s3: number; s2p50: number; s2p99: number }>>;

/** The first Markdown table after the line that starts with `heading`: its header and rows. */
function tableAfter(report: string, heading: string): { header: string[]; body: string[][] } {
  const lines = report.split('\n');
  const start = lines.findIndex((l) => l.startsWith(heading));
  const first = start < 0 ? -1 : lines.findIndex((l, i) => i > start && l.startsWith('|'));
  const end = lines.findIndex((l, i) => i > first && !l.startsWith('|'));
  const rows = first < 0 ? [] : lines.slice(first, end < 0 ? undefined : end);
  const cells = (l: string) =>
    l
      .slice(1, -1)
      .split('|')
      .map((c) => c.trim());
  const [header = [], , ...body] = rows.map(cells);
  return { header, body };
}

/** Reads a `workflow.js --scenarios s2,s3` report (its S2 and S3 tables). */
export function parseReport(report: string): Figures {
  const figures: Figures = {};
  const s2 = tableAfter(report, 'S2 —');
  const s3 = tableAfter(report, 'S3 —');
  // The first column of that name (S2's per-step p99 comes before its per-instance p99).
  const cell = (table: { header: string[] }, row: string[], name: string) =>
    Number((row[table.header.indexOf(name)] ?? '').replace(/,/g, ''));
  for (const engine of ENGINES) {
    const two = s2.body.find((row) => row[0] === engine);
    const three = s3.body.find((row) => row[0] === engine);
    if (two !== undefined && three !== undefined) {
      figures[engine] = {
        s3: cell(s3, three, 'transitions/s'),
        s2p50: cell(s2, two, 'per step p50 (ms)'),
        s2p99: cell(s2, two, 'p99 (ms)'),
      };
    }
  }
  return figures;
}

function run(cmd: string, args: readonly string[], cwd: string, capture = false): string {
  const r = spawnSync(cmd, args, {
    cwd,
    encoding: 'utf8',
    // Set-up output goes to stderr, so that stdout holds the table alone.
    stdio: capture ? ['ignore', 'pipe', 'inherit'] : ['ignore', 2, 'inherit'],
    maxBuffer: 64 * 1024 * 1024,
  });
  if (r.status !== 0) {
    throw new Error(`${cmd} ${args.join(' ')} (in ${cwd}) exited ${r.status}`);
  }
  return r.stdout ?? '';
}

function option(argv: readonly string[], name: string): string | undefined {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : undefined;
}

/** One side's report, and the cores the hypervisor took over it on average ('n/a' off Linux). */
function side(dir: string): { report: string; stolen: string } {
  const [stolenBefore, startedAt] = [stolenSeconds(), performance.now()];
  const report = run(
    process.execPath,
    ['bench/build/workflow.js', '--only', 'weave-mariadb,weave-sqlite', '--scenarios', 's2,s3'],
    dir,
    true,
  );
  // Older commits may leave their worker processes behind; none may run into the next side.
  spawnSync('pkill', ['-f', 'workflow-worker.js']);
  const stolenAfter = stolenSeconds();
  const seconds = (performance.now() - startedAt) / 1000;
  const stolen =
    stolenBefore === undefined || stolenAfter === undefined
      ? 'n/a'
      : ((stolenAfter - stolenBefore) / seconds).toFixed(2);
  return { report, stolen };
}

function main(): void {
  const argv = process.argv.slice(2);
  const landed = option(argv, 'landed') ?? 'da25fda';
  const pairs = Number(option(argv, 'pairs') ?? '5');
  if (!Number.isInteger(pairs) || pairs < 1) {
    throw new Error(`--pairs must be a whole number of at least 1 (got ${option(argv, 'pairs')})`);
  }
  const dir = option(argv, 'dir') ?? join(tmpdir(), `weave-landed-${landed}`);
  const reports = `${dir}-reports`;
  if (!existsSync(dir)) {
    run('git', ['worktree', 'add', '--detach', dir, landed], HERE);
    run('npm', ['ci'], dir);
    run('npm', ['run', 'build'], dir);
  }
  mkdirSync(reports, { recursive: true });
  const rows: string[][] = [];
  const ratios: Record<Engine, number[]> = { 'Weave MariaDB': [], 'Weave SQLite': [] };
  const p50s: Record<Engine, { now: number[]; landed: number[] }> = {
    'Weave MariaDB': { now: [], landed: [] },
    'Weave SQLite': { now: [], landed: [] },
  };
  let notWorse = 0;
  try {
    for (let pair = 1; pair <= pairs; pair++) {
      const landedFirst = pair % 2 === 1;
      const order = landedFirst ? 'landed' : 'now';
      const first = side(landedFirst ? dir : HERE);
      const second = side(landedFirst ? HERE : dir);
      const [before, now] = landedFirst ? [first, second] : [second, first];
      writeFileSync(join(reports, `landed-${pair}.txt`), before.report);
      writeFileSync(join(reports, `now-${pair}.txt`), now.report);
      const [l, n] = [parseReport(before.report), parseReport(now.report)];
      const stolen = `${now.stolen} / ${before.stolen}`;
      for (const engine of ENGINES) {
        const a = l[engine];
        const b = n[engine];
        if (a === undefined || b === undefined) {
          rows.push([
            String(pair),
            order,
            engine,
            'no figures (see the reports)',
            '',
            '',
            '',
            stolen,
          ]);
          continue;
        }
        const notSlower = b.s2p50 <= a.s2p50;
        ratios[engine].push(b.s3 / a.s3);
        p50s[engine].now.push(b.s2p50);
        p50s[engine].landed.push(a.s2p50);
        notWorse += notSlower ? 1 : 0;
        rows.push([
          String(pair),
          order,
          engine,
          `${b.s3} / ${a.s3}`,
          `${(b.s3 / a.s3).toFixed(2)}×`,
          `${b.s2p50} / ${b.s2p99}, ${a.s2p50} / ${a.s2p99}`,
          notSlower ? 'not worse' : 'worse',
          stolen,
        ]);
      }
      process.stderr.write(`pair ${pair} of ${pairs} done\n`);
    }
  } finally {
    if (!argv.includes('--keep')) {
      run('git', ['worktree', 'remove', '--force', dir], HERE);
    }
  }
  const header = [
    'pair',
    'first',
    'engine',
    'S3 tr./s now / landed',
    'ratio',
    'S2 p50 / p99 now, landed (ms)',
    'S2 p50',
    'stolen cores now / landed',
  ];
  const line = (cells: readonly string[]) => `| ${cells.join(' | ')} |`;
  const range = (values: readonly number[]) =>
    values.length === 0
      ? 'n/a'
      : `${Math.min(...values).toFixed(2)}–${Math.max(...values).toFixed(2)}×`;
  const plural = pairs === 1 ? 'pair' : 'pairs';
  const mid = (values: readonly number[]) => (median(values) ?? NaN).toFixed(2);
  const medians = ENGINES.map(
    (e) =>
      `${e}: S3 ÷ landed ${mid(ratios[e])}×, S2 p50 ${mid(p50s[e].now)} ms now against ` +
      `${mid(p50s[e].landed)} ms landed`,
  ).join('; ');
  process.stdout.write(
    `\nS2 and S3, this checkout against ${landed}, ${pairs} ${plural} (reports in ${reports}):\n\n` +
      [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n') +
      `\n\nS3 ÷ landed (the line: ≥ 1.3×): MariaDB ${range(ratios['Weave MariaDB'])}, SQLite ` +
      `${range(ratios['Weave SQLite'])}; S2 per-step p50 not worse in ${notWorse} of ` +
      `${ratios['Weave MariaDB'].length + ratios['Weave SQLite'].length} engine-pairs.\n` +
      `Medians over the pairs: ${medians}.\n`,
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main();
}
