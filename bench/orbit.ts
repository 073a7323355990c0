/**
 * Orbit append throughput and append→read latency (docs/benchmarks.md "Orbit"), on MariaDB and
 * SQLite. Run: `npm run bench:orbit` (= `npm run build && node bench/build/orbit.js`)
 * [--seconds 5] [--rate 100] [--only mysql,sqlite].
 *
 * One in-process server per database. Each append is a transaction that does what the result
 * transaction's Orbit step does (`appendResult`: lock the stream row at commit, insert the
 * frozen event, bump next_seq), so the figures isolate Orbit from Pulse:
 *   1. throughput, 8 concurrent appenders, one event per transaction (one commit per result);
 *   2. throughput, 8 concurrent appenders, 20 events per transaction (a batch of completions);
 *   3. latency below saturation: one append every 1000/rate ms while a reader long-polls
 *      `GET /streams/{s}/events?wait_ms=` over HTTP; latency = reader's receive time − the time
 *      taken just before the append's transaction began (same process clock).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConnection } from 'mysql2/promise';
import { Server, appendResult, bootstrap, withTx } from '@weave/server';
import type { Database, ResultEvent } from '@weave/server';

const MYSQL = process.env.WEAVE_BENCH_MYSQL ?? 'mysql://root@127.0.0.1:3306';
const args = process.argv.slice(2);
const option = (name: string, fallback: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? (args[i + 1] ?? fallback) : fallback;
};
const SECONDS = Number(option('seconds', '5'));
const RATE = Number(option('rate', '100'));
const ONLY = option('only', 'mysql,sqlite').split(',');

interface Target {
  readonly name: string;
  readonly url: string;
  drop(): Promise<void>;
}

async function mysqlTarget(): Promise<Target> {
  const name = `weave_bench_${randomBytes(4).toString('hex')}`;
  const admin = await createConnection(`${MYSQL}/`);
  await admin.query(`CREATE DATABASE ${name} CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin`);
  await admin.end();
  return {
    name: 'MariaDB',
    url: `${MYSQL}/${name}`,
    async drop() {
      const c = await createConnection(`${MYSQL}/`);
      await c.query(`DROP DATABASE IF EXISTS ${name}`);
      await c.end();
    },
  };
}

function sqliteTarget(): Target {
  const dir = mkdtempSync(join(tmpdir(), 'weave-bench-'));
  return {
    name: 'SQLite',
    url: join(dir, 'weave.sqlite'),
    drop: () => Promise.resolve(rmSync(dir, { recursive: true, force: true })),
  };
}

let taskIds = 0;

function event(owner: { namespaceId: string; applicationId: string }, sentAt: number) {
  const id = String(++taskIds);
  const e: ResultEvent = {
    namespaceId: owner.namespaceId,
    applicationId: owner.applicationId,
    streamId: null,
    type: 'task.succeeded',
    source: { kind: 'task', id },
    revision: 5n,
    fields: {
      task_id: id,
      revision: '5',
      status: 'SUCCEEDED',
      trace_key: String(sentAt),
      result: { kind: 'raw', text: '{"ok":true,"amount":12.50}' },
    },
  };
  return e;
}

async function throughput(
  database: Database,
  owner: { namespaceId: string; applicationId: string },
  perTx: number,
) {
  const until = Date.now() + SECONDS * 1000;
  let events = 0;
  const appender = async () => {
    while (Date.now() < until) {
      await withTx(database, async (tx) => {
        for (let i = 0; i < perTx; i++) {
          await appendResult(tx, event(owner, Date.now()));
        }
      });
      events += perTx;
    }
  };
  const started = Date.now();
  await Promise.all(Array.from({ length: 8 }, appender));
  return events / ((Date.now() - started) / 1000);
}

async function latency(
  server: Server,
  key: string,
  owner: { namespaceId: string; applicationId: string },
): Promise<number[]> {
  const samples: number[] = [];
  const head = await fetchJson(server, key, '/streams/app');
  let cursor = (head as { stream: { head_seq: string } }).stream.head_seq;
  const total = Math.round(SECONDS * RATE);
  let stop = false;
  const reader = (async () => {
    while (!stop || samples.length < total) {
      const page = (await fetchJson(
        server,
        key,
        `/streams/app/events?after=${cursor}&wait_ms=1000&limit=1000`,
      )) as { events: { trace_key: string }[]; next_after: string };
      const now = Date.now();
      for (const e of page.events) {
        samples.push(now - Number(e.trace_key));
      }
      cursor = page.next_after;
      if (stop && page.events.length === 0) {
        break;
      }
    }
  })();
  const interval = 1000 / RATE;
  const start = Date.now();
  for (let i = 0; i < total; i++) {
    const due = start + i * interval;
    const wait = due - Date.now();
    if (wait > 0) {
      await new Promise((r) => setTimeout(r, wait));
    }
    const sentAt = Date.now();
    await withTx(server.database, (tx) => appendResult(tx, event(owner, sentAt)));
  }
  stop = true;
  await reader;
  return samples;
}

async function fetchJson(server: Server, key: string, path: string): Promise<unknown> {
  const response = await fetch(`${server.url}/v1/namespaces/bench${path}`, {
    headers: { authorization: `Bearer ${key}` },
  });
  if (!response.ok) {
    throw new Error(`${path}: ${response.status} ${await response.text()}`);
  }
  return response.json();
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}

async function run(target: Target) {
  const server = await Server.start({
    db: target.url,
    port: 0,
    logLevel: false,
    sweepIntervalMs: false,
    scheduleIntervalMs: false,
    retentionIntervalMs: false,
  });
  try {
    const { key } = await bootstrap(server.database, {
      namespace: 'bench',
      application: 'app',
      queues: [],
      scopes: ['admin'],
      credentialName: 'bench',
    });
    const row = await server.database.kysely
      .selectFrom('orbit_streams')
      .select(['namespace_id', 'application_id'])
      .where('name', '=', 'app')
      .executeTakeFirstOrThrow();
    const owner = {
      namespaceId: String(row.namespace_id),
      applicationId: String(row.application_id),
    };
    const single = await throughput(server.database, owner, 1);
    const batched = await throughput(server.database, owner, 20);
    const samples = (await latency(server, key, owner)).sort((a, b) => a - b);
    return {
      name: target.name,
      single,
      batched,
      p50: percentile(samples, 50),
      p99: percentile(samples, 99),
      n: samples.length,
    };
  } finally {
    await server.stop();
    await target.drop();
  }
}

const rows = [];
if (ONLY.includes('mysql')) {
  rows.push(await run(await mysqlTarget()));
}
if (ONLY.includes('sqlite')) {
  rows.push(await run(sqliteTarget()));
}
console.log(
  `Orbit append (8 appenders, ${SECONDS} s each) and append→read latency (${RATE}/s, long-poll reader)`,
);
console.log(
  '| database | events/s, 1 per tx | events/s, 20 per tx | latency p50 | latency p99 | samples |',
);
console.log('| --- | ---: | ---: | ---: | ---: | ---: |');
for (const r of rows) {
  console.log(
    `| ${r.name} | ${r.single.toFixed(0)} | ${r.batched.toFixed(0)} | ${r.p50} ms | ${r.p99} ms | ${r.n} |`,
  );
}
