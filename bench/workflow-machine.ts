/**
 * The machine the workflow bench (workflow.ts) ran on: cores, Node, load, database versions,
 * and what one durable commit costs on each database here (one client, autocommit INSERTs into
 * a scratch table) — the floor under every figure that waits for commits in sequence.
 */
import { execSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import Sqlite from 'better-sqlite3';
import { createConnection } from 'mysql2/promise';
import type { RowDataPacket } from 'mysql2/promise';
import pg from 'pg';

const COMMITS = 200;

export interface Machine {
  readonly cores: number;
  readonly cpu: string;
  readonly node: string;
  readonly load: string;
  readonly commit: string;
  readonly mariadb: string;
  readonly postgres: string;
  /** Mean ms of one durable autocommit INSERT, one client. */
  readonly commitMs: { mariadb?: number; postgres?: number; sqlite?: number };
}

/** CPU time (user + system, ms) a process has used so far, from /proc; 0 if unreadable. */
export function cpuMsOf(pid: number | undefined): number {
  if (pid === undefined) {
    return 0;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces) — utime and stime are 14 and 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return 0;
  }
}

export function load(): string {
  return loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
}

function gitCommit(): string {
  try {
    const head = execSync('git rev-parse --short HEAD', { encoding: 'utf8' }).trim();
    const dirty = execSync('git status --porcelain', { encoding: 'utf8' }).trim() !== '';
    return dirty ? `${head} (uncommitted changes)` : head;
  } catch {
    return 'unknown';
  }
}

async function mariadb(): Promise<{ version: string; ms?: number }> {
  const c = await createConnection({ host: '127.0.0.1', port: 3306, user: 'root', password: '' });
  const db = `weave_wfbench_probe_${process.pid}`;
  try {
    const [v] = await c.query<RowDataPacket[]>('SELECT VERSION() AS v');
    await c.query(`CREATE DATABASE ${db}`);
    await c.query(`CREATE TABLE ${db}.probe (i INT) ENGINE=InnoDB`);
    const t0 = performance.now();
    for (let i = 0; i < COMMITS; i++) {
      await c.query(`INSERT INTO ${db}.probe VALUES (?)`, [i]);
    }
    const ms = (performance.now() - t0) / COMMITS;
    return { version: `MariaDB ${String(v[0]?.v)}`, ms };
  } finally {
    await c.query(`DROP DATABASE IF EXISTS ${db}`);
    await c.end();
  }
}

async function postgres(): Promise<{ version: string; ms?: number }> {
  const c = new pg.Client('postgres://postgres@127.0.0.1:5432/postgres');
  await c.connect();
  const table = `weave_wfbench_probe_${process.pid}`;
  try {
    const v = await c.query<{ v: string }>("SELECT current_setting('server_version') AS v");
    await c.query(`CREATE TABLE ${table} (i INT)`);
    const t0 = performance.now();
    for (let i = 0; i < COMMITS; i++) {
      await c.query(`INSERT INTO ${table} VALUES ($1)`, [i]);
    }
    const ms = (performance.now() - t0) / COMMITS;
    return { version: `PostgreSQL ${v.rows[0]?.v ?? '?'}`, ms };
  } finally {
    await c.query(`DROP TABLE IF EXISTS ${table}`);
    await c.end();
  }
}

/** WAL with synchronous = FULL, as the Weave server opens its file. */
function sqlite(): number {
  const dir = mkdtempSync(join(tmpdir(), 'weave-wfbench-probe-'));
  try {
    const db = new Sqlite(join(dir, 'probe.sqlite'));
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.exec('CREATE TABLE probe (i INTEGER)');
    const insert = db.prepare('INSERT INTO probe VALUES (?)');
    const t0 = performance.now();
    for (let i = 0; i < COMMITS; i++) {
      insert.run(i);
    }
    const ms = (performance.now() - t0) / COMMITS;
    db.close();
    return ms;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function describeMachine(): Promise<Machine> {
  const my = await mariadb().catch((e: unknown) => ({ version: `MariaDB: ${String(e)}` }));
  const pgInfo = await postgres().catch((e: unknown) => ({ version: `PostgreSQL: ${String(e)}` }));
  const lite = sqlite();
  return {
    cores: cpus().length,
    cpu: cpus()[0]?.model ?? '?',
    node: process.version,
    load: load(),
    commit: gitCommit(),
    mariadb: my.version,
    postgres: pgInfo.version,
    commitMs: {
      ...('ms' in my && my.ms !== undefined ? { mariadb: my.ms } : {}),
      ...('ms' in pgInfo && pgInfo.ms !== undefined ? { postgres: pgInfo.ms } : {}),
      sqlite: lite,
    },
  };
}
