/** Statistics and Markdown tables of the workflow bench (workflow.ts). */
import { percentile } from './burn-down-report.js';

export { percentile };

/** p50 and p99 (nearest rank) of unsorted values; undefined when empty. */
export function quantiles(values: readonly number[]): { p50?: number; p99?: number; max?: number } {
  const sorted = [...values].sort((a, b) => a - b);
  const p50 = percentile(sorted, 0.5);
  const p99 = percentile(sorted, 0.99);
  const max = sorted[sorted.length - 1];
  return {
    ...(p50 === undefined ? {} : { p50 }),
    ...(p99 === undefined ? {} : { p99 }),
    ...(max === undefined ? {} : { max }),
  };
}

export function mean(values: readonly number[]): number | undefined {
  return values.length === 0 ? undefined : values.reduce((a, b) => a + b, 0) / values.length;
}

export function fixed(value: number | undefined, digits: number): string {
  return value === undefined || !Number.isFinite(value) ? 'n/a' : value.toFixed(digits);
}

/** Thousands separated, no decimals. */
export function whole(value: number | undefined): string {
  return value === undefined || !Number.isFinite(value)
    ? 'n/a'
    : Math.round(value).toLocaleString('en-US');
}

/** `a / b` as `1.23×`, or '' when either is missing. */
export function times(a: number | undefined, b: number | undefined): string {
  if (a === undefined || b === undefined || !Number.isFinite(a) || !Number.isFinite(b) || b === 0) {
    return '';
  }
  return `${(a / b).toFixed(2)}×`;
}

/** A Markdown table: the first column left-aligned, the others right-aligned. */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    `| ${widths.map((w, i) => (i === 0 ? (cells[i] ?? '').padEnd(w) : (cells[i] ?? '').padStart(w))).join(' | ')} |`;
  const rule = `| ${widths.map((w, i) => (i === 0 ? '-'.repeat(w) : '-'.repeat(w - 1) + ':')).join(' | ')} |`;
  return [line(header), rule, ...rows.map(line)].join('\n');
}
