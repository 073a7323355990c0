/**
 * What a claim scan pays for the tasks claimed before it that InnoDB has not yet purged
 * (docs/design/hot-path.md §59). A claim moves a task's `ix_tasks_claim` entry from PENDING to
 * RUNNING: the old entry stays, delete-marked, at the head of the PENDING range until purge removes
 * it, and the next `FOR UPDATE SKIP LOCKED` scan walks over it, checking each for a lock.
 *
 * On a scratch table with the claim index's shape (`queue_id, status, priority DESC, available_at,
 * id`) and the claim scan's shape (readyQuery in claim-tasks.ts), at READ COMMITTED as the server
 * runs: claim rounds of 12 rows, about a group's claim (scan, update to RUNNING, commit), in a
 * row, counting the buffer pool's page requests of each scan (MariaDB's global counter; run it on a
 * quiet server).
 * Three phases: purge free to run, purge held behind an open read view (the walk grows with every
 * round), and after the view is closed and purge has caught up.
 *
 *   node bench/build/claim-head-walk.js [--rounds N]
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { createConnection, type Connection, type RowDataPacket } from 'mysql2/promise';
import { onlyIntFlag } from './int-flag.js';

const DATABASE = `weave_head_walk_${process.pid}`;
const TASKS = 20_000;
const CLAIM = 12;
const USAGE = 'node bench/build/claim-head-walk.js [--rounds N]';

async function connect(database?: string): Promise<Connection> {
  const where = { host: '127.0.0.1', port: 3306, user: 'root' };
  return createConnection(database === undefined ? where : { ...where, database });
}

async function pageRequests(c: Connection): Promise<number> {
  const [rows] = await c.query<RowDataPacket[]>(
    "SHOW GLOBAL STATUS LIKE 'Innodb_buffer_pool_read_requests'",
  );
  return Number(rows[0]?.['Value']);
}

async function fill(c: Connection): Promise<void> {
  await c.query(
    `CREATE TABLE tasks (id BIGINT PRIMARY KEY, queue_id BIGINT NOT NULL,
      status VARCHAR(16) NOT NULL, priority INT NOT NULL, available_at BIGINT NOT NULL,
      deadline_at BIGINT NOT NULL, payload VARCHAR(400) NOT NULL,
      KEY ix_tasks_claim (queue_id, status, priority DESC, available_at, id)) ENGINE=InnoDB`,
  );
  for (let first = 1; first <= TASKS; first += 1000) {
    const values: string[] = [];
    for (let id = first; id < Math.min(first + 1000, TASKS + 1); id++) {
      values.push(`(${id}, 1, 'PENDING', 0, ${1000 + id}, 9999999999, REPEAT('x', 300))`);
    }
    await c.query(`INSERT INTO tasks VALUES ${values.join(',')}`);
  }
}

const SCAN =
  "SELECT * FROM tasks WHERE queue_id = 1 AND status = 'PENDING' AND available_at <= 99999999 " +
  'AND deadline_at + 0 > 5 ORDER BY priority DESC, available_at, id LIMIT ? FOR UPDATE SKIP LOCKED';

/** One claim round; the scan's page requests. */
async function claimRound(c: Connection, counter: Connection): Promise<number> {
  await c.query('BEGIN');
  const before = await pageRequests(counter);
  const [rows] = await c.query<RowDataPacket[]>(SCAN, [CLAIM]);
  const pages = (await pageRequests(counter)) - before;
  const ids = rows.map((r) => Number(r['id']));
  if (ids.length > 0) {
    await c.query(`UPDATE tasks SET status = 'RUNNING' WHERE id IN (${ids.join(',')})`);
  }
  await c.query('COMMIT');
  return pages;
}

async function rounds(c: Connection, counter: Connection, n: number): Promise<number[]> {
  const pages: number[] = [];
  for (let i = 0; i < n; i++) pages.push(await claimRound(c, counter));
  return pages;
}

function line(phase: string, pages: readonly number[]): string {
  const first = pages[0] ?? NaN;
  const last = pages[pages.length - 1] ?? NaN;
  return `| ${phase} | ${pages.length} | ${first} | ${last} | ${(pages.length - 1) * CLAIM} |`;
}

async function main(): Promise<void> {
  const n = onlyIntFlag('--rounds', 100, USAGE);
  const admin = await connect();
  await admin.query(`CREATE DATABASE ${DATABASE}`);
  const c = await connect(DATABASE);
  const holder = await connect(DATABASE);
  try {
    await c.query('SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED');
    await fill(c);
    await sleep(3000);
    const free = await rounds(c, admin, n);
    await sleep(3000);
    await holder.query('START TRANSACTION WITH CONSISTENT SNAPSHOT');
    await holder.query('SELECT id FROM tasks WHERE id = 1');
    const held = await rounds(c, admin, n);
    await holder.query('COMMIT');
    await sleep(5000);
    const after = await rounds(c, admin, n);
    console.log(
      `claim scans of ${CLAIM} rows over ${TASKS} pending tasks, ${n} rounds a phase in a row\n`,
    );
    console.log(
      '| phase | rounds | pages, first scan | pages, last scan | claimed in the phase before the last scan |',
    );
    console.log('| --- | ---: | ---: | ---: | ---: |');
    console.log(line('purge free', free));
    console.log(line('purge held by a read view', held));
    console.log(line('after purge caught up', after));
    const perEntry = ((held[held.length - 1] ?? 0) - (held[0] ?? 0)) / ((held.length - 1) * CLAIM);
    console.log(
      `\npage requests a claimed, unpurged entry adds to a scan (purge held): ${perEntry.toFixed(2)}`,
    );
  } finally {
    await holder.end();
    await c.end();
    await admin.query(`DROP DATABASE IF EXISTS ${DATABASE}`);
    await admin.end();
  }
}

await main();
