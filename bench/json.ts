/**
 * `@weave/json` against the built-in JSON on a deterministic ~1 MiB document (docs/benchmarks.md
 * "JSON"). Run: `npx tsc -b bench && node bench/build/json.js [runs]`.
 *
 * Each row times one operation on the same document, built-in JSON against ours. The two
 * alternate inside every run so that CPU frequency drift and GC pressure hit both alike; the
 * table shows medians.
 */
import { parse, stringify } from '@weave/json';

/** Runs discarded before measuring, so both sides are optimized by the JIT. */
const WARMUP_RUNS = 20;
const DEFAULT_RUNS = 41;
const TARGET_BYTES = 1024 * 1024;

/** mulberry32: a tiny seeded PRNG, so every run benchmarks the same document. */
function createRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = [
  'order',
  'shipped',
  'ünïcode',
  '漢字',
  'emoji 😀',
  'tab\there',
  'quote "q"',
  'line\nbreak',
];

/** One record shaped like a workflow payload: nested objects, arrays, strings, many numbers. */
function createRecord(random: () => number, index: number): unknown {
  const pick = (): string => WORDS[Math.floor(random() * WORDS.length)] ?? '';
  const items = Array.from({ length: 1 + Math.floor(random() * 4) }, (_, k) => ({
    sku: `SKU-${index}-${k}`,
    quantity: 1 + Math.floor(random() * 9),
    price: Math.round(random() * 100000) / 100,
    weight: random() * 1e-3,
  }));
  return {
    id: `ord_${String(index).padStart(8, '0')}`,
    createdAt: 1700000000000 + index * 1000,
    customer: { name: `Customer ${index}`, email: `c${index}@example.com`, tags: [pick(), pick()] },
    items,
    total: items.reduce((sum, item) => sum + item.price * item.quantity, 0),
    ratio: random(),
    big: 2 ** 60 + index,
    flags: { paid: random() > 0.5, shipped: random() > 0.5, note: null },
    notes: `${pick()} ${pick()} ${pick()}`,
    metrics: [random() * 1e-7, random() * 1e21, -index, 0],
  };
}

function createDocument(): string {
  const random = createRandom(20240611);
  const records: unknown[] = [];
  let text = '';
  while (text.length < TARGET_BYTES) {
    for (let k = 0; k < 100; k++) {
      records.push(createRecord(random, records.length));
    }
    text = JSON.stringify({ version: 1, records });
  }
  return text;
}

function median(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
}

function timeMs(run: () => unknown): number {
  const start = process.hrtime.bigint();
  run();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

interface Row {
  readonly name: string;
  readonly baseline: () => unknown;
  readonly ours: () => unknown;
}

function measure(row: Row, runs: number): { baseline: number; ours: number } {
  for (let i = 0; i < WARMUP_RUNS; i++) {
    row.baseline();
    row.ours();
  }
  const baseline: number[] = [];
  const ours: number[] = [];
  for (let i = 0; i < runs; i++) {
    baseline.push(timeMs(row.baseline));
    ours.push(timeMs(row.ours));
  }
  return { baseline: median(baseline), ours: median(ours) };
}

/** A typical API response, parsed and written `SMALL_BATCH` times per sample. */
const SMALL_DOCUMENT =
  '{"id":"ins_0123","status":"RUNNING","attempt":3,"input":{"amount":12.5,"tags":["a","b"]},' +
  '"createdAt":"2024-01-01T00:00:00Z"}';
const SMALL_BATCH = 1000;

function repeat(run: () => unknown): () => unknown {
  return () => {
    for (let i = 0; i < SMALL_BATCH; i++) {
      run();
    }
  };
}

/**
 * A worker call's answer with large inputs (`burn-down --input-bytes 65536`): six tasks, each
 * input one 64 KiB string, half of them non-ASCII (plain-text.ts searches long strings).
 */
const LONG_STRINGS_DOCUMENT = JSON.stringify({
  tasks: Array.from({ length: 6 }, (_, i) => ({
    task_id: String(1000 + i),
    input: { pad: (i % 2 === 0 ? 'x' : 'é').repeat(i % 2 === 0 ? 65536 : 32768) },
  })),
});

function createRows(text: string, bytes: Buffer): Row[] {
  const value = parse(text);
  const native: unknown = JSON.parse(text);
  const longValue = parse(LONG_STRINGS_DOCUMENT);
  const longNative: unknown = JSON.parse(LONG_STRINGS_DOCUMENT);
  return [
    {
      name: 'parse + stringify (string)',
      baseline: () => JSON.stringify(JSON.parse(text)),
      ours: () => stringify(parse(text)),
    },
    {
      name: 'parse + stringify (Buffer)',
      baseline: () => JSON.stringify(JSON.parse(bytes.toString('utf8'))),
      ours: () => stringify(parse(bytes)),
    },
    {
      name: 'parse only (string)',
      baseline: (): unknown => JSON.parse(text),
      ours: () => parse(text),
    },
    {
      name: 'parse only (Buffer)',
      baseline: (): unknown => JSON.parse(bytes.toString('utf8')),
      ours: () => parse(bytes),
    },
    {
      name: 'stringify only',
      baseline: () => JSON.stringify(native),
      ours: () => stringify(value),
    },
    {
      name: `parse + stringify, ${SMALL_DOCUMENT.length} B document ×${SMALL_BATCH}`,
      baseline: repeat(() => JSON.stringify(JSON.parse(SMALL_DOCUMENT))),
      ours: repeat(() => stringify(parse(SMALL_DOCUMENT))),
    },
    {
      name: `parse only, six 64 KiB strings (${LONG_STRINGS_DOCUMENT.length} units)`,
      baseline: (): unknown => JSON.parse(LONG_STRINGS_DOCUMENT),
      ours: () => parse(LONG_STRINGS_DOCUMENT),
    },
    {
      name: 'stringify only, six 64 KiB strings',
      baseline: () => JSON.stringify(longNative),
      ours: () => stringify(longValue),
    },
  ];
}

function main(): void {
  const runs = Number(process.argv[2] ?? DEFAULT_RUNS);
  const text = createDocument();
  const bytes = Buffer.from(text, 'utf8');
  if (stringify(parse(bytes)) !== text) {
    throw new Error('the benchmark document does not round-trip byte for byte');
  }
  console.log(`document: ${bytes.length} bytes, ${text.length} UTF-16 units; median of ${runs}`);
  console.log(`node ${process.version}, ${process.platform} ${process.arch}\n`);
  console.log('| case | JSON (ms) | @weave/json (ms) | ratio |');
  console.log('| --- | ---: | ---: | ---: |');
  for (const row of createRows(text, bytes)) {
    const { baseline, ours } = measure(row, runs);
    const ratio = (ours / baseline).toFixed(2);
    console.log(`| ${row.name} | ${baseline.toFixed(2)} | ${ours.toFixed(2)} | ${ratio}× |`);
  }
}

main();
