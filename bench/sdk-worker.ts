/**
 * What the SDK `Worker` itself costs per job, without a server or database to share the machine
 * with: this process answers the Worker's calls with canned tasks (six per claim, as in the
 * burn-down's 4 × 6), and a forked process runs one `Worker` (concurrency 6, a no-op handler) and
 * measures its own CPU over `--jobs` jobs after a warm-up. Each answer is held for `--delays`
 * milliseconds (0: back to back; 15: about a busy burn-down call's round trip), because on this
 * machine the same code costs several times more when each call waits for its answer
 * (docs/design/hot-path.md §15). Low noise: use it to measure a change to the SDK's call path.
 *
 *   node bench/build/sdk-worker.js [--jobs N] [--delays 0,15] [--rounds R] [--sdk a.js,b.js]
 *
 * `--sdk`: built SDK entries (`…/packages/sdk/build/src/node/index.js`, say of a worktree) to
 * measure in turn, each round, instead of this checkout's.
 */
import { fork } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import type * as Sdk from '@weave/sdk';

const WARM_UP_JOBS = 3_000;
const CONCURRENCY = 6;

interface Measured {
  readonly jobs: number;
  readonly userUs: number;
  readonly systemUs: number;
  readonly wallMs: number;
}

function option(name: string, fallback: string): string {
  const at = process.argv.indexOf(`--${name}`);
  return at > 0 ? (process.argv[at + 1] ?? fallback) : fallback;
}

if (process.argv[2] === '--worker') {
  const measured = await runWorker(process.argv[3] ?? '', Number(process.argv[4]));
  process.send?.(measured, () => process.exit(0));
} else {
  await main();
}

/** The forked side: one Worker against the canned server, its own CPU over `jobs` jobs. */
async function runWorker(url: string, jobs: number): Promise<Measured> {
  // --sdk: another build's entry (`…/packages/sdk/build/src/node/index.js`), for an A/B.
  const { WeaveClient, Worker } = (await import(
    process.env['WEAVE_BENCH_SDK'] ?? '@weave/sdk'
  )) as typeof Sdk;
  const client = new WeaveClient({ url, namespace: 'bench', apiKey: 'k'.repeat(40) });
  let done = 0;
  let cpu0 = process.cpuUsage();
  let t0 = performance.now();
  let finish: () => void = () => undefined;
  const finished = new Promise<void>((resolve) => (finish = resolve));
  const worker = new Worker({
    client,
    concurrency: CONCURRENCY,
    waitMs: 5_000,
    handlers: {
      q: () => {
        done += 1;
        if (done === WARM_UP_JOBS) {
          cpu0 = process.cpuUsage();
          t0 = performance.now();
        } else if (done === WARM_UP_JOBS + jobs) {
          finish();
        }
        return Promise.resolve(null);
      },
    },
  });
  worker.start();
  await finished;
  const cpu = process.cpuUsage(cpu0);
  return { jobs, userUs: cpu.user, systemUs: cpu.system, wallMs: performance.now() - t0 };
}

/** Answers claims and completion calls with `max_tasks` new tasks, after `delayMs`. */
function cannedServer(delayMs: () => number): http.Server {
  let next = 1;
  const tasks = (n: number) =>
    Array.from({ length: n }, () => {
      const id = next++;
      return {
        task_id: String(id),
        attempt_id: String(id + 50_000_000),
        permit: `p_${'x'.repeat(43)}`,
        lease_expires_at: '2026-12-02T12:00:30.000Z',
        deadline_at: '2026-12-03T12:00:00.000Z',
        input: { t: 1764676800000, paced: false },
        attempt_number: 1,
        idempotent: true,
      };
    });
  return http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        completions?: { task_id: string; attempt_id: string }[];
        claim?: { max_tasks?: number };
        max_tasks?: number;
      };
      const n = body.claim?.max_tasks ?? body.max_tasks ?? 0;
      const answer =
        body.completions === undefined
          ? { tasks: tasks(n) }
          : {
              receipts: body.completions.map((c, index) => ({
                index,
                task_id: c.task_id,
                attempt_id: c.attempt_id,
                revision: '4',
                status: 'SUCCEEDED',
              })),
              errors: [],
              tasks: tasks(n),
            };
      const text = JSON.stringify(answer);
      const send = () => {
        res.writeHead(200, {
          'content-type': 'application/json; charset=utf-8',
          'content-length': Buffer.byteLength(text),
        });
        res.end(text);
      };
      const held = delayMs();
      if (held > 0) {
        setTimeout(send, held);
      } else {
        send();
      }
    });
  });
}

/** One forked Worker process over `jobs` jobs, with the SDK at `sdk` (default: this checkout's). */
async function measureOnce(url: string, jobs: number, sdk: string | undefined): Promise<Measured> {
  const child = fork(fileURLToPath(import.meta.url), ['--worker', url, String(jobs)], {
    env: sdk === undefined ? process.env : { ...process.env, WEAVE_BENCH_SDK: sdk },
  });
  return new Promise<Measured>((resolve, reject) => {
    child.once('message', (message) => resolve(message as Measured));
    child.once('error', reject);
  });
}

function perJob(us: number, m: Measured): string {
  return (us / m.jobs).toFixed(1);
}

async function main(): Promise<void> {
  const jobs = Number(option('jobs', '12000'));
  const delays = option('delays', '0,15').split(',').map(Number);
  const rounds = Number(option('rounds', '2'));
  const sdkList = option('sdk', '');
  const sdks = sdkList === '' ? [undefined] : sdkList.split(',');
  let delay = 0;
  const server = cannedServer(() => delay);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const rows: string[] = [];
  for (let round = 1; round <= rounds; round++) {
    for (const d of delays) {
      delay = d;
      // Held answers make each job ~30 times slower in wall time: a tenth of the jobs.
      const n = d > 0 ? Math.max(600, Math.round(jobs / 10)) : jobs;
      for (const sdk of sdks) {
        const m = await measureOnce(url, n, sdk);
        const cells = [round, sdk ?? 'this checkout', d, m.jobs];
        cells.push(perJob(m.userUs + m.systemUs, m), perJob(m.userUs, m), perJob(m.systemUs, m));
        cells.push(perJob(1000 * m.wallMs, m));
        rows.push(`| ${cells.join(' | ')} |`);
      }
    }
  }
  server.close();
  console.log(`SDK Worker (concurrency ${CONCURRENCY}) against canned answers, CPU of its process`);
  console.log('');
  console.log(
    '| round | SDK | answer held (ms) | jobs | CPU µs/job | user | system | wall µs/job |',
  );
  console.log('| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |');
  rows.forEach((row) => console.log(row));
}
