/**
 * A strict reader of the Prometheus text exposition format (version 0.0.4), for the `/metrics`
 * tests: every line is a `# HELP`, a `# TYPE`, a sample or blank; every sample belongs to a family
 * declared by `# TYPE` before it (histograms through `_bucket`, `_sum`, `_count`); names, label
 * names and values follow the format's grammar; no series appears twice; a histogram's buckets
 * rise with `le`, and its `+Inf` bucket equals its `_count`. Throws on the first fault.
 */

export type MetricType = 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';

export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

export interface Family {
  readonly name: string;
  readonly type: MetricType;
  readonly help: string;
  readonly samples: Sample[];
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TYPES = new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped']);
const SUFFIXES: Readonly<Record<MetricType, readonly string[]>> = {
  counter: [''],
  gauge: [''],
  untyped: [''],
  histogram: ['_bucket', '_sum', '_count'],
  summary: ['', '_sum', '_count'],
};

export function parseExposition(text: string): Map<string, Family> {
  const families = new Map<string, Family>();
  const helps = new Map<string, string>();
  const seen = new Set<string>();
  text.split('\n').forEach((line, i) => {
    const where = `line ${i + 1}: ${line}`;
    if (line.trim() === '') {
      return;
    }
    if (line.startsWith('#')) {
      const m = /^# (HELP|TYPE) ([^ ]+) ?(.*)$/.exec(line);
      if (m === null) {
        return; // a plain comment
      }
      const [, kind, name = '', rest = ''] = m;
      if (!NAME.test(name)) {
        throw new Error(`bad metric name, ${where}`);
      }
      if (kind === 'HELP') {
        helps.set(name, rest);
        return;
      }
      if (!TYPES.has(rest) || families.has(name)) {
        throw new Error(`bad or repeated TYPE, ${where}`);
      }
      families.set(name, {
        name,
        type: rest as MetricType,
        help: helps.get(name) ?? '',
        samples: [],
      });
      return;
    }
    const sample = parseSample(line, where);
    const family = familyOf(families, sample.name);
    if (family === undefined) {
      throw new Error(`sample before its TYPE, ${where}`);
    }
    const key = `${sample.name}${JSON.stringify(Object.entries(sample.labels).sort())}`;
    if (seen.has(key)) {
      throw new Error(`repeated series, ${where}`);
    }
    seen.add(key);
    family.samples.push(sample);
  });
  for (const family of families.values()) {
    if (family.type === 'histogram') {
      checkHistogram(family);
    }
  }
  return families;
}

function familyOf(families: Map<string, Family>, sampleName: string): Family | undefined {
  for (const family of families.values()) {
    if (SUFFIXES[family.type].some((s) => `${family.name}${s}` === sampleName)) {
      return family;
    }
  }
  return undefined;
}

function parseSample(line: string, where: string): Sample {
  const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? ([^ ]+)( -?[0-9]+)?$/.exec(line);
  if (m === null) {
    throw new Error(`not a sample, ${where}`);
  }
  const [, name = '', , body, valueText = ''] = m;
  return {
    name,
    labels: body === undefined ? {} : parseLabels(body, where),
    value: toValue(valueText, where),
  };
}

function parseLabels(body: string, where: string): Record<string, string> {
  const labels: Record<string, string> = {};
  let rest = body;
  while (rest !== '') {
    const m = /^([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\[\\"n])*)"(,|$)/.exec(rest);
    if (m === null || !LABEL.test(m[1] ?? '') || (m[1] ?? '') in labels) {
      throw new Error(`bad labels, ${where}`);
    }
    labels[m[1] ?? ''] = (m[2] ?? '').replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    rest = rest.slice(m[0].length);
  }
  return labels;
}

function toValue(text: string, where: string): number {
  // Prometheus reads values with Go's strconv.ParseFloat, which takes Inf and NaN in any case;
  // prom-client 15 writes NaN as `Nan` (an event-loop gauge before its first sample).
  if (/^[+-]?inf$/i.test(text)) {
    return text.startsWith('-') ? -Infinity : Infinity;
  }
  if (/^nan$/i.test(text)) {
    return NaN;
  }
  if (!/^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$/.test(text)) {
    throw new Error(`bad value, ${where}`);
  }
  return Number(text);
}

function checkHistogram(family: Family): void {
  const series = new Map<string, { le: number; value: number }[]>();
  const counts = new Map<string, number>();
  for (const s of family.samples) {
    const { le, ...rest } = s.labels;
    const key = JSON.stringify(Object.entries(rest).sort());
    if (s.name.endsWith('_bucket')) {
      if (le === undefined) {
        throw new Error(`${family.name}: a bucket without le`);
      }
      series.set(key, [
        ...(series.get(key) ?? []),
        { le: toValue(le, family.name), value: s.value },
      ]);
    } else if (s.name.endsWith('_count')) {
      counts.set(key, s.value);
    }
  }
  for (const [key, buckets] of series) {
    const sorted = [...buckets].sort((a, b) => a.le - b.le);
    sorted.reduce((prev, b) => {
      if (b.value < prev) {
        throw new Error(`${family.name}${key}: buckets fall`);
      }
      return b.value;
    }, 0);
    if (sorted.at(-1)?.le !== Infinity || sorted.at(-1)?.value !== counts.get(key)) {
      throw new Error(`${family.name}${key}: +Inf bucket differs from _count`);
    }
  }
}

/** The value of one series of a family (labels must match exactly, `le` aside), or undefined. */
export function valueOf(
  families: Map<string, Family>,
  sampleName: string,
  labels: Readonly<Record<string, string>>,
): number | undefined {
  const family = familyOf(families, sampleName);
  const wanted = JSON.stringify(Object.entries(labels).sort());
  return family?.samples.find(
    (s) => s.name === sampleName && JSON.stringify(Object.entries(s.labels).sort()) === wanted,
  )?.value;
}
