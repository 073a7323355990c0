/**
 * Weave in the workflow bench (workflow.ts), on MariaDB or SQLite: a fresh database, `weave
 * bootstrap`, one server process (workflow-server.js, or the plain `weave server` with
 * `--plain`), worker processes with the SDK `Worker` as shipped (workflow-worker.js), clients
 * in this process with the SDK client. A client learns that its instance ended from the Orbit
 * stream every bench instance reports to (`result_stream` at Start), read with one long-poll.
 * Figures come from the database afterwards: step, task, inbox and wait rows carry the DB times
 * of the transactions that wrote them.
 */
import { fork } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import Sqlite from 'better-sqlite3';
import { createConnection } from 'mysql2/promise';
import type { Connection, RowDataPacket } from 'mysql2/promise';
import { WeaveClient } from '@weave/sdk';
import {
  APP,
  ENDS_STREAM,
  NAMESPACE,
  QUEUE,
  S2,
  S3,
  TIMERS,
  s4Definition,
} from './workflow-defs.js';
import { cpuMsOf } from './workflow-machine.js';
import type { WorkflowWorkerConfig } from './workflow-worker.js';
import type { ServerStats } from './workflow-server.js';
import { WEAVE_BIN, bootstrapKey, forkReady } from './weave-processes.js';
import type {
  BenchSystem,
  Counters,
  ScenarioId,
  ScenarioResult,
  Sizes,
  SystemInfo,
} from './workflow-types.js';

const SERVER_JS = fileURLToPath(new URL('./workflow-server.js', import.meta.url));
const WORKER_JS = fileURLToPath(new URL('./workflow-worker.js', import.meta.url));
const MYSQL = { host: '127.0.0.1', port: 3306, user: 'root', password: '' };
/** Upper bound of one scenario (a stuck run fails instead of hanging). */
const SCENARIO_TIMEOUT_MS = 600_000;

export interface WeaveOptions {
  /** Worker processes (SDK `Worker`, default options: concurrency 10 each). */
  readonly workers: number;
  /** Run `weave server` itself: no statement counts, no planner timing. */
  readonly plain: boolean;
}

/** Reads for the figures, on the harness's own connection. */
interface Reader {
  all(sql: string, params?: readonly unknown[]): Promise<Record<string, unknown>[]>;
  close(): Promise<void>;
}

function mysqlReader(connection: Connection): Reader {
  return {
    async all(sql, params = []) {
      const [rows] = await connection.query<RowDataPacket[]>(sql, [...params] as (
        string | number
      )[]);
      return rows;
    },
    close: () => connection.end(),
  };
}

function sqliteReader(path: string): Reader {
  const db = new Sqlite(path, { readonly: true });
  return {
    all: (sql, params = []) =>
      Promise.resolve(db.prepare(sql).all(...params) as Record<string, unknown>[]),
    close: () => Promise.resolve(void db.close()),
  };
}

function num(v: unknown): number {
  return Number(v);
}

interface End {
  /** `performance.now()` when the harness read the end event. */
  readonly at: number;
  readonly type: string;
}

/** One long-poll over the ends stream; resolves each instance's waiter when its event arrives. */
class EndWatcher {
  readonly #waiters = new Map<string, (end: End) => void>();
  readonly #early = new Map<string, End>();
  readonly #abort = new AbortController();
  #loop: Promise<void> = Promise.resolve();

  start(client: WeaveClient): void {
    let after = '0';
    this.#loop = (async () => {
      while (!this.#abort.signal.aborted) {
        try {
          const page = await client.results.readStream(ENDS_STREAM, {
            after,
            limit: 1000,
            waitMs: 5_000,
            signal: this.#abort.signal,
          });
          const at = performance.now();
          for (const event of page.events) {
            const id = event.instance_id;
            if (id === undefined) {
              continue;
            }
            const end = { at, type: event.type };
            const waiter = this.#waiters.get(id);
            if (waiter === undefined) {
              this.#early.set(id, end);
            } else {
              this.#waiters.delete(id);
              waiter(end);
            }
          }
          after = page.next_after;
        } catch (e: unknown) {
          if (!this.#abort.signal.aborted) {
            console.error('ends stream:', e);
            await sleep(100);
          }
        }
      }
    })();
  }

  wait(id: string): Promise<End> {
    const early = this.#early.get(id);
    if (early !== undefined) {
      this.#early.delete(id);
      return Promise.resolve(early);
    }
    return new Promise((resolve) => this.#waiters.set(id, resolve));
  }

  async stop(): Promise<void> {
    this.#abort.abort();
    await this.#loop;
  }
}

/** `count` lanes take indexes 0..n-1 in turn. */
async function lanes(count: number, n: number, fn: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    for (let i = next++; i < n; i = next++) {
      await fn(i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(count, n) }, lane));
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not done after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

interface Run {
  readonly ids: readonly string[];
  readonly instanceMs: readonly number[];
  readonly wallMs: number;
  readonly startPhaseMs?: number;
}

export class WeaveSystem implements BenchSystem {
  readonly #name: string;
  readonly #dialect: 'mysql' | 'sqlite';
  readonly #options: WeaveOptions;
  #db = '';
  #dir = '';
  #dbName = '';
  #server: ChildProcess | undefined;
  #workers: ChildProcess[] = [];
  #client: WeaveClient | undefined;
  #reader: Reader | undefined;
  #admin: Connection | undefined;
  #watcher = new EndWatcher();
  #namespaceId = 0;
  #durability = '';

  constructor(dialect: 'mysql' | 'sqlite', options: WeaveOptions) {
    this.#dialect = dialect;
    this.#options = options;
    this.#name = `Weave ${dialect === 'mysql' ? 'MariaDB' : 'SQLite'}`;
  }

  get info(): SystemInfo {
    return {
      name: this.#name,
      kind: this.#dialect === 'mysql' ? 'weave-mysql' : 'weave-sqlite',
      durability: this.#durability,
    };
  }

  async setup(): Promise<void> {
    if (this.#dialect === 'mysql') {
      this.#dbName = `weave_wfbench_${process.pid}_${Date.now()}`;
      this.#admin = await createConnection(MYSQL);
      await this.#admin.query(`CREATE DATABASE ${this.#dbName}`);
      this.#db = `mysql://root@127.0.0.1:3306/${this.#dbName}`;
      const [rows] = await this.#admin.query<RowDataPacket[]>(
        "SHOW GLOBAL VARIABLES WHERE Variable_name IN ('innodb_flush_log_at_trx_commit', 'log_bin', 'sync_binlog')",
      );
      this.#durability = rows
        .map((r) => `${String(r.Variable_name)}=${String(r.Value)}`)
        .join(', ');
    } else {
      this.#dir = mkdtempSync(join(tmpdir(), 'weave-wfbench-'));
      this.#db = join(this.#dir, 'weave.sqlite');
    }
    const key = await bootstrapKey(this.#db, { namespace: NAMESPACE, app: APP, queue: QUEUE });
    const url = await this.#startServer();
    const client = new WeaveClient({ url, namespace: NAMESPACE, apiKey: key });
    this.#client = client;
    // Application settings, not server tuning: the default task quota (10,000 active) is S4's
    // whole size; the burn-down bench raises it the same way.
    await client.updateApplication(APP, { quota: { max_active_tasks: 1_000_000 } });
    await client.results.createStream({ name: ENDS_STREAM, application: APP });
    for (const definition of [S2, S3, TIMERS]) {
      await client.workflows.publish(definition);
    }
    if (this.#dialect === 'mysql') {
      const connection = await createConnection({
        ...MYSQL,
        database: this.#dbName,
        supportBigNumbers: true,
        bigNumberStrings: true,
      });
      this.#reader = mysqlReader(connection);
    } else {
      this.#reader = sqliteReader(this.#db);
      const stats = await this.#serverStats();
      this.#durability =
        stats?.sqlite === undefined
          ? 'WAL, synchronous as the server sets it (plain mode: not read)'
          : `journal_mode=${stats.sqlite.journalMode}, synchronous=${stats.sqlite.synchronous} (${['OFF', 'NORMAL', 'FULL', 'EXTRA'][stats.sqlite.synchronous] ?? '?'})`;
    }
    const [ns] = await this.#reader.all('SELECT id FROM namespaces WHERE name = ?', [NAMESPACE]);
    this.#namespaceId = num(ns?.id);
    this.#watcher.start(client);
    await this.#startWorkers(url, key);
  }

  async #startServer(): Promise<string> {
    const nodeArgs = (process.env['WEAVE_BENCH_NODE_ARGS'] ?? '').split(' ').filter((a) => a);
    const child = this.#options.plain
      ? fork(WEAVE_BIN, ['server', '--db', this.#db, '--port', '0'], {
          stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
          execArgv: nodeArgs,
          env: { ...process.env, WEAVE_LOG_LEVEL: 'error' },
        })
      : fork(SERVER_JS, [this.#db], {
          stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
          execArgv: nodeArgs,
          env: { ...process.env, WEAVE_LOG_LEVEL: 'error' },
        });
    this.#server = child;
    return new Promise((resolve, reject) => {
      let err = '';
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`weave server did not start: ${err}`));
      }, 30_000);
      const onData = (d: Buffer) => {
        err += d.toString();
        const m = /listening at (\S+)/.exec(err);
        if (m?.[1] !== undefined) {
          clearTimeout(timer);
          child.stderr?.off('data', onData);
          child.stderr?.on('data', (more: Buffer) => process.stderr.write(more));
          resolve(m[1]);
        }
      };
      child.stderr?.on('data', onData);
      child.once('exit', (code) => reject(new Error(`weave server exited (${code}): ${err}`)));
    });
  }

  async #startWorkers(url: string, key: string): Promise<void> {
    const config: WorkflowWorkerConfig = { url, namespace: NAMESPACE, key, queue: QUEUE };
    const ready: Promise<void>[] = [];
    for (let i = 0; i < this.#options.workers; i++) {
      const { child, ready: up } = forkReady(WORKER_JS, config);
      this.#workers.push(child);
      ready.push(up);
    }
    await Promise.all(ready);
  }

  #ask<T>(cmd: string, answer: string): Promise<T | undefined> {
    const server = this.#server;
    if (this.#options.plain || server === undefined) {
      return Promise.resolve(undefined);
    }
    return new Promise((resolve) => {
      const onMessage = (m: Record<string, unknown>) => {
        if (answer in m) {
          server.off('message', onMessage);
          resolve(m[answer] as T);
        }
      };
      server.on('message', onMessage);
      server.send({ cmd });
    });
  }

  #serverStats(): Promise<ServerStats | undefined> {
    return this.#ask<ServerStats>('stats', 'stats');
  }

  async #counters(): Promise<Counters> {
    if (this.#admin === undefined) {
      return {};
    }
    const [rows] = await this.#admin.query<RowDataPacket[]>(
      "SHOW GLOBAL STATUS WHERE Variable_name IN ('Handler_commit', 'Com_commit', " +
        "'Innodb_row_lock_waits', 'Innodb_row_lock_time', 'Innodb_data_fsyncs')",
    );
    const get = (name: string) => Number(rows.find((r) => r.Variable_name === name)?.Value);
    return {
      handlerCommit: get('Handler_commit'),
      comCommit: get('Com_commit'),
      rowLockWaits: get('Innodb_row_lock_waits'),
      rowLockMs: get('Innodb_row_lock_time'),
      fsyncs: get('Innodb_data_fsyncs'),
    };
  }

  async #start(workflow: string, input: unknown): Promise<string> {
    const client = this.#client as WeaveClient;
    const { instance } = await client.instances.start(workflow, {
      input,
      result_stream: ENDS_STREAM,
    });
    return instance.id;
  }

  /** Start, then wait for the end: one closed-loop client iteration. */
  async #roundTrip(workflow: string, input: unknown): Promise<{ id: string; ms: number }> {
    const t0 = performance.now();
    const id = await this.#start(workflow, input);
    const end = await this.#watcher.wait(id);
    return { id, ms: end.at - t0 };
  }

  async warmUp(): Promise<void> {
    for (let i = 0; i < 3; i++) {
      await this.#roundTrip(S2.name, {});
    }
    await lanes(32, 64, async () => {
      await this.#roundTrip(S3.name, { route: 'a' });
    });
    await sleep(500);
  }

  async run(scenario: ScenarioId, sizes: Sizes): Promise<ScenarioResult> {
    if (scenario === 's4') {
      await (this.#client as WeaveClient).workflows.publish(s4Definition(sizes.s4Width));
    }
    await this.#ask('reset', 'reset');
    const before = await this.#counters();
    const cpuBefore = this.#cpu();
    const sampler = this.#sampleLocks();
    const run = await withTimeout(this.#drive(scenario, sizes), SCENARIO_TIMEOUT_MS, scenario);
    const locks = await sampler.stop();
    const cpuAfter = this.#cpu();
    const server = await this.#serverStats();
    const after = await this.#counters();
    const counters: Counters = {
      ...(server === undefined ? {} : { commits: server.commits }),
      ...(after.handlerCommit === undefined || before.handlerCommit === undefined
        ? {}
        : {
            handlerCommit: after.handlerCommit - before.handlerCommit,
            comCommit: (after.comCommit ?? 0) - (before.comCommit ?? 0),
            rowLockWaits: (after.rowLockWaits ?? 0) - (before.rowLockWaits ?? 0),
            rowLockMs: (after.rowLockMs ?? 0) - (before.rowLockMs ?? 0),
            fsyncs: (after.fsyncs ?? 0) - (before.fsyncs ?? 0),
          }),
    };
    const workflow =
      scenario === 's2'
        ? S2.name
        : scenario === 's3'
          ? S3.name
          : scenario === 's4'
            ? (s4Definition(sizes.s4Width).name as string)
            : TIMERS.name;
    const figures = await this.#figures(scenario, workflow, run.ids);
    await sleep(1_000);
    return {
      scenario,
      instances: run.ids.length,
      wallMs: run.wallMs,
      instanceMs: run.instanceMs,
      ...(run.startPhaseMs === undefined ? {} : { startPhaseMs: run.startPhaseMs }),
      ...figures,
      counters,
      ...(server === undefined ? {} : { server }),
      ...(locks === undefined ? {} : { lockWaits: locks.waits, lockSamples: locks.samples }),
      cpuMs: {
        server: cpuAfter.server - cpuBefore.server,
        workers: cpuAfter.workers - cpuBefore.workers,
        harness: cpuAfter.harness - cpuBefore.harness,
      },
    };
  }

  /** MariaDB: every 100 ms, which locks of the bench database transactions wait for. */
  #sampleLocks(): {
    stop(): Promise<{ waits: Record<string, number>; samples: number } | undefined>;
  } {
    const admin = this.#admin;
    if (admin === undefined) {
      return { stop: () => Promise.resolve(undefined) };
    }
    const waits: Record<string, number> = {};
    let samples = 0;
    let running = true;
    const loop = (async () => {
      while (running) {
        const [rows] = await admin.query<RowDataPacket[]>(
          `SELECT l.lock_table AS t, l.lock_index AS i, COUNT(*) AS n
           FROM information_schema.INNODB_LOCK_WAITS w
           JOIN information_schema.INNODB_LOCKS l ON l.lock_id = w.requested_lock_id
           WHERE l.lock_table LIKE ? GROUP BY l.lock_table, l.lock_index`,
          [`\`${this.#dbName}\`.%`],
        );
        samples++;
        for (const r of rows) {
          const table = String(r.t)
            .replace(/^`[^`]*`\./, '')
            .replace(/`/g, '');
          const key = `${table} (${String(r.i)})`;
          waits[key] = (waits[key] ?? 0) + Number(r.n);
        }
        await sleep(100);
      }
    })();
    return {
      async stop() {
        running = false;
        await loop;
        return { waits, samples };
      },
    };
  }

  #cpu(): { server: number; workers: number; harness: number } {
    const own = process.cpuUsage();
    return {
      server: cpuMsOf(this.#server?.pid),
      workers: this.#workers.reduce((sum, w) => sum + cpuMsOf(w.pid), 0),
      harness: (own.user + own.system) / 1000,
    };
  }

  async #drive(scenario: ScenarioId, sizes: Sizes): Promise<Run> {
    const ids: string[] = [];
    const instanceMs: number[] = [];
    const t0 = performance.now();
    switch (scenario) {
      case 's2':
        for (let i = 0; i < sizes.s2; i++) {
          const r = await this.#roundTrip(S2.name, {});
          ids.push(r.id);
          instanceMs.push(r.ms);
        }
        return { ids, instanceMs, wallMs: performance.now() - t0 };
      case 's3':
        await lanes(sizes.clients, sizes.s3, async () => {
          const r = await this.#roundTrip(S3.name, { route: 'a' });
          ids.push(r.id);
          instanceMs.push(r.ms);
        });
        return { ids, instanceMs, wallMs: performance.now() - t0 };
      case 's4':
      case 'timers': {
        const name = scenario === 's4' ? (s4Definition(sizes.s4Width).name as string) : TIMERS.name;
        const n = scenario === 's4' ? sizes.s4 : sizes.timers;
        const ends: Promise<void>[] = [];
        await lanes(sizes.clients, n, async () => {
          const started = performance.now();
          const id = await this.#start(name, {});
          ids.push(id);
          ends.push(
            this.#watcher.wait(id).then((end) => {
              instanceMs.push(end.at - started);
            }),
          );
        });
        const startPhaseMs = performance.now() - t0;
        await Promise.all(ends);
        return { ids, instanceMs, wallMs: performance.now() - t0, startPhaseMs };
      }
    }
  }

  /** Transitions, failures and the DB-time figures of the instances `ids`. */
  async #figures(
    scenario: ScenarioId,
    workflow: string,
    ids: readonly string[],
  ): Promise<Pick<ScenarioResult, 'transitions' | 'failed' | 'stepMs' | 'phases' | 'latenessMs'>> {
    const reader = this.#reader as Reader;
    const numeric = ids.map(Number);
    const lo = Math.min(...numeric);
    const hi = Math.max(...numeric);
    const [definition] = await reader.all('SELECT id FROM weave_definitions WHERE name = ?', [
      workflow,
    ]);
    const range = [this.#namespaceId, lo, hi, num(definition?.id)];
    const scope =
      'i.namespace_id = ? AND i.id BETWEEN ? AND ? AND i.definition_id = ?' +
      ' AND s.namespace_id = i.namespace_id AND s.instance_id = i.id';
    const [count] = await reader.all(
      `SELECT COUNT(*) AS n FROM weave_instances i JOIN weave_steps s ON s.instance_id = i.id
       WHERE ${scope} AND s.step_id <> '$root' AND s.status = 'SUCCEEDED'`,
      range,
    );
    const [failed] = await reader.all(
      `SELECT COUNT(*) AS n FROM weave_instances i
       WHERE i.namespace_id = ? AND i.id BETWEEN ? AND ? AND i.definition_id = ?
         AND i.status <> 'SUCCEEDED'`,
      range,
    );
    const base = { transitions: num(count?.n), failed: num(failed?.n) };
    if (scenario === 's2') {
      // Per TASK step, the DB times (µs, each transaction's clock read) of: the transaction that
      // activated it (Start or the consumer that finished the step before), the claim, the
      // result transaction (inbox row), and the consumer transaction that settled it.
      const rows = await reader.all(
        `SELECT a.created_at AS activated, att.claimed_at AS claimed, ib.created_at AS reported,
                s.finished_at AS finished
         FROM weave_instances i
         JOIN weave_steps s ON s.instance_id = i.id
         JOIN weave_activations a ON a.namespace_id = s.namespace_id AND a.id = s.current_activation_id
         JOIN task_attempts att ON att.task_id = a.task_id AND att.attempt_number = 1
         JOIN weave_inbox ib ON ib.namespace_id = s.namespace_id AND ib.source_task_id = a.task_id
         WHERE ${scope} AND s.step_id <> '$root'`,
        range,
      );
      const ms = (a: unknown, b: unknown) => (num(b) - num(a)) / 1000;
      return {
        ...base,
        stepMs: rows.map((r) => ms(r.activated, r.finished)),
        phases: {
          'activated → claimed': rows.map((r) => ms(r.activated, r.claimed)),
          'claimed → result tx': rows.map((r) => ms(r.claimed, r.reported)),
          'result tx → consumer tx': rows.map((r) => ms(r.reported, r.finished)),
        },
      };
    }
    if (scenario === 'timers') {
      const rows = await reader.all(
        `SELECT w.due_at AS due_at, w.closed_at AS closed_at
         FROM weave_instances i JOIN weave_waits w ON w.instance_id = i.id
         WHERE i.namespace_id = ? AND i.id BETWEEN ? AND ? AND i.definition_id = ?
           AND w.namespace_id = i.namespace_id AND w.purpose = 'TIMER' AND w.state = 'FIRED'`,
        range,
      );
      return { ...base, latenessMs: rows.map((r) => (num(r.closed_at) - num(r.due_at)) / 1000) };
    }
    return base;
  }

  async teardown(): Promise<void> {
    await this.#watcher.stop();
    await Promise.all(
      this.#workers.splice(0).map(
        (child) =>
          new Promise<void>((resolve) => {
            const kill = setTimeout(() => child.kill('SIGKILL'), 15_000);
            child.once('exit', () => {
              clearTimeout(kill);
              resolve();
            });
            if (child.exitCode !== null || !child.connected) {
              clearTimeout(kill);
              resolve();
              return;
            }
            child.send({ stop: true });
          }),
      ),
    );
    const server = this.#server;
    if (server !== undefined && server.exitCode === null) {
      await new Promise<void>((resolve) => {
        const kill = setTimeout(() => server.kill('SIGKILL'), 10_000);
        server.once('exit', () => {
          clearTimeout(kill);
          resolve();
        });
        server.kill('SIGTERM');
      });
    }
    await this.#reader?.close();
    if (this.#admin !== undefined) {
      await this.#admin.query(`DROP DATABASE IF EXISTS ${this.#dbName}`);
      await this.#admin.end();
    }
    if (this.#dir !== '') {
      rmSync(this.#dir, { recursive: true, force: true });
    }
  }
}
