/**
 * What one durable commit costs on this machine, side by side: a one-row autocommitted insert,
 * N times in a row over one connection, on MariaDB (127.0.0.1:3306, database `test`) and on
 * PostgreSQL (127.0.0.1:5432, database `postgres`). The burn-down's peers commit about twice per
 * job, Pulse a tenth of that, so this is the figure that moves their ratio when the storage under
 * the machine changes (docs/benchmarks.md, Pulse run 14).
 *
 *   node bench/build/commit-latency.js [--commits N]
 */
import { createConnection } from 'mysql2/promise';
import pg from 'pg';
import { onlyIntFlag } from './int-flag.js';

const TABLE = `weave_commit_probe_${process.pid}`;

function quantile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))] ?? NaN;
}

async function timed(n: number, run: () => Promise<unknown>): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await run();
    times.push(performance.now() - t);
  }
  return times.sort((a, b) => a - b);
}

async function mariadb(n: number): Promise<number[]> {
  const c = await createConnection({
    host: '127.0.0.1',
    port: 3306,
    user: 'root',
    database: 'test',
  });
  try {
    await c.query(
      `CREATE TABLE ${TABLE} (id BIGINT AUTO_INCREMENT PRIMARY KEY, v INT) ENGINE=InnoDB`,
    );
    return await timed(n, () => c.query(`INSERT INTO ${TABLE} (v) VALUES (1)`));
  } finally {
    await c.query(`DROP TABLE IF EXISTS ${TABLE}`);
    await c.end();
  }
}

async function postgres(n: number): Promise<number[]> {
  const c = new pg.Client({
    host: '127.0.0.1',
    port: 5432,
    user: 'postgres',
    database: 'postgres',
  });
  await c.connect();
  try {
    await c.query(`CREATE TABLE ${TABLE} (id BIGSERIAL PRIMARY KEY, v INT)`);
    return await timed(n, () => c.query(`INSERT INTO ${TABLE} (v) VALUES (1)`));
  } finally {
    await c.query(`DROP TABLE IF EXISTS ${TABLE}`);
    await c.end();
  }
}

const n = onlyIntFlag('--commits', 400, 'node bench/build/commit-latency.js [--commits N]');
const rows = [
  ['MariaDB (innodb_flush_log_at_trx_commit = 1)', await mariadb(n)],
  ['PostgreSQL (fsync, synchronous_commit on)', await postgres(n)],
] as const;
console.log(`one-row autocommitted insert, ${n} in a row over one connection`);
console.log('| database | p50 (ms) | p99 (ms) | max (ms) |');
console.log('| --- | ---: | ---: | ---: |');
for (const [name, t] of rows) {
  const f = (v: number) => v.toFixed(2);
  console.log(
    `| ${name} | ${f(quantile(t, 0.5))} | ${f(quantile(t, 0.99))} | ${f(t.at(-1) ?? NaN)} |`,
  );
}
