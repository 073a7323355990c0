/**
 * The Weave crash test (docs/design/crash-tests.md "The Weave crash test", runtime.md §8): real
 * processes on one MariaDB database — 2 `weave server` nodes and 4 worker processes
 * (weave-crash-worker.ts) run 500 instances of TASK → BRANCH → TASK → PARALLEL(3 TASK) → TASK,
 * every task idempotent. While the instances start and run, a server node is SIGKILLed every
 * ~5 s and restarted on its port, and a worker every ~4 s (and replaced). The Starts go to both
 * nodes with an Idempotency-Key each and are re-sent with the same key after a connection error
 * or a 5xx. Then every invariant of runtime.md §8 is checked from the database and the counts
 * are printed.
 */
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import type { Connection, RowDataPacket } from 'mysql2/promise';
import { isWeaveApiError } from '@weave/sdk';
import type { WeaveClient } from '@weave/sdk';
import { CrashCluster, interval, pause, seconds } from '../support/crash-cluster.js';
import { OWNER_ACTIVATION } from '../../src/weave/delivery/deliver-result.js';
import { DIALECTS, createEmptyDatabase } from '../support/databases.js';
import type { TestDatabase } from '../support/databases.js';
import { deriveSeed, seededRandom, seedFrom } from '../support/random.js';
import { waitFor } from '../support/wait-for.js';

const WORKER_JS = fileURLToPath(new URL('./weave-crash-worker.js', import.meta.url));
const INSTANCES = 500;
const WORKERS = 4;
const SERVER_KILL_EVERY_MS = 5_000;
const WORKER_KILL_EVERY_MS = 4_000;
/** The first server kill comes once this many Starts are answered: a kill lands among Starts. */
const FIRST_SERVER_KILL_AFTER_STARTS = 100;
/** Worker process n gets `deriveSeed(seed, n)`; the worker-kill schedule this stream's. */
const WORKER_SCHEDULE_STREAM = 1 << 20;
/** The chaos loop looks at its schedule this often. */
const CHAOS_TICK_MS = 100;
/** Starts in flight at once (over both nodes). */
const START_LANES = 8;
/** Tries of one Start (same key each time) before the test gives up on it. */
const START_TRIES = 60;
const PROGRESS_EVERY_MS = 15_000;
const NAMESPACE = 'wcrash';
const APP = 'crash';
const QUEUE = 'work';
const WORKFLOW_NAME = 'crash';
const ROOT = '$root';

/**
 * Every task is idempotent and retries after an uncertain attempt (a killed worker's, or one
 * whose answer a killed node lost): its lease ends (30 s: a workflow TASK has no attempt
 * timeout), the attempt is EXPIRED and the task runs again 0.1 s later. Void attempts (never
 * started) cost nothing.
 */
const RETRY = {
  max_attempts: 100,
  initial_interval: 'PT0.1S',
  backoff_coefficient: 1,
  max_interval: 'PT0.1S',
};

function task(id: string) {
  return {
    id,
    kind: 'TASK',
    queue: QUEUE,
    input: { n: '$.input.n', op: id },
    idempotent: true,
    retry: RETRY,
  };
}

/**
 * The workflow: TASK → BRANCH → TASK → PARALLEL(3 TASK) → TASK. The BRANCH takes its case
 * (`express`) when the input says so and its default (`standard`) otherwise, so every instance
 * runs 7 tasks and has exactly one SKIPPED static step.
 */
const WORKFLOW = {
  schema_version: 1,
  name: WORKFLOW_NAME,
  input: {
    type: 'object',
    required: ['n', 'express'],
    properties: { n: { type: 'integer' }, express: { type: 'boolean' } },
  },
  steps: [
    task('reserve'),
    {
      id: 'route',
      kind: 'BRANCH',
      cases: [{ when: { eq: ['$.input.express', true] }, steps: [task('express')] }],
      default: [task('standard')],
    },
    task('charge'),
    {
      id: 'ship',
      kind: 'PARALLEL',
      branches: { pack: [task('pack')], label: [task('label')], mail: [task('mail')] },
    },
    task('finish'),
  ],
  output: {
    n: '$.input.n',
    route: '$.steps.route.output',
    ship: '$.steps.ship.output',
    finish: '$.steps.finish.output',
  },
};

/** The static steps of the workflow with their kinds, the hidden `$root` included. */
const STEPS: Readonly<Record<string, string>> = {
  [ROOT]: 'ROOT',
  reserve: 'TASK',
  route: 'BRANCH',
  express: 'TASK',
  standard: 'TASK',
  charge: 'TASK',
  ship: 'PARALLEL',
  pack: 'TASK',
  label: 'TASK',
  mail: 'TASK',
  finish: 'TASK',
};
const TASKS_PER_INSTANCE = 7;

/** Instance n takes the BRANCH case for even n. */
function express(n: number): boolean {
  return n % 2 === 0;
}

/** The step instance n skips: the BRANCH case not taken. */
function skippedStep(n: number): string {
  return express(n) ? 'standard' : 'express';
}

/** The output instance n must end with: every task returns `{ op, n }`. */
function expectedOutput(n: number) {
  const out = (op: string) => ({ op, n });
  return {
    n,
    route: out(express(n) ? 'express' : 'standard'),
    ship: { pack: out('pack'), label: out('label'), mail: out('mail') },
    finish: out('finish'),
  };
}

/**
 * Every random choice of the run (kill intervals and victims here, handler delays in each worker
 * process, from a seed derived per process) comes from this seed: printed first, and
 * `WEAVE_CRASH_SEED=<seed>` replays the same choices (docs/design/crash-tests.md).
 */
const SEED = seedFrom(process.env, 'WEAVE_CRASH_SEED');
console.log(
  `weave crash test seed ${SEED} (replay its random choices with WEAVE_CRASH_SEED=${SEED})`,
);

const skip = DIALECTS.includes('mysql')
  ? false
  : 'the crash test runs only on MariaDB (several server nodes share one database); none reachable';

test(
  'two server nodes and four workers run 500 instances to SUCCEEDED through SIGKILLs, every step once',
  { skip, timeout: 600_000 },
  async () => {
    const started = Date.now();
    const db = await createEmptyDatabase('mysql');
    const cluster = new Cluster(db);
    try {
      await cluster.boot();
      const booted = Date.now();
      cluster.startWorkers();
      const chaos = cluster.chaos();
      const ids = await cluster.startAll();
      const startedAll = Date.now();
      await waitFor(async () => (await cluster.endedCount()) === INSTANCES || undefined, {
        timeoutMs: 480_000,
        intervalMs: 250,
        what: `all ${INSTANCES} instances ended (${cluster.describe()})`,
      });
      const ended = Date.now();
      await cluster.stopChaos(chaos);
      const report = await checkInvariants(cluster.sql, ids);
      printReport({
        ...report,
        starts: cluster.starts,
        serverKills: cluster.serverKills,
        serverKillsDuringStarts: cluster.serverKillsDuringStarts,
        workerKills: cluster.workerKills,
        startSeconds: seconds(startedAll - booted),
        runSeconds: seconds(ended - booted),
        seconds: seconds(Date.now() - started),
      });
      assert.ok(cluster.serverKills >= 3, `server nodes were killed (${cluster.serverKills})`);
      assert.ok(
        cluster.serverKillsDuringStarts >= 1,
        'a server node was killed while Starts were in flight',
      );
      assert.ok(cluster.workerKills >= 3, `workers were killed (${cluster.workerKills})`);
      assert.deepEqual(await cluster.stopServers(), [0, 0], 'both nodes stop cleanly on SIGTERM');
    } finally {
      await cluster.close();
      await db.drop();
    }
  },
);

interface StartCounts {
  /** Start requests sent (every try). */
  requests: number;
  /** Starts answered (one per n). */
  answered: number;
  /** Tries that got no answer (connection refused or reset: the node was down or died). */
  connectionErrors: number;
  /** Tries answered 5xx. */
  serverErrors: number;
  /** Answers that were a replay of an earlier Start with the same key (`idempotent-replayed`). */
  replayed: number;
}

/** The Weave crash test's Starts and chaos on the shared cluster (test/support/crash-cluster.ts). */
class Cluster extends CrashCluster {
  #starting = true;
  /** The server schedule draws from the seed, the worker schedule from a stream of its own. */
  readonly #serverRandom = seededRandom(SEED);
  readonly #workerRandom = seededRandom(deriveSeed(SEED, WORKER_SCHEDULE_STREAM));
  readonly #began = Date.now();
  #progressAt = Date.now();
  readonly starts: StartCounts = {
    requests: 0,
    answered: 0,
    connectionErrors: 0,
    serverErrors: 0,
    replayed: 0,
  };
  serverKillsDuringStarts = 0;

  constructor(db: TestDatabase) {
    super(db, {
      namespace: NAMESPACE,
      app: APP,
      queue: QUEUE,
      workers: WORKERS,
      workerJs: WORKER_JS,
      seed: SEED,
    });
  }

  override async boot(): Promise<void> {
    await super.boot();
    await this.client(0).workflows.publish(WORKFLOW);
  }

  /** A client of node `slot`; its fetch counts the Start answers that were replays. */
  override client(slot: number): WeaveClient {
    return super.client(slot, async (input, init) => {
      const response = await fetch(input, init);
      if (response.headers.get('idempotent-replayed') === 'true') {
        this.starts.replayed++;
      }
      return response;
    });
  }

  /**
   * 500 Starts, START_LANES at a time, instance n first on node n mod 2 with the key
   * `weave-crash-<n>`. A try without an answer (the node died or is restarting) or with a 5xx is
   * re-sent with the same key to the other node: the receipt makes it exactly one instance.
   * Returns the instance ids by n.
   */
  async startAll(): Promise<string[]> {
    const ids: string[] = new Array<string>(INSTANCES);
    let next = 0;
    const lane = async () => {
      for (let n = next++; n < INSTANCES; n = next++) {
        ids[n] = await this.#start(n);
        this.starts.answered++;
      }
    };
    try {
      await Promise.all(Array.from({ length: START_LANES }, lane));
    } finally {
      this.#starting = false;
    }
    return ids;
  }

  async #start(n: number): Promise<string> {
    for (let attempt = 0; ; attempt++) {
      this.starts.requests++;
      try {
        const { instance } = await this.client(n + attempt).instances.start(
          WORKFLOW_NAME,
          { input: { n, express: express(n) } },
          `weave-crash-${n}`,
        );
        return instance.id;
      } catch (e: unknown) {
        const answered = isWeaveApiError(e);
        if ((answered && e.status < 500) || attempt + 1 >= START_TRIES) {
          throw e;
        }
        if (answered) {
          this.starts.serverErrors++;
        } else {
          this.starts.connectionErrors++;
        }
        // sleep-ok: a pause before re-sending a Start that got no answer, not an ordering wait
        await pause(50 * Math.min(attempt + 1, 10));
      }
    }
  }

  /**
   * Two schedules until stopped, each interval ± 25 %: a worker every ~4 s; a server node ~5 s
   * after the previous restarted node is up (the first once 100 Starts are answered). A restart
   * does not hold up the worker schedule.
   */
  async chaos(): Promise<void> {
    let serverAt = Number.POSITIVE_INFINITY;
    let workerAt = Date.now() + interval(this.#workerRandom, WORKER_KILL_EVERY_MS);
    let restart: Promise<void> | undefined;
    let armed = false;
    try {
      while (!this.stopping) {
        // sleep-ok: the chaos cadence is the input of the test, not a wait for a condition
        await pause(CHAOS_TICK_MS);
        if (this.chaosError !== undefined) {
          return;
        }
        if (!armed && this.starts.answered >= FIRST_SERVER_KILL_AFTER_STARTS) {
          armed = true;
          serverAt = Date.now();
        }
        if (this.stopping) {
          break;
        }
        if (Date.now() >= workerAt) {
          this.killWorker(Math.floor(this.#workerRandom() * WORKERS));
          workerAt = Date.now() + interval(this.#workerRandom, WORKER_KILL_EVERY_MS);
        }
        if (restart === undefined && Date.now() >= serverAt) {
          serverAt = Number.POSITIVE_INFINITY;
          restart = this.#killServerDuringStarts(Math.floor(this.#serverRandom() * 2)).then(
            () => {
              restart = undefined;
              serverAt = Date.now() + interval(this.#serverRandom, SERVER_KILL_EVERY_MS);
            },
            (e: unknown) => {
              this.chaosError = e;
            },
          );
        }
      }
      await restart;
    } catch (e: unknown) {
      this.chaosError = e;
    }
  }

  /** A node killed (and restarted) by the chaos, counted when Starts were still in flight. */
  async #killServerDuringStarts(slot: number): Promise<void> {
    const duringStarts = this.#starting;
    await this.killServer(slot);
    if (duringStarts) {
      this.serverKillsDuringStarts++;
    }
  }

  /** Instances that ended (any terminal status); prints a progress line every 15 s. */
  async endedCount(): Promise<number> {
    const ended = await this.count(
      'SELECT COUNT(*) AS n FROM weave_instances WHERE finished_at IS NOT NULL',
    );
    if (Date.now() - this.#progressAt >= PROGRESS_EVERY_MS) {
      this.#progressAt = Date.now();
      console.log(
        `${seconds(Date.now() - this.#began)} s: ${this.starts.answered} started, ${ended} ended, ${this.describe()}`,
      );
    }
    return ended;
  }
}

interface Report {
  instances: number;
  tasks: number;
  attempts: Record<string, number>;
  inbox: Record<string, number>;
  activations: Record<string, number>;
  historyEvents: number;
  historyTypes: Record<string, number>;
  orbitEvents: number;
}

type Row = RowDataPacket;

async function checkInvariants(sql: Connection, ids: readonly string[]): Promise<Report> {
  const query = async (text: string, values: unknown[] = []) =>
    (await sql.query<Row[]>(text, values))[0];

  // Instances: exactly one per Start key, every one SUCCEEDED with the output its input implies.
  const instances = await query(
    'SELECT id, status, input, output, revision, history_seq FROM weave_instances ORDER BY id',
  );
  assert.equal(instances.length, INSTANCES, `${INSTANCES} distinct keys, as many instances`);
  assert.deepEqual(
    instances.map((i) => String(i.id)).sort(),
    [...ids].sort(),
    'exactly the instances the Starts answered',
  );
  const [receipts] = await query(
    `SELECT COUNT(*) AS n, COUNT(DISTINCT idempotency_key) AS keys_,
       COUNT(DISTINCT JSON_VALUE(response, '$.instance.id')) AS instances_
     FROM receipts WHERE idempotency_key LIKE 'weave-crash-%'`,
  );
  assert.deepEqual(
    [receipts?.n, receipts?.keys_, receipts?.instances_].map(Number),
    [INSTANCES, INSTANCES, INSTANCES],
    'one Start receipt per key, each naming its own instance',
  );
  const nOf = new Map<string, number>();
  for (const i of instances) {
    const input = JSON.parse(String(i.input)) as { n: number; express: boolean };
    nOf.set(String(i.id), input.n);
    assert.equal(i.status, 'SUCCEEDED', `instance ${i.id} (n = ${input.n}) SUCCEEDED`);
    assert.equal(input.express, express(input.n), `instance ${i.id}: the input of its Start`);
    assert.deepEqual(
      JSON.parse(String(i.output)),
      expectedOutput(input.n),
      `instance ${i.id} has the output of its own tasks`,
    );
  }
  assert.deepEqual(
    [...nOf.values()].sort((a, b) => a - b),
    Array.from({ length: INSTANCES }, (_, n) => n),
    'one instance per n',
  );

  // Steps and activations: every executed static step (and `$root`) exactly one activation, the
  // step not taken none; a TASK activation ends with its step (SUCCEEDED).
  const steps = await query(
    `SELECT s.instance_id, s.step_id, s.kind, s.status, s.activation_count,
       COUNT(a.id) AS activations, SUM(a.id = s.current_activation_id) AS current_,
       SUM(a.status = 'SUCCEEDED' AND a.finished_at IS NOT NULL) AS finished
     FROM weave_steps s
     LEFT JOIN weave_activations a ON a.step_row_id = s.id AND a.instance_id = s.instance_id
       AND a.namespace_id = s.namespace_id
     GROUP BY s.id, s.instance_id, s.step_id, s.kind, s.status, s.activation_count`,
  );
  const stepIds = Object.keys(STEPS).sort();
  const stepsOf = groupBy(steps, (s) => String(s.instance_id));
  assert.equal(stepsOf.size, INSTANCES, 'every instance has its step rows');
  for (const [instanceId, rows] of stepsOf) {
    assert.ok(nOf.has(instanceId), `step rows of an unknown instance ${instanceId}`);
    const n = nOf.get(instanceId) ?? -1;
    assert.deepEqual(rows.map((r) => String(r.step_id)).sort(), stepIds, `${instanceId}: steps`);
    for (const r of rows) {
      const stepId = String(r.step_id);
      const what = `instance ${instanceId} (n = ${n}) step ${stepId}`;
      assert.equal(r.kind, STEPS[stepId], `${what}: kind`);
      const skipped = stepId === skippedStep(n);
      assert.equal(r.status, skipped ? 'SKIPPED' : 'SUCCEEDED', `${what}: status`);
      const once = skipped ? 0 : 1;
      assert.deepEqual(
        [r.activations, r.current_ ?? 0, r.activation_count].map(Number),
        [once, once, once],
        `${what}: ${skipped ? 'no activation (case not taken)' : 'exactly one activation'}`,
      );
      if (r.kind === 'TASK') {
        assert.equal(Number(r.finished ?? 0), once, `${what}: its activation SUCCEEDED`);
      }
    }
  }
  const activations: Record<string, number> = {};
  for (const row of await query(
    'SELECT kind, status, COUNT(*) AS n FROM weave_activations GROUP BY kind, status',
  )) {
    activations[`${row.kind} ${row.status}`] = Number(row.n);
  }

  assert.deepEqual(
    Object.keys(activations).filter((k) => !k.endsWith(' SUCCEEDED')),
    [],
    'every activation, composites and $root too, ended SUCCEEDED',
  );

  // Tasks: every one owned by an activation of an instance of the test (the workflow has no POLL,
  // whose query tasks are owned by their activation too), with its step's input; every TASK
  // activation's task present and owned by it (no orphan either way).
  const tasks = await query(
    `SELECT t.id, t.status, t.owner_kind, t.owner_id, t.input,
       a.id AS activation_id, a.instance_id, a.step_id, a.task_id AS owners_task_id
     FROM tasks t
     LEFT JOIN weave_activations a ON t.owner_kind = ? AND a.id = t.owner_id
       AND a.namespace_id = t.namespace_id
     ORDER BY t.id`,
    [OWNER_ACTIVATION],
  );
  assert.equal(
    tasks.length,
    INSTANCES * TASKS_PER_INSTANCE,
    `exactly ${TASKS_PER_INSTANCE} tasks per instance`,
  );
  /** `instance/step` → task id, and task id → its instance and step. */
  const taskOfStep = new Map<string, string>();
  const taskById = new Map<string, { instanceId: string; stepId: string }>();
  for (const t of tasks) {
    const what = `task ${t.id} (${t.owner_kind} ${t.owner_id})`;
    assert.ok(t.owner_kind === OWNER_ACTIVATION, `${what}: a workflow task`);
    assert.ok(t.activation_id !== null, `${what}: its owner exists (no orphan)`);
    assert.equal(String(t.owners_task_id), String(t.id), `${what}: its owner points back at it`);
    const n = nOf.get(String(t.instance_id));
    assert.ok(n !== undefined, `${what}: its activation belongs to an instance of the test`);
    const input = JSON.parse(String(t.input)) as { n: number; op: string };
    assert.deepEqual(input, { n, op: String(t.step_id) }, `${what}: the input of its own step`);
    assert.equal(t.status, 'SUCCEEDED', `${what}: SUCCEEDED`);
    taskOfStep.set(`${t.instance_id}/${t.step_id}`, String(t.id));
    taskById.set(String(t.id), { instanceId: String(t.instance_id), stepId: String(t.step_id) });
  }
  const taskless = await query(
    `SELECT a.id, a.instance_id, a.step_id, a.task_id FROM weave_activations a
     LEFT JOIN tasks t ON t.id = a.task_id AND t.owner_kind = ? AND t.owner_id = a.id
     WHERE a.kind = 'TASK' AND t.id IS NULL`,
    [OWNER_ACTIVATION],
  );
  assert.deepEqual(taskless, [], 'every TASK activation has its task, owned by it');
  const [leftovers] = await query(
    `SELECT (SELECT COUNT(*) FROM weave_waits) AS waits,
       (SELECT COUNT(*) FROM weave_poll_rounds) AS rounds,
       (SELECT COUNT(*) FROM weave_gates WHERE state <> 'CLOSED') AS open_gates`,
  );
  assert.deepEqual(
    [leftovers?.waits, leftovers?.rounds, leftovers?.open_gates].map(Number),
    [0, 0, 0],
    'no wait and no poll round (none in the workflow), every gate closed',
  );

  // Inbox and pending advances: nothing left to consume, nothing quarantined; each task's result
  // applied exactly once.
  const unfinished = await query(
    `SELECT id, instance_id, state, error_code FROM weave_inbox WHERE state <> 'PROCESSED'`,
  );
  assert.deepEqual(unfinished, [], 'no weave_inbox row PENDING or QUARANTINED (all PROCESSED)');
  const inbox: Record<string, number> = {};
  for (const r of await query(
    'SELECT state, outcome, COUNT(*) AS n FROM weave_inbox GROUP BY state, outcome',
  )) {
    inbox[`${r.state} ${r.outcome}`] = Number(r.n);
  }
  const [applied] = await query(
    `SELECT COUNT(*) AS n, COUNT(DISTINCT source_task_id) AS tasks_ FROM weave_inbox
     WHERE outcome = 'APPLIED'`,
  );
  assert.deepEqual(
    [applied?.n, applied?.tasks_].map(Number),
    [tasks.length, tasks.length],
    'every task result applied exactly once',
  );
  const advances = await query('SELECT id, instance_id FROM weave_pending_advances');
  assert.deepEqual(advances, [], 'no weave_pending_advances row');

  // History (the types runtime/history.ts and round-history.ts write): per instance seqs 1..n
  // without a gap, `instance.admitted` first, one `step.activated` per executed step (a TASK's
  // naming its task), one `step.completed` per executed step, one `result.applied` per task, one
  // `step.skipped` for the case not taken, `instance.succeeded` last.
  const history = await query(
    `SELECT instance_id, seq, type, step_id, activation_id, task_id,
       JSON_VALUE(details, '$.task_id') AS result_task, JSON_VALUE(details, '$.event') AS event
     FROM weave_history ORDER BY instance_id, seq`,
  );
  const historyTypes: Record<string, number> = {};
  for (const h of history) {
    historyTypes[String(h.type)] = (historyTypes[String(h.type)] ?? 0) + 1;
  }
  const historyOf = groupBy(history, (h) => String(h.instance_id));
  for (const i of instances) {
    const id = String(i.id);
    const n = nOf.get(id) ?? -1;
    const list = historyOf.get(id) ?? [];
    const what = `instance ${id} (n = ${n}) history`;
    assert.deepEqual(
      list.map((h) => Number(h.seq)),
      Array.from({ length: list.length }, (_, k) => k + 1),
      `${what}: seqs 1..n without a gap`,
    );
    assert.equal(Number(i.history_seq), list.length, `${what}: the instance's last seq`);
    assert.equal(list[0]?.type, 'instance.admitted', `${what}: admitted first`);
    assert.equal(list[list.length - 1]?.type, 'instance.succeeded', `${what}: succeeded last`);
    const lines = list.map((h) => {
      if (h.type === 'result.applied') {
        const task = taskById.get(String(h.result_task));
        assert.equal(task?.instanceId, id, `${what}: result of task ${h.result_task} is its own`);
        assert.equal(h.event, 'task.succeeded', `${what}: task ${h.result_task} succeeded`);
        return `result.applied ${task?.stepId}`;
      }
      if (h.type === 'step.activated' && STEPS[String(h.step_id)] === 'TASK') {
        const task = taskOfStep.get(`${id}/${h.step_id}`);
        assert.equal(String(h.task_id), task, `${what}: ${h.step_id} activated with its task`);
      }
      return `${h.type} ${h.step_id ?? '-'}`;
    });
    assert.deepEqual(lines.sort(), expectedHistory(n), `${what}: every step once`);
  }

  // Orbit: each application's default stream holds exactly one outcome per task
  // (`task.succeeded`, docs/results.md) and per instance (`instance.succeeded`), each at its final
  // revision, and nothing else; seqs 1..n without a gap on each stream.
  const outcomes = await query(
    `SELECT e.source_kind, e.source_id, e.type, COUNT(*) AS n,
       SUM(e.source_revision = COALESCE(i.revision, t.revision)) AS final_
     FROM orbit_result_events e
     LEFT JOIN weave_instances i ON e.source_kind = 'instance' AND i.id = e.source_id
     LEFT JOIN tasks t ON e.source_kind = 'task' AND t.id = e.source_id
     GROUP BY e.source_kind, e.source_id, e.type`,
  );
  const known = (o: Row) =>
    o.source_kind === 'instance'
      ? o.type === 'instance.succeeded' && nOf.has(String(o.source_id))
      : o.source_kind === 'task' &&
        o.type === 'task.succeeded' &&
        taskById.has(String(o.source_id));
  assert.deepEqual(
    outcomes
      .filter((o) => Number(o.n) !== 1 || Number(o.final_) !== 1 || !known(o))
      .map((o) => `${o.source_kind} ${o.source_id} ${o.type}: ${o.n} events, ${o.final_} final`),
    [],
    'exactly one outcome event per instance and per task, at its final revision',
  );
  const instanceEvents = outcomes.filter((o) => o.source_kind === 'instance').length;
  assert.equal(instanceEvents, INSTANCES, 'an instance.succeeded event for every instance');
  assert.equal(outcomes.length - instanceEvents, tasks.length, 'a task.succeeded for every task');
  const streams = await query(
    `SELECT stream_id, COUNT(*) AS n, MIN(seq) AS lo, MAX(seq) AS hi FROM orbit_result_events
     GROUP BY stream_id ORDER BY stream_id`,
  );
  assert.equal(streams.length, 1, "the application's default stream, and no other");
  for (const s of streams) {
    assert.deepEqual(
      [s.lo, s.hi].map(Number),
      [1, Number(s.n)],
      `stream ${s.stream_id}: seqs 1..n without a gap`,
    );
  }

  const attempts: Record<string, number> = {};
  for (const row of await query(
    'SELECT status, COUNT(*) AS n FROM task_attempts GROUP BY status ORDER BY status',
  )) {
    attempts[String(row.status)] = Number(row.n);
  }
  return {
    instances: instances.length,
    tasks: tasks.length,
    attempts,
    inbox,
    activations,
    historyEvents: history.length,
    historyTypes,
    orbitEvents: instanceEvents,
  };
}

function groupBy(rows: readonly Row[], key: (row: Row) => string): Map<string, Row[]> {
  const groups = new Map<string, Row[]>();
  for (const row of rows) {
    const list = groups.get(key(row)) ?? [];
    list.push(row);
    groups.set(key(row), list);
  }
  return groups;
}

/**
 * What the history of instance n must hold, sorted (seq order is checked apart): every executed
 * step `step.completed` once, and a TASK step's result `result.applied` once.
 */
function expectedHistory(n: number): string[] {
  const skipped = skippedStep(n);
  const executed = Object.keys(STEPS).filter((s) => s !== skipped);
  return [
    'instance.admitted -',
    'instance.succeeded -',
    `step.skipped ${skipped}`,
    ...executed.map((s) => `step.activated ${s}`),
    ...executed.map((s) => `step.completed ${s}`),
    ...executed.filter((s) => STEPS[s] === 'TASK').map((s) => `result.applied ${s}`),
  ].sort();
}

function printReport(
  report: Report & {
    starts: StartCounts;
    serverKills: number;
    serverKillsDuringStarts: number;
    workerKills: number;
    startSeconds: number;
    runSeconds: number;
    seconds: number;
  },
): void {
  const line = (label: string, value: number | string) =>
    console.log(`  ${label.padEnd(40)} ${String(value).padStart(7)}`);
  console.log(
    `weave crash test on MariaDB: 2 server nodes, ${WORKERS} worker processes, ${INSTANCES} instances`,
  );
  console.log(`seed ${SEED} (WEAVE_CRASH_SEED)`);
  console.log('instances and starts');
  line('instances SUCCEEDED', report.instances);
  line('Start requests (every try)', report.starts.requests);
  line('Start tries without an answer', report.starts.connectionErrors);
  line('Start tries answered 5xx', report.starts.serverErrors);
  line('Start answers replayed (same key)', report.starts.replayed);
  console.log('work');
  line('tasks (all SUCCEEDED)', report.tasks);
  for (const [key, n] of Object.entries(report.activations).sort()) {
    line(`activations ${key}`, n);
  }
  for (const [key, n] of Object.entries(report.attempts)) {
    line(`attempts ${key}`, n);
  }
  for (const [key, n] of Object.entries(report.inbox)) {
    line(`inbox ${key}`, n);
  }
  line('history events', report.historyEvents);
  for (const [key, n] of Object.entries(report.historyTypes).sort()) {
    line(`  ${key}`, n);
  }
  line('orbit instance.succeeded events', report.orbitEvents);
  console.log('chaos and time');
  line('server nodes SIGKILLed', report.serverKills);
  line('  of them while Starts were in flight', report.serverKillsDuringStarts);
  line('workers SIGKILLed', report.workerKills);
  line('seconds starting 500 instances', report.startSeconds);
  line('seconds until all ended', report.runSeconds);
  line('seconds in all', report.seconds);
}
