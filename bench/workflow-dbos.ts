/**
 * The DBOS Transact process of the workflow bench (workflow.ts), started with `fork()` and the
 * system database URL. DBOS's model: workflows and their steps run inside the application
 * process, each step's output checkpointed to PostgreSQL before the workflow goes on — so here a
 * "task" is a no-op `DBOS.runStep` in this process, not work handed to another process. The
 * clients (start, then `handle.getResult()`) run in this process too.
 *
 * The same shapes as the Weave definitions (workflow-defs.ts): S2 10 sequential steps; S3
 * step → `if` (the BRANCH) → step → `Promise.allSettled` of 3 steps (the PARALLEL, started in a
 * fixed order as DBOS requires) → step; S4 `Promise.allSettled` of `width` steps; timers one
 * `DBOS.sleep(1000)`, whose lateness the workflow returns (its own clock: DBOS sleeps on the
 * application's clock, the wake-up time it checkpoints is `Date.now()` + the duration).
 *
 * IPC: `{ ready, version }` once launched; `{ cmd: 'run', id, scenario, sizes }` → `{ id, run }`;
 * `{ cmd: 'warm' }` → `{ warmed: true }`; `{ cmd: 'stop' }` shuts DBOS down and exits.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import { DBOS } from '@dbos-inc/dbos-sdk';
import pg from 'pg';
import { S2_STEPS, TIMER_MS } from './workflow-defs.js';
import type { ScenarioId, Sizes } from './workflow-types.js';

export interface DbosRun {
  readonly instances: number;
  readonly wallMs: number;
  readonly failed: number;
  readonly instanceMs: readonly number[];
  readonly stepMs?: readonly number[];
  readonly latenessMs?: readonly number[];
  readonly startPhaseMs?: number;
  readonly processCpuMs: number;
}

const noop = (): Promise<null> => Promise.resolve(null);

async function allSteps(names: readonly string[]): Promise<void> {
  // Every step is started here, in this order, before any is awaited.
  const settled = await Promise.allSettled(names.map((name) => DBOS.runStep(noop, { name })));
  const failure = settled.find((s) => s.status === 'rejected');
  if (failure !== undefined) {
    throw new Error(`a parallel step failed: ${String(failure.reason)}`);
  }
}

const sequence = DBOS.registerWorkflow(
  async (steps: number) => {
    for (let i = 1; i <= steps; i++) {
      await DBOS.runStep(noop, { name: `t${i}` });
    }
    return null;
  },
  { name: 'bench_s2' },
);

const sixTasks = DBOS.registerWorkflow(
  async (route: string) => {
    await DBOS.runStep(noop, { name: 't1' });
    if (route === 'a') {
      await DBOS.runStep(noop, { name: 't2' });
    }
    await allSteps(['p1', 'p2', 'p3']);
    await DBOS.runStep(noop, { name: 't6' });
    return null;
  },
  { name: 'bench_s3' },
);

const wide = DBOS.registerWorkflow(
  async (width: number) => {
    await allSteps(Array.from({ length: width }, (_, i) => `w${i}`));
    return null;
  },
  { name: 'bench_s4' },
);

const nap = DBOS.registerWorkflow(
  async (ms: number) => {
    const due = performance.timeOrigin + performance.now() + ms;
    await DBOS.sleep(ms);
    return performance.timeOrigin + performance.now() - due;
  },
  { name: 'bench_timer' },
);

async function lanes(count: number, n: number, fn: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    for (let i = next++; i < n; i = next++) {
      await fn(i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(count, n) }, lane));
}

let runs = 0;

async function run(url: string, scenario: ScenarioId, sizes: Sizes): Promise<DbosRun> {
  const tag = `${scenario}-${++runs}`;
  const cpu = process.cpuUsage();
  const instanceMs: number[] = [];
  let failed = 0;
  const t0 = performance.now();
  const finish = (extra: Partial<DbosRun> & { instances: number }): DbosRun => ({
    wallMs: performance.now() - t0,
    failed,
    instanceMs,
    processCpuMs: (() => {
      const used = process.cpuUsage(cpu);
      return (used.user + used.system) / 1000;
    })(),
    ...extra,
  });
  const closed = async (start: () => Promise<{ getResult(): Promise<unknown> }>) => {
    const started = performance.now();
    try {
      await (await start()).getResult();
    } catch {
      failed++;
    }
    instanceMs.push(performance.now() - started);
  };
  switch (scenario) {
    case 's2': {
      for (let i = 0; i < sizes.s2; i++) {
        await closed(() => DBOS.startWorkflow(sequence, { workflowID: `${tag}-${i}` })(S2_STEPS));
      }
      const done = finish({ instances: sizes.s2 });
      return { ...done, stepMs: await stepTimes(url, tag) };
    }
    case 's3':
      await lanes(sizes.clients, sizes.s3, (i) =>
        closed(() => DBOS.startWorkflow(sixTasks, { workflowID: `${tag}-${i}` })('a')),
      );
      return finish({ instances: sizes.s3 });
    case 's4':
    case 'timers': {
      const n = scenario === 's4' ? sizes.s4 : sizes.timers;
      const ends: Promise<void>[] = [];
      const lateness: number[] = [];
      await lanes(sizes.clients, n, async (i) => {
        const started = performance.now();
        const handle =
          scenario === 's4'
            ? await DBOS.startWorkflow(wide, { workflowID: `${tag}-${i}` })(sizes.s4Width)
            : await DBOS.startWorkflow(nap, { workflowID: `${tag}-${i}` })(TIMER_MS);
        ends.push(
          handle.getResult().then(
            (late) => {
              instanceMs.push(performance.now() - started);
              if (typeof late === 'number') {
                lateness.push(late);
              }
            },
            () => {
              failed++;
            },
          ),
        );
      });
      const startPhaseMs = performance.now() - t0;
      await Promise.all(ends);
      return finish({
        instances: n,
        startPhaseMs,
        ...(scenario === 'timers' ? { latenessMs: lateness } : {}),
      });
    }
  }
}

/**
 * S2 per step from DBOS's own checkpoints: `completed_at_epoch_ms` of each step minus the one
 * before (the first minus the workflow's `created_at`). Millisecond resolution: that is what
 * DBOS stores.
 */
async function stepTimes(url: string, tag: string): Promise<number[]> {
  const client = new pg.Client(url);
  await client.connect();
  try {
    const { rows } = await client.query<{ id: string; done: string; created: string }>(
      `SELECT o.workflow_uuid AS id, o.completed_at_epoch_ms AS done, s.created_at AS created
       FROM dbos.operation_outputs o JOIN dbos.workflow_status s ON s.workflow_uuid = o.workflow_uuid
       WHERE o.workflow_uuid LIKE $1 ORDER BY o.workflow_uuid, o.function_id`,
      [`${tag}-%`],
    );
    const steps: number[] = [];
    let previous: { id: string; at: number } | undefined;
    for (const row of rows) {
      const at = Number(row.done);
      steps.push(at - (previous?.id === row.id ? previous.at : Number(row.created)));
      previous = { id: row.id, at };
    }
    return steps;
  } finally {
    await client.end();
  }
}

function dbosVersion(): string {
  const require = createRequire(import.meta.url);
  const main = require.resolve('@dbos-inc/dbos-sdk');
  const pkg = main.replace(/dist[/\\]src[/\\]index\.js$/, 'package.json');
  return (JSON.parse(readFileSync(pkg, 'utf8')) as { version: string }).version;
}

const url = process.argv[2];
if (url !== undefined && process.send !== undefined) {
  DBOS.setConfig({ name: 'weave-bench', systemDatabaseUrl: url, logLevel: 'error' });
  await DBOS.launch();
  process.on(
    'message',
    (m: { cmd?: string; id?: number; scenario?: ScenarioId; sizes?: Sizes }) => {
      if (m.cmd === 'run' && m.scenario !== undefined && m.sizes !== undefined) {
        run(url, m.scenario, m.sizes).then(
          (result) => process.send?.({ id: m.id, run: result }),
          (e: unknown) => process.send?.({ id: m.id, error: String(e) }),
        );
      } else if (m.cmd === 'warm') {
        const warm = async () => {
          for (let i = 0; i < 3; i++) {
            await (await DBOS.startWorkflow(sequence)(S2_STEPS)).getResult();
          }
          await lanes(32, 64, async () => {
            await (await DBOS.startWorkflow(sixTasks)('a')).getResult();
          });
        };
        warm().then(
          () => process.send?.({ warmed: true }),
          (e: unknown) => process.send?.({ warmed: false, error: String(e) }),
        );
      } else if (m.cmd === 'stop') {
        void DBOS.shutdown().then(() => process.exit(0));
      }
    },
  );
  process.send({ ready: true, version: dbosVersion() });
}
