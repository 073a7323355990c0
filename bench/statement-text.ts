/**
 * What writing a worker-call group's statements as text costs the server, mysql2's formatting
 * (`sql-escaper`, as before session 42) against Weave's own (store/statement-text.ts): CPU and
 * bytes allocated a packet and a job, in one process, alternating, three rounds
 * (docs/design/hot-path.md §43).
 *
 *   node bench/build/statement-text.js [--packets 3000]
 *
 * The packet is `bench/probes/worker-call-packet.json`: the thirteen statements and 1,631
 * parameters of one MariaDB worker-call group of a burn-down drain (24 completions and 24 claims,
 * captured in session 42; bytes as `{ hex }`, bigints as `{ big }`). Each variant's text is
 * checked equal to the other's first.
 * Bytes are counted as alloc-sampler.ts counts them (V8's used heap before each collection less
 * after the one before); both variants include taking the text's UTF-8 length, which flattens
 * mysql2's concatenated text as the socket write would.
 */
import { readFileSync } from 'node:fs';
import { GCProfiler, getHeapStatistics } from 'node:v8';
import { formatQuery, packetParameters } from '@weave/server';
import type { Statement } from '@weave/server';
import mysql from 'mysql2';
import { markdownTable } from './burn-down-report.js';
import { onlyIntFlag } from './int-flag.js';

interface GcStatistics {
  readonly beforeGC: { readonly heapStatistics: { readonly usedHeapSize: number } };
  readonly afterGC: { readonly heapStatistics: { readonly usedHeapSize: number } };
}

const JOBS_A_PACKET = 24;
const ROUNDS = 3;

function loadPacket(): Statement[] {
  const file = new URL('../probes/worker-call-packet.json', import.meta.url);
  const raw = JSON.parse(readFileSync(file, 'utf8')) as { sql: string; parameters: unknown[] }[];
  return raw.map(({ sql, parameters }) => ({
    sql,
    parameters: parameters.map((p) => {
      if (typeof p !== 'object' || p === null) {
        return p;
      }
      const tagged = p as { hex?: string; big?: string };
      return tagged.hex !== undefined ? Buffer.from(tagged.hex, 'hex') : BigInt(String(tagged.big));
    }),
  }));
}

function measure(run: () => string, packets: number): { micros: number; bytes: number } {
  let usedAfter = getHeapStatistics().used_heap_size;
  let bytes = 0;
  let sink = 0;
  const profiler = new GCProfiler();
  profiler.start();
  const started = process.hrtime.bigint();
  for (let i = 0; i < packets; i++) {
    sink += Buffer.byteLength(run());
  }
  const micros = Number(process.hrtime.bigint() - started) / 1000;
  for (const gc of (profiler.stop()?.statistics ?? []) as readonly GcStatistics[]) {
    bytes += Math.max(0, gc.beforeGC.heapStatistics.usedHeapSize - usedAfter);
    usedAfter = gc.afterGC.heapStatistics.usedHeapSize;
  }
  bytes += Math.max(0, getHeapStatistics().used_heap_size - usedAfter);
  if (sink === 0) {
    throw new Error('no text written');
  }
  return { micros: micros / packets, bytes: bytes / packets };
}

function main(): void {
  const packets = onlyIntFlag(
    '--packets',
    3000,
    'node bench/build/statement-text.js [--packets N]',
  );
  const statements = loadPacket();
  const joined = statements.map((s) => s.sql).join(';\n');
  const variants: [string, () => string][] = [
    [
      'mysql2 (sql-escaper)',
      () => mysql.format(joined, statements.flatMap((s) => s.parameters) as never, false, 'Z'),
    ],
    ['Weave (statement-text.ts)', () => formatQuery(joined, packetParameters(statements))],
  ];
  const texts = variants.map(([, run]) => run());
  if (texts.some((t) => t !== texts[0])) {
    throw new Error('the two variants wrote different texts');
  }
  const parameters = statements.reduce((n, s) => n + s.parameters.length, 0);
  console.log(
    `One packet: ${statements.length} statements, ${parameters} parameters, ` +
      `${(texts[0] as string).length} characters; ${packets} packets a reading.\n`,
  );
  const rows: string[][] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    for (const [name, run] of variants) {
      const { micros, bytes } = measure(run, packets);
      rows.push([
        String(round),
        name,
        micros.toFixed(1),
        (bytes / 1024).toFixed(1),
        (micros / JOBS_A_PACKET).toFixed(2),
        (bytes / 1024 / JOBS_A_PACKET).toFixed(2),
      ]);
    }
  }
  console.log(
    markdownTable(
      ['round', 'formatting', 'µs a packet', 'KiB a packet', 'µs a job', 'KiB a job'],
      rows,
    ),
  );
}

main();
