/**
 * The systems of the burn-down bench (burn-down.ts): how each one is set up on a fresh database,
 * pre-enqueued, submitted to one job at a time, counted (jobs not yet done) and how its commit
 * counter is read. Everything runs on loopback.
 */
import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Sqlite from 'better-sqlite3';
import { createConnection } from 'mysql2/promise';
import type { Connection, RowDataPacket } from 'mysql2/promise';
import pg from 'pg';
import type PgBoss from 'pg-boss';
import type { WorkerUtils } from 'graphile-worker';
import { WeaveClient } from '@weave/sdk';
import type { WorkerConfig } from './burn-down-worker.js';
import { WEAVE_BIN, bootstrapKey } from './weave-processes.js';

const MYSQL = { host: '127.0.0.1', port: 3306, user: 'root', password: '' };
const PG_ADMIN = 'postgres://postgres@127.0.0.1:5432/postgres';

/**
 * How the systems measured reach their database (`--transport`, burn-down.ts): `socket` (the
 * default since run 40) over the server's Unix socket, Pulse's MariaDB (`?socket=`) and the
 * PostgreSQL peers alike; `tcp` over 127.0.0.1, as runs 1–39. The harness's own connections
 * (set-up, drain checks, counters) use TCP either way.
 */
function overSockets(): boolean {
  return process.env['WEAVE_BENCH_TRANSPORT'] !== 'tcp';
}

/** The socket (or socket directory) a server reports; none: the run stops, naming `--transport tcp`. */
function socketOrThrow(path: string | null | undefined, server: string): string {
  if (path === undefined || path === null || path === '') {
    throw new Error(`${server} reports no Unix socket: run with --transport tcp`);
  }
  return path;
}
const QUEUE = 'noop';
const NAMESPACE = 'bench';
const APP = 'bench';

/**
 * `--input-bytes N`: each drained job's input carries a string of N bytes (default 0), for the
 * cost of larger payloads; the paced jobs keep their small input.
 */
let padding = '';
export function padInputsTo(bytes: number): void {
  padding = 'x'.repeat(Math.max(0, bytes));
}

let handlerMs = 0;

/** `--handler-ms N`: each drained job's handler takes N ms (a timer, no CPU), 0 = no-op. */
export function handlersTake(ms: number): void {
  handlerMs = Math.max(0, ms);
}

/** A drained job's input: its number, the padding and the handler's time when there are. */
function drainInput(i: number): { i: number; pad?: string; ms?: number } {
  return {
    i,
    ...(padding === '' ? {} : { pad: padding }),
    ...(handlerMs === 0 ? {} : { ms: handlerMs }),
  };
}

export interface Commits {
  /** The counter used for commits per job. */
  readonly commits: number;
  /** MariaDB only: `Handler_commit` (every statement commit, reads included). */
  readonly handler?: number;
  /** MariaDB only: InnoDB buffer-pool page requests and the pages it had to read from disk. */
  readonly pages?: { readonly requests: number; readonly fromDisk: number };
  /** Pulse only: grouped worker-call transactions and the calls they held, over all nodes. */
  readonly groups?: { readonly count: number; readonly calls: number };
}

export interface System {
  readonly name: string;
  readonly kind: 'pulse' | 'pg-boss' | 'graphile-worker';
  setup(): Promise<void>;
  /** Pre-enqueues `n` no-op jobs (not timed). */
  enqueue(n: number): Promise<void>;
  /** Submits one job with this payload (paced phase). */
  submit(payload: { t: number; paced: true }): Promise<void>;
  /**
   * Whether any job is not yet completed. An existence check, not a count: the harness asks every
   * 50 ms during the drain, and a count of the jobs left read ~5,000 index entries a time on
   * MariaDB (4–5 % of a core, charged to the system measured).
   */
  anyLeft(): Promise<boolean>;
  /** The database's own commit counter, or undefined (SQLite). */
  commits(): Promise<Commits | undefined>;
  /** Read-only queries this harness issued on the bench database (subtracted from PG counts). */
  readonly ownQueries: number;
  /** The server processes this system started (none for the PostgreSQL queues). */
  readonly serverPids: readonly number[];
  workerConfig(slot: number, concurrency: number): WorkerConfig;
  teardown(): Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// Pulse

interface Node {
  readonly child: ChildProcessWithoutNullStreams;
  readonly url: string;
}

function startNode(db: string): Promise<Node> {
  // WEAVE_BENCH_NODE_ARGS: extra node flags for the server nodes (e.g. `--cpu-prof`).
  const nodeArgs = (process.env['WEAVE_BENCH_NODE_ARGS'] ?? '').split(' ').filter((a) => a !== '');
  const args = [...nodeArgs, WEAVE_BIN, 'server', '--db', db, '--port', '0'];
  const child = spawn(process.execPath, args, {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, WEAVE_LOG_LEVEL: 'error' },
  });
  // WEAVE_BENCH_NODE_OUT: a directory that keeps each server node's standard output (what a flag
  // such as `--trace-gc` prints), as node-<pid>.log; without it the output is dropped.
  const out = process.env['WEAVE_BENCH_NODE_OUT'];
  if (out === undefined) {
    child.stdout.resume();
  } else {
    child.stdout.pipe(createWriteStream(join(out, `node-${child.pid ?? 'unknown'}.log`)));
  }
  return new Promise((resolve, reject) => {
    let err = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`weave server did not start: ${err}`));
    }, 20_000);
    const onData = (d: Buffer) => {
      err += d.toString();
      const m = /listening at (\S+)/.exec(err);
      if (m?.[1] !== undefined) {
        clearTimeout(timer);
        child.stderr.off('data', onData);
        child.stderr.resume();
        resolve({ child, url: m[1] });
      }
    };
    child.stderr.on('data', onData);
  });
}

function stopNode(node: Node): Promise<void> {
  return new Promise((resolve) => {
    if (node.child.exitCode !== null) {
      resolve();
      return;
    }
    const kill = setTimeout(() => node.child.kill('SIGKILL'), 10_000);
    node.child.once('exit', () => {
      clearTimeout(kill);
      resolve();
    });
    node.child.kill('SIGTERM');
  });
}

export class PulseSystem implements System {
  readonly kind = 'pulse';
  readonly name: string;
  readonly #dialect: 'mysql' | 'sqlite';
  readonly #nodes: number;
  readonly #worker: 'pulse-sdk' | 'pulse-batch';
  #db = '';
  #dir = '';
  #dbName = '';
  #key = '';
  #running: Node[] = [];

  get serverPids(): readonly number[] {
    return this.#running.flatMap((node) => (node.child.pid === undefined ? [] : [node.child.pid]));
  }
  #sql: Connection | undefined;
  #sqlite: Sqlite.Database | undefined;
  ownQueries = 0;

  readonly #batch: { readonly loops: number; readonly batchSize: number } | undefined;

  /** `batch`: pulse-batch with pg-boss's shape (loops × batch size per process). */
  constructor(
    dialect: 'mysql' | 'sqlite',
    nodes: number,
    worker: 'pulse-sdk' | 'pulse-batch',
    batch?: { readonly loops: number; readonly batchSize: number },
  ) {
    this.#dialect = dialect;
    this.#nodes = nodes;
    this.#worker = worker;
    this.#batch = batch;
    const db = dialect === 'mysql' ? 'MariaDB' : 'SQLite';
    const mode =
      worker === 'pulse-sdk'
        ? 'SDK Worker'
        : batch === undefined
          ? 'batched'
          : `${batch.loops} loops × batch ${batch.batchSize}`;
    this.name = `Pulse ${db}, ${nodes} node${nodes > 1 ? 's' : ''} (${mode})`;
  }

  async setup(): Promise<void> {
    if (this.#dialect === 'mysql') {
      this.#dbName = `weave_bench_${process.pid}_${Date.now()}`;
      this.#sql = await createConnection(MYSQL);
      await this.#sql.query(`CREATE DATABASE ${this.#dbName}`);
      await this.#sql.query(`USE ${this.#dbName}`);
      if (overSockets()) {
        const [rows] = await this.#sql.query('SELECT @@socket AS s');
        const socket = socketOrThrow((rows as { s: string | null }[])[0]?.s, 'MariaDB');
        this.#db = `mysql://root@localhost/${this.#dbName}?socket=${socket}`;
      } else {
        this.#db = `mysql://root@127.0.0.1:3306/${this.#dbName}`;
      }
    } else {
      this.#dir = mkdtempSync(join(tmpdir(), 'weave-bench-'));
      this.#db = join(this.#dir, 'weave.sqlite');
    }
    this.#key = await bootstrapKey(this.#db, { namespace: NAMESPACE, app: APP, queue: QUEUE });
    for (let i = 0; i < this.#nodes; i++) {
      this.#running.push(await startNode(this.#db));
    }
    await this.#client(0).updateApplication(APP, { quota: { max_active_tasks: 1_000_000 } });
    if (this.#dialect === 'sqlite') {
      this.#sqlite = new Sqlite(this.#db, { readonly: true });
    }
  }

  #client(i: number): WeaveClient {
    const node = this.#running[i % this.#running.length];
    return new WeaveClient({ url: node?.url ?? '', namespace: NAMESPACE, apiKey: this.#key });
  }

  async enqueue(n: number): Promise<void> {
    const clients = this.#running.map((_, i) => this.#client(i));
    let next = 0;
    const lane = async () => {
      for (let i = next++; i < n; i = next++) {
        await clients[i % clients.length]?.submitTask(QUEUE, {
          input: drainInput(i),
          idempotent: true,
        });
      }
    };
    await Promise.all(Array.from({ length: 32 }, lane));
  }

  #submits = 0;
  async submit(payload: { t: number; paced: true }): Promise<void> {
    await this.#client(this.#submits++).submitTask(QUEUE, { input: payload, idempotent: true });
  }

  async anyLeft(): Promise<boolean> {
    this.ownQueries++;
    const sql = "SELECT 1 AS n FROM tasks WHERE status IN ('PENDING','CLAIMED','RUNNING') LIMIT 1";
    if (this.#sqlite !== undefined) {
      return this.#sqlite.prepare(sql).get() !== undefined;
    }
    const [rows] = await (this.#sql as Connection).query<RowDataPacket[]>(sql);
    return rows.length > 0;
  }

  async commits(): Promise<Commits | undefined> {
    const groups = await this.#groups();
    if (this.#sql === undefined) {
      return { commits: Number.NaN, groups };
    }
    const [rows] = await this.#sql.query<RowDataPacket[]>(
      'SHOW GLOBAL STATUS WHERE Variable_name IN ' +
        "('Handler_commit', 'Com_commit', 'Innodb_buffer_pool_read_requests', " +
        "'Innodb_buffer_pool_reads')",
    );
    const get = (name: string) =>
      Number(rows.find((r) => r.Variable_name === name)?.Value ?? Number.NaN);
    return {
      commits: get('Com_commit'),
      handler: get('Handler_commit'),
      pages: {
        requests: get('Innodb_buffer_pool_read_requests'),
        fromDisk: get('Innodb_buffer_pool_reads'),
      },
      groups,
    };
  }

  /** `weave_group_commit_items{group="worker_calls"}` count and sum, summed over the nodes. */
  async #groups(): Promise<{ count: number; calls: number }> {
    let count = 0;
    let calls = 0;
    for (const node of this.#running) {
      const text = await (await fetch(`${node.url}/metrics`)).text();
      const value = (name: string) =>
        Number(new RegExp(`^${name}\\{group="worker_calls"\\} (\\S+)$`, 'm').exec(text)?.[1] ?? 0);
      count += value('weave_group_commit_items_count');
      calls += value('weave_group_commit_items_sum');
    }
    return { count, calls };
  }

  workerConfig(slot: number, concurrency: number): WorkerConfig {
    return {
      system: this.#worker,
      url: this.#running[slot % this.#running.length]?.url ?? '',
      namespace: NAMESPACE,
      key: this.#key,
      queue: QUEUE,
      concurrency,
      ...(this.#batch === undefined ? {} : this.#batch),
    };
  }

  async teardown(): Promise<void> {
    await Promise.all(this.#running.map(stopNode));
    this.#sqlite?.close();
    if (this.#sql !== undefined) {
      await this.#sql.query(`DROP DATABASE IF EXISTS ${this.#dbName}`);
      await this.#sql.end();
    }
    if (this.#dir !== '') {
      rmSync(this.#dir, { recursive: true, force: true });
    }
  }
}

// ---------------------------------------------------------------------------------------------
// PostgreSQL peers

abstract class PgSystem {
  protected readonly dbName = `weave_bench_${process.pid}_${Date.now()}`;
  /** The systems' own URL (`overSockets`); set by `createDatabase`. */
  protected url = '';
  /** The harness's URL (TCP). */
  protected readonly harnessUrl = `postgres://postgres@127.0.0.1:5432/${this.dbName}`;
  protected probe: pg.Client | undefined;
  ownQueries = 0;
  readonly serverPids: readonly number[] = [];

  protected async createDatabase(): Promise<void> {
    const admin = new pg.Client(PG_ADMIN);
    await admin.connect();
    try {
      await admin.query(`CREATE DATABASE ${this.dbName}`);
      this.url = overSockets() ? await this.#socketUrl(admin) : this.harnessUrl;
    } finally {
      await admin.end();
    }
  }

  /** The database's URL over the server's first Unix socket directory. */
  async #socketUrl(admin: pg.Client): Promise<string> {
    const dirs = await admin.query<{ d: string }>(
      "SELECT current_setting('unix_socket_directories') AS d",
    );
    const dir = socketOrThrow(dirs.rows[0]?.d.split(',')[0]?.trim(), 'PostgreSQL');
    return `postgres://postgres@/${this.dbName}?host=${encodeURIComponent(dir)}`;
  }

  /** Whether `sql` returns a row, on the harness's own connection (counted in `ownQueries`). */
  protected async exists(sql: string, params: unknown[] = []): Promise<boolean> {
    if (this.probe === undefined) {
      this.probe = new pg.Client(this.harnessUrl);
      await this.probe.connect();
    }
    this.ownQueries++;
    return (await this.probe.query(sql, params)).rows.length > 0;
  }

  /**
   * `xact_commit` of the bench database. The probe connection is closed first (a backend
   * flushes its statistics when it exits), so the counter includes everything so far.
   */
  async commits(): Promise<Commits | undefined> {
    await this.probe?.end();
    this.probe = undefined;
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    const admin = new pg.Client(PG_ADMIN);
    await admin.connect();
    await admin.query('SELECT pg_stat_clear_snapshot()');
    const result = await admin.query<{ n: string }>(
      'SELECT xact_commit AS n FROM pg_stat_database WHERE datname = $1',
      [this.dbName],
    );
    await admin.end();
    return { commits: Number(result.rows[0]?.n) };
  }

  protected async dropDatabase(): Promise<void> {
    await this.probe?.end();
    const admin = new pg.Client(PG_ADMIN);
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${this.dbName} WITH (FORCE)`);
    await admin.end();
  }
}

export class PgBossSystem extends PgSystem implements System {
  readonly kind = 'pg-boss';
  readonly name: string;
  readonly #batchSize: number;
  #boss: PgBoss | undefined;

  constructor(batchSize: number) {
    super();
    this.#batchSize = batchSize;
    this.name = `pg-boss 10.4.2 (batch ${batchSize})`;
  }

  async setup(): Promise<void> {
    await this.createDatabase();
    const PgBoss = (await import('pg-boss')).default;
    this.#boss = new PgBoss({ connectionString: this.url, supervise: false, schedule: false });
    this.#boss.on('error', (e) => console.error('pg-boss:', e));
    await this.#boss.start();
    await this.#boss.createQueue(QUEUE);
  }

  async enqueue(n: number): Promise<void> {
    for (let i = 0; i < n; i += 1_000) {
      const jobs = Array.from({ length: Math.min(1_000, n - i) }, (_, k) => ({
        name: QUEUE,
        data: drainInput(i + k),
      }));
      await this.#boss?.insert(jobs);
    }
  }

  async submit(payload: { t: number; paced: true }): Promise<void> {
    await this.#boss?.send(QUEUE, payload);
  }

  anyLeft(): Promise<boolean> {
    return this.exists(
      "SELECT 1 FROM pgboss.job WHERE name = $1 AND state <> 'completed' LIMIT 1",
      [QUEUE],
    );
  }

  workerConfig(_slot: number, concurrency: number): WorkerConfig {
    return {
      system: 'pg-boss',
      url: this.url,
      queue: QUEUE,
      concurrency,
      batchSize: this.#batchSize,
    };
  }

  async teardown(): Promise<void> {
    await this.#boss?.stop({ graceful: false, wait: true });
    await this.dropDatabase();
  }
}

export class GraphileSystem extends PgSystem implements System {
  readonly kind = 'graphile-worker';
  readonly name = 'graphile-worker 0.17.3';
  #utils: WorkerUtils | undefined;
  #pool: pg.Pool | undefined;

  /**
   * The utilities get a pool of the harness's own: graphile-worker's `release()` ends a pool it
   * made without waiting, after removing its error listener, so the database's forced drop could
   * reach an idle connection of it and end the harness with an unhandled 'error' event.
   */
  async setup(): Promise<void> {
    await this.createDatabase();
    const { makeWorkerUtils } = await import('graphile-worker');
    this.#pool = new pg.Pool({ connectionString: this.url });
    this.#pool.on('error', () => undefined);
    this.#utils = await makeWorkerUtils({ pgPool: this.#pool });
    await this.#utils.migrate();
  }

  async enqueue(n: number): Promise<void> {
    for (let i = 0; i < n; i += 1_000) {
      const specs = Array.from({ length: Math.min(1_000, n - i) }, (_, k) => ({
        identifier: QUEUE,
        payload: drainInput(i + k),
      }));
      await this.#utils?.addJobs(specs);
    }
  }

  async submit(payload: { t: number; paced: true }): Promise<void> {
    await this.#utils?.addJob(QUEUE, payload);
  }

  anyLeft(): Promise<boolean> {
    return this.exists('SELECT 1 FROM graphile_worker._private_jobs LIMIT 1');
  }

  workerConfig(_slot: number, concurrency: number): WorkerConfig {
    return { system: 'graphile-worker', url: this.url, queue: QUEUE, concurrency };
  }

  async teardown(): Promise<void> {
    await this.#utils?.release();
    await this.#pool?.end();
    await this.dropDatabase();
  }
}
