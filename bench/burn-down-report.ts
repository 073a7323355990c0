/** Percentiles and the Markdown table of the burn-down bench (burn-down.ts). */

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
  readonly p50: number | undefined;
  readonly p99: number | undefined;
  readonly latencyCount: number;
}

/** Nearest-rank percentile of sorted values. */
export function percentile(sorted: readonly number[], p: number): number | undefined {
  if (sorted.length === 0) {
    return undefined;
  }
  return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)];
}

function ratio(row: Row, peer: Row | undefined): string {
  if (row.kind !== 'pulse' || peer === undefined) {
    return '';
  }
  return `${(row.jobsPerSecond / peer.jobsPerSecond).toFixed(2)}×`;
}

function fixed(value: number | undefined, digits: number): string {
  return value === undefined ? 'n/a' : value.toFixed(digits);
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
    ratio(r, boss),
    ratio(r, graphile),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => (b[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    `| ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join(' | ')} |`;
  const rule = `| ${widths.map((w, i) => (i === 0 ? '-'.repeat(w) : '-'.repeat(w - 1) + ':')).join(' | ')} |`;
  return [line(header), rule, ...body.map(line)].join('\n');
}
