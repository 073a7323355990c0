/**
 * How many bytes a process allocates, over time: loaded into a server node by the burn-down
 * (docs/design/hot-path.md §42), it samples V8's heap every 20 ms and
 * appends `<monotonic µs> <bytes allocated so far> <scavenges so far>` to
 * `$WEAVE_ALLOC_SAMPLES/<pid>.txt`, on the clock the burn-down's "drain from … to … µs" line is
 * on, so `bench/build/alloc-per-job.js` can divide a drain's allocation by its jobs.
 *
 *   WEAVE_ALLOC_SAMPLES=/tmp/alloc \
 *   WEAVE_BENCH_NODE_ARGS="--import ./bench/build/alloc-sampler.js" \
 *     node bench/build/burn-down.js --only pulse-mariadb-1-sdk --jobs 10000 --rounds 1
 *
 * With the burn-down's WEAVE_BENCH_DRAIN_SIGNAL=1 it also takes a sampling heap profile of each
 * drain (a SIGUSR2 starts it, the next one writes `<pid>-<n>.heapprofile`), counting objects the
 * collector has freed, so `bench/build/heap-summary.js` can say where a job's bytes were allocated.
 *
 * Allocation is exact up to V8's own accounting: between two collections the heap's used bytes
 * grow only by allocation, so the bytes allocated are the sum, over the collections V8's
 * `GCProfiler` reports, of the used bytes before each less the used bytes after the one before
 * (and at each sample the used bytes now less those after the last collection).
 */
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { join } from 'node:path';
import { GCProfiler, getHeapStatistics } from 'node:v8';

const SAMPLE_MS = 20;
const FLUSH_MS = 500;

interface GcStatistics {
  readonly gcType: string;
  readonly beforeGC: { readonly heapStatistics: { readonly usedHeapSize: number } };
  readonly afterGC: { readonly heapStatistics: { readonly usedHeapSize: number } };
}

function start(dir: string): void {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${process.pid}.txt`);
  let allocated = 0;
  let scavenges = 0;
  let usedAfter = getHeapStatistics().used_heap_size;
  let profiler = new GCProfiler();
  profiler.start();
  let lines: string[] = [];
  const sample = setInterval(() => {
    const collections = (profiler.stop()?.statistics ?? []) as readonly GcStatistics[];
    profiler = new GCProfiler();
    profiler.start();
    for (const gc of collections) {
      allocated += Math.max(0, gc.beforeGC.heapStatistics.usedHeapSize - usedAfter);
      usedAfter = gc.afterGC.heapStatistics.usedHeapSize;
      scavenges += gc.gcType === 'Scavenge' ? 1 : 0;
    }
    const used = getHeapStatistics().used_heap_size;
    allocated += Math.max(0, used - usedAfter);
    usedAfter = used;
    lines.push(`${process.hrtime.bigint() / 1000n} ${allocated} ${scavenges}`);
  }, SAMPLE_MS);
  const flush = setInterval(() => {
    appendFileSync(file, lines.join('\n') + (lines.length > 0 ? '\n' : ''));
    lines = [];
  }, FLUSH_MS);
  sample.unref();
  flush.unref();
}

/** A sampling heap profile between two SIGUSR2s, freed objects included. */
function profileOnSignal(dir: string): void {
  const session = new Session();
  session.connect();
  let profiles = 0;
  let sampling = false;
  process.on('SIGUSR2', () => {
    if (!sampling) {
      sampling = true;
      session.post('HeapProfiler.startSampling', {
        samplingInterval: 8192,
        includeObjectsCollectedByMajorGC: true,
        includeObjectsCollectedByMinorGC: true,
      });
      return;
    }
    sampling = false;
    session.post('HeapProfiler.stopSampling', (error, result) => {
      if (error === null) {
        const file = join(dir, `${process.pid}-${++profiles}.heapprofile`);
        writeFileSync(file, JSON.stringify(result.profile));
      }
    });
  });
}

const dir = process.env['WEAVE_ALLOC_SAMPLES'];
if (dir !== undefined && dir !== '') {
  start(dir);
  profileOnSignal(dir);
}
