/**
 * How a grouped worker call's statements reach MariaDB, side by side (docs/design/hot-path.md
 * §24): the statements of one drain group — BEGIN with the claim scan and the completions' lock
 * read, then the completions' update, their events and audit rows, the claim's update with a CASE
 * and its events, COMMIT — sent four ways:
 *
 *   text      mysql2, each packet one multi-statement text (as the product sends them);
 *   prepared  the `mariadb` connector, binary prepared statements sent pipelined;
 *   mdb-text  the `mariadb` connector, multi-statement text;
 *   mdb-pipe  the `mariadb` connector, one text statement each, pipelined.
 *
 * On a scratch database with the product's own `tasks`, `task_events` and `audit_log` tables
 * (migrations 0001–0002), dropped at the end. The ways take turns in slices of `--slice` groups
 * for `--rounds` rounds, so a table that grows under them grows under all four alike. Per group:
 * the wall time, MariaDB's CPU (from /proc; MariaDB on this machine) and this process's CPU.
 *
 *   node bench/build/statement-protocol.js [--group 24] [--slice 40] [--rounds 10]
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import * as mariadb from 'mariadb';
import mysql from 'mysql2/promise';

const args = process.argv.slice(2);
const option = (name: string, fallback: number): number => {
  const i = args.indexOf(`--${name}`);
  const value = i >= 0 ? Number(args[i + 1]) : fallback;
  if (!Number.isInteger(value) || value <= 0) {
    process.stderr.write(`--${name} wants a positive integer\n`);
    process.exit(2);
  }
  return value;
};
const GROUP = option('group', 24);
const SLICE = option('slice', 40);
const ROUNDS = option('rounds', 10);
const DB = `weave_stmt_bench_${process.pid}`;
const CONNECTION = { host: '127.0.0.1', port: 3306, user: 'root' };
const MIGRATIONS = ['0001_foundation.sql', '0002_pulse.sql'].map((name) =>
  fileURLToPath(new URL(`../../packages/server/migrations/mysql/${name}`, import.meta.url)),
);

/** MariaDB's CPU so far, in ms (utime + stime of `mariadbd`, USER_HZ 100). */
function databaseCpuMs(pid: string): number {
  const fields = (readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1] ?? '').split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

const NOW = 1_796_294_751_674_413n;
const repeat = (n: number, one: string, by: string) =>
  Array.from({ length: n }, () => one).join(by);
const marks = (n: number, one: string) => repeat(n, one, ', ');
const EVENT = '(?, ?, ?, ?, ?, ?, ?, ?)';
const SQL = {
  scan:
    "select * from tasks where namespace_id = ? and queue_id = ? and status = 'PENDING' and " +
    'available_at <= ? and deadline_at + 0 > ? order by priority desc, available_at, id ' +
    `limit ${GROUP} for update skip locked`,
  lock: `select * from tasks where id in (${marks(GROUP, '?')}) and namespace_id = ? for update`,
  done:
    'update tasks set status = ?, revision = revision + 1, updated_at = ?, result = ?, ' +
    'current_attempt_id = NULL, lease_owner = NULL, lease_until = NULL, finished_at = ? ' +
    `where id in (${marks(GROUP, '?')}) and namespace_id = ?`,
  doneEvents:
    'insert into task_events (namespace_id, task_id, revision, type, status, attempt_id, at, ' +
    `details) values ${marks(GROUP, EVENT)}`,
  audit:
    'insert into audit_log (namespace_id, at, credential_id, action, outcome, code, ' +
    `object_type, object_id, request_id, details) values ${marks(GROUP, `(${marks(10, '?')})`)}`,
  claim:
    'update tasks set status = ?, revision = revision + 2, generation = generation + 1, ' +
    `lease_owner = ?, lease_until = CASE id ${repeat(GROUP, 'WHEN ? THEN ?', ' ')} ` +
    `END, updated_at = ? where id in (${marks(GROUP, '?')}) and namespace_id = ?`,
  claimEvents:
    'insert into task_events (namespace_id, task_id, revision, type, status, attempt_id, at, ' +
    `details) values ${marks(GROUP * 2, EVENT)}`,
};

/** A bound value as the bench binds them. */
type Param = string | number | bigint | null;
type Statement = readonly [sql: string, parameters: readonly Param[]];

/** A group's writes: settle `done` (the previous group's tasks, none at first), claim `claimed`. */
function writesOf(done: readonly string[], claimed: readonly string[], now: bigint): Statement[] {
  const writes: Statement[] = [];
  if (done.length > 0) {
    writes.push(
      [SQL.done, ['SUCCEEDED', now, 'null', now, ...done, 1]],
      [
        SQL.doneEvents,
        done.flatMap((id) => [1, id, 4, 'task.succeeded', 'SUCCEEDED', '1', now, null]),
      ],
      [
        SQL.audit,
        done.flatMap((id) => {
          const request = '64a20c87-ab50-4b3c-af9d-b5cfa18d398b';
          return [1, now, 1, 'task.succeeded', 'ok', null, 'task', id, request, null];
        }),
      ],
    );
  }
  writes.push(
    [
      SQL.claim,
      [
        'RUNNING',
        'worker-1',
        ...claimed.flatMap((id) => [Number(id), now + 30_000_000n]),
        now,
        ...claimed,
        1,
      ],
    ],
    [
      SQL.claimEvents,
      claimed.flatMap((id) => [
        ...[1, id, 2, 'task.claimed', 'CLAIMED', '1', now, null],
        ...[1, id, 3, 'task.started', 'RUNNING', '1', now, null],
      ]),
    ],
  );
  return writes;
}

/** The ids a group locks for its completions: the previous group's, or a list of none. */
const lockIds = (done: readonly string[]) => (done.length > 0 ? done : Array(GROUP).fill('0'));
const idsOf = (rows: readonly { id: unknown }[]) => rows.map((r) => String(r.id));

interface Way {
  readonly name: string;
  /** Runs one group; returns the ids it claimed (the next group's completions). */
  group(done: readonly string[], now: bigint): Promise<string[]>;
  close(): Promise<void>;
}

/**
 * A way that sends each packet as one multi-statement text: BEGIN with the reads, then the
 * writes with COMMIT. `query` answers one result per statement.
 */
function multiStatementText(
  name: string,
  query: (sql: string, parameters: readonly Param[]) => Promise<unknown[]>,
  close: () => Promise<void>,
): Way {
  return {
    name,
    async group(done, now) {
      const results = await query(`BEGIN;\n${SQL.scan};\n${SQL.lock}`, [
        ...[1, 1, now, now],
        ...lockIds(done),
        1,
      ]);
      const claimed = idsOf(results[1] as { id: unknown }[]);
      const writes = writesOf(done, claimed, now);
      await query(
        `${writes.map(([sql]) => sql).join(';\n')};\nCOMMIT`,
        writes.flatMap(([, p]) => p),
      );
      return claimed;
    },
    close,
  };
}

async function mysql2Text(): Promise<Way> {
  const c = await mysql.createConnection({
    ...CONNECTION,
    database: DB,
    multipleStatements: true,
    supportBigNumbers: true,
    bigNumberStrings: true,
  });
  return multiStatementText(
    'mysql2, multi-statement text (as built)',
    async (sql, parameters) => (await c.query(sql, [...parameters]))[0] as unknown[],
    () => c.end(),
  );
}

async function mariadbConnection(multipleStatements: boolean) {
  return mariadb.createConnection({
    ...CONNECTION,
    database: DB,
    multipleStatements,
    pipelining: true,
    prepareCacheLength: 256,
    bigIntAsNumber: false,
    insertIdAsNumber: false,
  });
}

async function mariadbPipelined(prepared: boolean): Promise<Way> {
  const c = await mariadbConnection(false);
  const send = (sql: string, parameters: readonly Param[]): Promise<unknown> =>
    prepared ? c.execute(sql, [...parameters]) : c.query(sql, [...parameters]);
  return {
    name: prepared
      ? '`mariadb`, binary prepared, pipelined'
      : '`mariadb`, text statements, pipelined',
    async group(done, now) {
      const [, scan] = await Promise.all([
        c.query('BEGIN'),
        send(SQL.scan, [1, 1, now, now]),
        send(SQL.lock, [...lockIds(done), 1]),
      ]);
      const claimed = idsOf(scan as { id: unknown }[]);
      await Promise.all([
        ...writesOf(done, claimed, now).map(([sql, p]) => send(sql, p)),
        c.query('COMMIT'),
      ]);
      return claimed;
    },
    close: () => c.end(),
  };
}

async function mariadbText(): Promise<Way> {
  const c = await mariadbConnection(true);
  return multiStatementText(
    '`mariadb`, multi-statement text',
    (sql, parameters) => c.query<unknown[]>(sql, [...parameters]),
    () => c.end(),
  );
}

/** The scratch database with the product's tables and enough PENDING tasks for every group. */
async function setUp(tasks: number): Promise<void> {
  const c = await mysql.createConnection({ ...CONNECTION, multipleStatements: true });
  try {
    await c.query(`CREATE DATABASE ${DB}`);
    await c.query(`USE ${DB}`);
    for (const file of MIGRATIONS) {
      await c.query(readFileSync(file, 'utf8'));
    }
    const row =
      `(1, 1, 1, 'PENDING', 1, 'null', 0, ${NOW + 3_600_000_000n}, 3, 1000000, '2', ` +
      `60000000, '[]', ${NOW - 1000n}, ${NOW}, ${NOW})`;
    for (let i = 0; i < tasks; i += 1000) {
      await c.query(
        'insert into tasks (namespace_id, application_id, queue_id, status, revision, input, ' +
          'priority, deadline_at, retry_max_attempts, retry_initial_interval_us, ' +
          'retry_backoff_coefficient, retry_max_interval_us, retry_non_retryable_codes, ' +
          `available_at, created_at, updated_at) values ${marks(Math.min(1000, tasks - i), row)}`,
      );
    }
  } finally {
    await c.end();
  }
}

async function main(): Promise<void> {
  const pid = execFileSync('pidof', ['mariadbd']).toString().trim().split(' ')[0] ?? '';
  const ways: Way[] = [];
  const done = new Map<Way, string[]>();
  const totals = new Map<Way, { wall: number; database: number; client: number }>();
  // Four ways, a warm-up slice and the measured slices each, every group claiming GROUP tasks.
  await setUp((ROUNDS + 1) * SLICE * 4 * GROUP + GROUP);
  try {
    ways.push(await mysql2Text(), await mariadbPipelined(true));
    ways.push(await mariadbText(), await mariadbPipelined(false));
    let clock = NOW;
    const slice = async (way: Way) => {
      let claimed = done.get(way) ?? [];
      for (let g = 0; g < SLICE; g++) {
        claimed = await way.group(claimed, (clock += 1n));
      }
      done.set(way, claimed);
    };
    for (const way of ways) {
      await slice(way);
    }
    for (let round = 0; round < ROUNDS; round++) {
      for (const way of ways) {
        const database = databaseCpuMs(pid);
        const client = process.cpuUsage();
        const wall = performance.now();
        await slice(way);
        const used = process.cpuUsage(client);
        const total = totals.get(way) ?? { wall: 0, database: 0, client: 0 };
        total.wall += performance.now() - wall;
        total.database += databaseCpuMs(pid) - database;
        total.client += (used.user + used.system) / 1000;
        totals.set(way, total);
      }
    }
  } finally {
    await Promise.all(ways.map((way) => way.close()));
    const c = await mysql.createConnection(CONNECTION);
    await c.query(`DROP DATABASE IF EXISTS ${DB}`);
    await c.end();
  }
  const groups = ROUNDS * SLICE;
  process.stdout.write(
    `A group of ${GROUP} tasks, ${groups} groups each way (${ROUNDS} rounds of ${SLICE}), ` +
      'per group:\n\n| how the statements go | wall (ms) | MariaDB CPU (ms) | client CPU (ms) |\n' +
      '| --- | ---: | ---: | ---: |\n',
  );
  for (const way of ways) {
    const t = totals.get(way) ?? { wall: NaN, database: NaN, client: NaN };
    const ms = (v: number) => (v / groups).toFixed(2);
    process.stdout.write(`| ${way.name} | ${ms(t.wall)} | ${ms(t.database)} | ${ms(t.client)} |\n`);
  }
}

await main();
