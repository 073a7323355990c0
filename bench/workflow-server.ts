/**
 * The Weave server process of the workflow bench (workflow.ts): what `weave server --db URL
 * --port 0` runs (`Server.start` with the same defaults, log level from WEAVE_LOG_LEVEL), plus
 * measurement through the server's own test seam and a module hook, with no server code changed:
 *
 * - `onStatement` (store/database.ts) sees every statement; each transaction is followed from its
 *   BEGIN to the end of its COMMIT or ROLLBACK on its connection, classified by what it touched
 *   (start, claim, complete, consume, scan, read) and timed;
 * - the driver connection's `executeQuery` is wrapped on first sight: one call is one round trip
 *   to MariaDB (coalesced writes travel inside the next call) or one statement run on SQLite;
 * - `@weave/engine` is replaced by workflow-engine-probe.js (workflow-loader.js): `compile` and
 *   `program.plan` are timed;
 * - process CPU (`process.cpuUsage`) and event-loop utilisation.
 *
 * Started with `fork()` and `[dbUrl]`; prints `weave server listening at URL` on stderr like the
 * CLI. IPC: `{ cmd: 'reset' }` zeroes the counters, `{ cmd: 'stats' }` answers `{ stats }`.
 * SIGTERM stops the server.
 */
import { createRequire, register } from 'node:module';
import { performance } from 'node:perf_hooks';
import type { EventLoopUtilization } from 'node:perf_hooks';

register('./workflow-loader.js', import.meta.url);

/**
 * MariaDB: how long each `pool.getConnection` waited (every transaction takes a connection of
 * the pool of 10 first; a transaction waiting for a row lock keeps its connection meanwhile).
 * The server's mysql2 is this process's mysql2 (one copy in node_modules).
 */
const poolWaits: number[] = [];
{
  const mysql = createRequire(import.meta.url)('mysql2') as {
    Pool: {
      prototype: { getConnection: (this: unknown, cb: (...args: unknown[]) => void) => void };
    };
  };
  const proto = mysql.Pool.prototype;
  const getConnection = proto.getConnection;
  proto.getConnection = function (this: unknown, cb: (...args: unknown[]) => void) {
    const t0 = process.hrtime.bigint();
    getConnection.call(this, (...args: unknown[]) => {
      poolWaits.push(Number(process.hrtime.bigint() - t0) / 1000);
      cb(...args);
    });
  };
}

const { Server } = await import('@weave/server');
const { engineStats, resetEngineStats } = await import('./workflow-engine-probe.js');

export type TxKind =
  | 'start'
  | 'claim'
  | 'complete'
  | 'consume'
  | 'consume (nothing)'
  | 'scan'
  | 'read (stream)'
  | 'read (claim poll)'
  | 'clock only'
  | 'read'
  | 'other';

export interface KindStats {
  count: number;
  /** Transaction durations in µs, BEGIN to the end of COMMIT/ROLLBACK. */
  durations: number[];
  roundTrips: number;
  statements: number;
  rollbacks: number;
}

export interface ServerStats {
  readonly kinds: Partial<Record<TxKind, KindStats>>;
  readonly commits: number;
  readonly statements: number;
  readonly roundTrips: number;
  readonly cpuUserMs: number;
  readonly cpuSystemMs: number;
  readonly wallMs: number;
  readonly eventLoopUtilization: number;
  /** The event loop's busy (not idle) wall time, ms. */
  readonly eventLoopActiveMs: number;
  readonly compileCalls: number;
  readonly compileMs: number;
  readonly planCalls: number;
  readonly planMs: number;
  /** CPU of the measurement itself (hook and bookkeeping), ms. */
  readonly probeMs: number;
  /** MariaDB: each pool connection acquisition's wait, µs. */
  readonly poolWaits: readonly number[];
  /** SQLite: `journal_mode` and `synchronous` as the server's connection has them. */
  readonly sqlite?: { readonly journalMode: string; readonly synchronous: number };
}

interface OpenTx {
  readonly start: bigint;
  /** WORKFLOW_BENCH_TRACE only: the statements' first characters. */
  readonly heads: string[];
  readonly touched: Set<string>;
  roundTrips: number;
  statements: number;
}

const db = process.argv[2];
if (db === undefined) {
  throw new Error('usage: workflow-server.js DB_URL');
}

let kinds: Partial<Record<TxKind, KindStats>> = {};
let commits = 0;
let statements = 0;
let roundTrips = 0;
/** Wall time in this file's own bookkeeping (the hook, the transaction ends). */
let probeNs = 0n;

function measured(fn: () => void): void {
  const t0 = process.hrtime.bigint();
  fn();
  probeNs += process.hrtime.bigint() - t0;
}

let cpuBase = process.cpuUsage();
let wallBase = performance.now();
let eluBase: EventLoopUtilization = performance.eventLoopUtilization();
const open = new WeakMap<object, OpenTx>();
/** WORKFLOW_BENCH_TRACE=KIND prints the statements of the first 20 transactions of that kind. */
const TRACE = process.env['WORKFLOW_BENCH_TRACE'];
let traced = 0;
const wrapped = new WeakSet<object>();

/** Quotes and backticks dropped, lower case: one pattern for both dialects' SQL. */
function plain(sql: string): string {
  return sql.replace(/[`"]/g, '').toLowerCase();
}

/** What a statement tells about its transaction. */
function touch(sql: string, tx: OpenTx): void {
  // The head is enough (a statement's verb and first table); long multi-row inserts are cut.
  const s = plain(sql.length > 600 ? sql.slice(0, 600) : sql);
  if (s.startsWith('select')) {
    const from = s.indexOf(' from ');
    const table = from < 0 ? '' : s.slice(from + 6, from + 40);
    if (table.startsWith('weave_instances ')) {
      tx.touched.add('instance-read');
    } else if (table.startsWith('weave_steps ')) {
      tx.touched.add('steps-read');
    } else if (/^weave_(inbox|waits|pending_advances) /.test(table)) {
      tx.touched.add('discover');
    } else if (table.startsWith('orbit_')) {
      tx.touched.add('orbit-read');
    } else if (table.startsWith('tasks ')) {
      tx.touched.add('tasks-read');
    }
    return;
  }
  if (s.startsWith('insert into weave_instances')) {
    tx.touched.add('start');
  } else if (s.startsWith('insert into weave_inbox')) {
    tx.touched.add('complete');
  } else if (s.startsWith('insert into task_attempts')) {
    tx.touched.add('claim');
  } else if (s.startsWith('update weave_instances')) {
    tx.touched.add('instance-updated');
  }
  if (s.startsWith('insert') || s.startsWith('update') || s.startsWith('delete')) {
    tx.touched.add('write');
  }
}

/**
 * start: inserts an instance; complete: a result transaction (inserts an inbox row, may claim
 * the next tasks); consume: the consumer moved an instance on (updates its row); consume
 * (nothing): the consumer read an instance's rows and found nothing to do; claim: a claim
 * alone; scan: the consumer's discovery read; read (stream): an Orbit stream read (the harness
 * waiting for ends); read (claim poll): a claim that found no task; clock only: BEGIN, the
 * clock read, COMMIT and nothing else (a long-poll route's authorisation with a cached
 * credential); read/other: anything else without/with writes.
 */
function kindOf(tx: OpenTx): TxKind {
  const t = tx.touched;
  if (t.has('start')) {
    return 'start';
  }
  if (t.has('complete')) {
    return 'complete';
  }
  if (t.has('instance-updated')) {
    return 'consume';
  }
  if (t.has('instance-read') && !t.has('write')) {
    return 'consume (nothing)';
  }
  if (t.has('claim')) {
    return 'claim';
  }
  if (t.has('discover') && !t.has('write')) {
    return 'scan';
  }
  if (t.has('write')) {
    return 'other';
  }
  if (t.size === 0 && tx.statements <= 3) {
    return 'clock only';
  }
  return t.has('orbit-read') ? 'read (stream)' : t.has('tasks-read') ? 'read (claim poll)' : 'read';
}

function finish(connection: object, rolledBack: boolean): void {
  measured(() => record(connection, rolledBack));
}

function record(connection: object, rolledBack: boolean): void {
  const tx = open.get(connection);
  if (tx === undefined) {
    return;
  }
  open.delete(connection);
  const kind = kindOf(tx);
  if (kind === TRACE && traced++ < 20) {
    process.stderr.write(`[trace ${kind}]\n  ${tx.heads.join('\n  ')}\n`);
  }
  const k = (kinds[kind] ??= {
    count: 0,
    durations: [],
    roundTrips: 0,
    statements: 0,
    rollbacks: 0,
  });
  k.count++;
  k.durations.push(Number(process.hrtime.bigint() - tx.start) / 1000);
  k.roundTrips += tx.roundTrips;
  k.statements += tx.statements;
  if (rolledBack) {
    k.rollbacks++;
  }
}

interface Executes {
  executeQuery(query: { readonly sql: string }): Promise<unknown>;
}

/** One driver call = one round trip (MariaDB) or one statement run (SQLite). */
function wrap(connection: object): void {
  wrapped.add(connection);
  const target = connection as Executes;
  const inner = target.executeQuery.bind(connection);
  target.executeQuery = async (query) => {
    roundTrips++;
    const tx = open.get(connection);
    if (tx !== undefined) {
      tx.roundTrips++;
    }
    // A packet's last statement decides: the tail is enough (a packet can be megabytes).
    const ending = /(^|[;\s])(commit|rollback)\s*$/i.exec(query.sql.slice(-24));
    try {
      return await inner(query);
    } finally {
      if (ending !== null) {
        finish(connection, ending[2]?.toLowerCase() === 'rollback');
      }
    }
  };
}

function onStatement(sql: string, parameters: readonly unknown[], connection: object): void {
  measured(() => observe(sql, parameters, connection));
}

function observe(sql: string, _parameters: readonly unknown[], connection: object): void {
  statements++;
  if (!wrapped.has(connection)) {
    wrap(connection);
  }
  const head = sql.trimStart().slice(0, 16).toLowerCase();
  if (head.startsWith('begin')) {
    open.set(connection, {
      start: process.hrtime.bigint(),
      touched: new Set(),
      heads: [],
      roundTrips: 0,
      statements: 1,
    });
    return;
  }
  if (head.startsWith('commit')) {
    commits++;
  }
  const tx = open.get(connection);
  if (tx !== undefined) {
    tx.statements++;
    touch(sql, tx);
    if (TRACE !== undefined) {
      tx.heads.push(sql.slice(0, 100));
    }
  }
}

function reset(): void {
  kinds = {};
  commits = 0;
  statements = 0;
  roundTrips = 0;
  probeNs = 0n;
  poolWaits.length = 0;
  cpuBase = process.cpuUsage();
  wallBase = performance.now();
  eluBase = performance.eventLoopUtilization();
  resetEngineStats();
}

const server = await Server.start({
  db,
  port: 0,
  host: '127.0.0.1',
  logLevel: process.env['WEAVE_LOG_LEVEL'] ?? 'error',
  onStatement,
});

function stats(): ServerStats {
  const cpu = process.cpuUsage(cpuBase);
  const handle = server.database.sqliteHandle;
  return {
    kinds,
    commits,
    statements,
    roundTrips,
    cpuUserMs: cpu.user / 1000,
    cpuSystemMs: cpu.system / 1000,
    wallMs: performance.now() - wallBase,
    eventLoopUtilization: performance.eventLoopUtilization(eluBase).utilization,
    eventLoopActiveMs: performance.eventLoopUtilization(eluBase).active,
    compileCalls: engineStats.compileCalls,
    compileMs: Number(engineStats.compileNs) / 1e6,
    planCalls: engineStats.planCalls,
    planMs: Number(engineStats.planNs) / 1e6,
    probeMs: Number(probeNs) / 1e6,
    poolWaits,
    ...(handle === undefined
      ? {}
      : {
          sqlite: {
            journalMode: String(handle.pragma('journal_mode', { simple: true })),
            synchronous: Number(handle.pragma('synchronous', { simple: true })),
          },
        }),
  };
}

process.on('message', (m: { cmd?: string }) => {
  if (m.cmd === 'reset') {
    reset();
    process.send?.({ reset: true });
  } else if (m.cmd === 'stats') {
    process.send?.({ stats: stats() });
  }
});
process.once('SIGTERM', () => {
  void server.stop().then(() => process.exit(0));
});
process.stderr.write(`weave server listening at ${server.url} (${server.database.description})\n`);
