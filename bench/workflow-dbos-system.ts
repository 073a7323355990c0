/**
 * DBOS Transact in the workflow bench (workflow.ts): a fresh PostgreSQL database per run on
 * 127.0.0.1:5432 (dropped afterwards), one DBOS process (workflow-dbos.js) that runs workflows,
 * steps and clients, and the database's own commit counter (`pg_stat_database.xact_commit`).
 */
import { fork } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import type { DbosRun } from './workflow-dbos.js';
import { S2_STEPS, S3_TRANSITIONS } from './workflow-defs.js';
import type {
  BenchSystem,
  ScenarioId,
  ScenarioResult,
  Sizes,
  SystemInfo,
} from './workflow-types.js';

const DBOS_JS = fileURLToPath(new URL('./workflow-dbos.js', import.meta.url));
const PG_ADMIN = 'postgres://postgres@127.0.0.1:5432/postgres';
/** A backend flushes its statistics at most once a second while busy (PostgreSQL 15). */
const STATS_SETTLE_MS = 1_500;

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export class DbosSystem implements BenchSystem {
  readonly #dbName = `weave_wfbench_dbos_${process.pid}_${Date.now()}`;
  readonly #url = `postgres://postgres@127.0.0.1:5432/${this.#dbName}`;
  #child: ChildProcess | undefined;
  #version = '?';
  #durability = '';
  #next = 0;
  /** `xact_commit` per second while idle (DBOS's own background work), measured after warm-up. */
  idleCommitsPerSecond = 0;
  #idleFsyncsPerSecond = 0;

  get info(): SystemInfo {
    return { name: `DBOS ${this.#version}`, kind: 'dbos', durability: this.#durability };
  }

  async #admin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
    const client = new pg.Client(PG_ADMIN);
    await client.connect();
    try {
      return await fn(client);
    } finally {
      await client.end();
    }
  }

  async setup(): Promise<void> {
    await this.#admin(async (c) => {
      await c.query(`CREATE DATABASE ${this.#dbName}`);
      const settings = await c.query<{ name: string; setting: string }>(
        "SELECT name, setting FROM pg_settings WHERE name IN ('synchronous_commit', 'fsync', 'wal_sync_method')",
      );
      this.#durability = settings.rows.map((r) => `${r.name}=${r.setting}`).join(', ');
    });
    // --no-deprecation: DBOS 5.3.0 on pg 8.23 warns about overlapping client.query() calls.
    const child = fork(DBOS_JS, [this.#url], { stdio: 'inherit', execArgv: ['--no-deprecation'] });
    this.#child = child;
    this.#version = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('DBOS did not launch in 60 s')), 60_000);
      child.on('message', (m: { ready?: boolean; version?: string }) => {
        if (m.ready === true) {
          clearTimeout(timer);
          resolve(m.version ?? '?');
        }
      });
      child.once('exit', (code) => reject(new Error(`DBOS process exited (${code})`)));
    });
  }

  #message<T>(
    send: Record<string, unknown>,
    accept: (m: Record<string, unknown>) => T | undefined,
  ) {
    const child = this.#child as ChildProcess;
    return new Promise<T>((resolve) => {
      const onMessage = (m: Record<string, unknown>) => {
        const value = accept(m);
        if (value !== undefined) {
          child.off('message', onMessage);
          resolve(value);
        }
      };
      child.on('message', onMessage);
      child.send(send);
    });
  }

  /** `xact_commit` of the bench database and the cluster's `wal_sync`, once settled. */
  async #counters(): Promise<{ commits: number; fsyncs: number }> {
    await sleep(STATS_SETTLE_MS);
    return this.#admin(async (c) => {
      await c.query('SELECT pg_stat_clear_snapshot()');
      const r = await c.query<{ n: string; syncs: string }>(
        'SELECT xact_commit AS n, (SELECT wal_sync FROM pg_stat_wal) AS syncs ' +
          'FROM pg_stat_database WHERE datname = $1',
        [this.#dbName],
      );
      return { commits: Number(r.rows[0]?.n), fsyncs: Number(r.rows[0]?.syncs) };
    });
  }

  async warmUp(): Promise<void> {
    const answer = await this.#message<{ warmed: boolean; error?: string }>({ cmd: 'warm' }, (m) =>
      'warmed' in m ? (m as { warmed: boolean; error?: string }) : undefined,
    );
    if (!answer.warmed) {
      throw new Error(`DBOS warm-up failed: ${answer.error ?? ''}`);
    }
    const a = await this.#counters();
    const t0 = Date.now();
    await sleep(3_000);
    const b = await this.#counters();
    const seconds = (Date.now() - t0) / 1000;
    this.idleCommitsPerSecond = (b.commits - a.commits) / seconds;
    this.#idleFsyncsPerSecond = (b.fsyncs - a.fsyncs) / seconds;
  }

  async run(scenario: ScenarioId, sizes: Sizes): Promise<ScenarioResult> {
    const before = await this.#counters();
    const t0 = Date.now();
    const id = ++this.#next;
    const answer = await this.#message<{ run?: DbosRun; error?: string }>(
      { cmd: 'run', id, scenario, sizes },
      (m) => (m.id === id ? m : undefined),
    );
    if (answer.run === undefined) {
      throw new Error(`DBOS ${scenario} failed: ${answer.error ?? ''}`);
    }
    const after = await this.#counters();
    // Less DBOS's idle background work over the same time (the settle waits included).
    const seconds = (Date.now() - t0) / 1000;
    const idle = this.idleCommitsPerSecond * seconds;
    const idleSyncs = this.#idleFsyncsPerSecond * seconds;
    const r = answer.run;
    const perInstance =
      scenario === 's2'
        ? S2_STEPS
        : scenario === 's3'
          ? S3_TRANSITIONS
          : scenario === 's4'
            ? 1 + sizes.s4Width
            : 1;
    return {
      scenario,
      instances: r.instances,
      transitions: (r.instances - r.failed) * perInstance,
      wallMs: r.wallMs,
      failed: r.failed,
      instanceMs: r.instanceMs,
      ...(r.stepMs === undefined ? {} : { stepMs: r.stepMs }),
      ...(r.latenessMs === undefined ? {} : { latenessMs: r.latenessMs }),
      ...(r.startPhaseMs === undefined ? {} : { startPhaseMs: r.startPhaseMs }),
      counters: {
        commits: Math.max(0, after.commits - before.commits - idle),
        fsyncs: Math.max(0, after.fsyncs - before.fsyncs - idleSyncs),
      },
      processCpuMs: r.processCpuMs,
    };
  }

  async teardown(): Promise<void> {
    const child = this.#child;
    if (child !== undefined && child.exitCode === null) {
      await new Promise<void>((resolve) => {
        const kill = setTimeout(() => child.kill('SIGKILL'), 15_000);
        child.once('exit', () => {
          clearTimeout(kill);
          resolve();
        });
        child.send({ cmd: 'stop' });
      });
    }
    await this.#admin((c) => c.query(`DROP DATABASE IF EXISTS ${this.#dbName} WITH (FORCE)`));
  }
}
