/**
 * The cluster of the crash tests (docs/design/crash-tests.md): real processes on one MariaDB
 * database — two `weave server` nodes and a number of worker processes — that the tests kill
 * and restart. This holds what the Pulse crash test (crash/crash.test.ts) and the Weave crash
 * test (crash/weave-crash.test.ts) share: bootstrap, the nodes and their restart on the same
 * port, the worker processes (each started with its own seed, derived from the run's), the
 * chaos bookkeeping and the shutdown. Each test subclasses it with its own load and chaos
 * schedule.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createConnection } from 'mysql2/promise';
import type { Connection, RowDataPacket } from 'mysql2/promise';
import { WeaveClient } from '@weave/sdk';
import { mysqlConnectionOptions, parseConnectionUrl } from '../../src/store/connection-url.js';
import type { TestDatabase } from './databases.js';
import { track } from './leaks.js';
import { runWeave, startWeave } from './processes.js';
import type { Running } from './processes.js';
import { deriveSeed } from './random.js';

export interface CrashClusterOptions {
  readonly namespace: string;
  readonly app: string;
  readonly queue: string;
  /** Worker processes kept running (slots 0…n-1; slot s talks to node s mod 2). */
  readonly workers: number;
  /**
   * The worker script, started as `node <workerJs> <server-url> <namespace> <api-key> <queue>
   * ...workerArgs <seed>`; the n-th worker process started gets `deriveSeed(seed, n)`.
   */
  readonly workerJs: string;
  readonly workerArgs?: readonly string[];
  /** The run's seed (WEAVE_CRASH_SEED). */
  readonly seed: number;
}

export class CrashCluster {
  readonly db: TestDatabase;
  readonly options: CrashClusterOptions;
  readonly servers: (Running | undefined)[] = [];
  readonly urls: string[] = [];
  readonly workers: (ChildProcess | undefined)[] = [];
  readonly #exits: Promise<unknown>[] = [];
  #sql: Connection | undefined;
  #key = '';
  #stopping = false;
  /** Worker processes started so far: the n-th gets the n-th derived seed. */
  #workerStarts = 0;
  workerKills = 0;
  serverKills = 0;
  chaosError: unknown;

  constructor(db: TestDatabase, options: CrashClusterOptions) {
    this.db = db;
    this.options = options;
  }

  get sql(): Connection {
    assert.ok(this.#sql);
    return this.#sql;
  }

  /** The bootstrap key of the namespace (every scope, every queue). */
  get key(): string {
    return this.#key;
  }

  /** True once the chaos is asked to stop (stopChaos, close). */
  get stopping(): boolean {
    return this.#stopping;
  }

  /**
   * Bootstrap (it migrates first, so the two nodes do not race the migration), a connection for
   * the checks, `prepare` on it (test scaffolding), then the two nodes.
   */
  async boot(prepare: (sql: Connection) => Promise<unknown> = async () => {}): Promise<void> {
    const { namespace, app, queue } = this.options;
    const boot = await runWeave([
      'bootstrap',
      '--db',
      this.db.url,
      '--namespace',
      namespace,
      '--app',
      app,
      '--queue',
      queue,
      '--json',
    ]);
    assert.equal(boot.code, 0, boot.stderr);
    this.#key = (JSON.parse(boot.stdout) as { key: string }).key;
    const config = parseConnectionUrl(this.db.url);
    assert.ok(config.kind === 'mysql');
    const connection = mysqlConnectionOptions(config);
    this.#sql = await createConnection(connection);
    await prepare(this.sql);
    for (let i = 0; i < 2; i++) {
      await this.startServer(i, '0');
    }
  }

  async startServer(slot: number, port: string): Promise<void> {
    const server = await startWeave(
      ['server', '--port', port, '--db', this.db.url],
      { WEAVE_LOG_LEVEL: 'error' },
      { readyOn: 'stderr' },
    );
    server.child.stdout.resume(); // JSON logs: drain them so the node never blocks on a full pipe
    this.servers[slot] = server;
    this.urls[slot] = /listening at (\S+)/.exec(server.firstLine)?.[1] ?? '';
  }

  /** A client of node `slot mod 2`. */
  client(slot: number, fetchImpl?: typeof fetch): WeaveClient {
    return new WeaveClient({
      url: this.urls[slot % 2] ?? '',
      namespace: this.options.namespace,
      apiKey: this.#key,
      ...(fetchImpl === undefined ? {} : { fetch: fetchImpl }),
    });
  }

  startWorkers(): void {
    for (let slot = 0; slot < this.options.workers; slot++) {
      this.startWorker(slot);
    }
  }

  startWorker(slot: number): void {
    const { namespace, queue, workerJs, workerArgs = [], seed } = this.options;
    const args = [this.urls[slot % 2] ?? '', namespace, this.#key, queue, ...workerArgs];
    const child = spawn(
      process.execPath,
      [workerJs, ...args, String(deriveSeed(seed, this.#workerStarts++))],
      { stdio: ['ignore', 'ignore', 'inherit'] },
    );
    const tracked = track('process', `crash worker ${slot}`, () => child.kill('SIGKILL'));
    this.#exits.push(
      new Promise((resolve) =>
        child.once('exit', (code) => {
          tracked.untrack();
          resolve(code);
        }),
      ),
    );
    this.workers[slot] = child;
  }

  /** SIGKILL the worker in `slot` and start a new one there. */
  killWorker(slot: number): void {
    this.workers[slot]?.kill('SIGKILL');
    this.workerKills++;
    this.startWorker(slot);
  }

  /** SIGKILL a node, then a new node on the same port (its workers reconnect to it). */
  async killServer(slot: number): Promise<void> {
    const server = this.servers[slot];
    assert.ok(server);
    const port = new URL(this.urls[slot] ?? '').port;
    await server.stop('SIGKILL');
    this.serverKills++;
    this.servers[slot] = undefined;
    try {
      await this.startServer(slot, port);
    } catch {
      // The port was taken meanwhile (rare): a new node elsewhere. Workers still bound to the old
      // URL cannot claim until the chaos replaces them; the others carry the work.
      await this.startServer(slot, '0');
    }
  }

  /** Fails once the chaos loop failed (checked by the wait for the end of the run). */
  throwIfChaosFailed(): void {
    if (this.chaosError !== undefined) {
      throw new Error('the chaos loop failed', { cause: this.chaosError });
    }
  }

  async stopChaos(chaos: Promise<void>): Promise<void> {
    this.#stopping = true;
    await chaos;
    this.throwIfChaosFailed();
  }

  /** `SELECT COUNT(*) AS n …` on the check connection. */
  async count(text: string, values: unknown[] = []): Promise<number> {
    this.throwIfChaosFailed();
    const [rows] = await this.sql.query<RowDataPacket[]>(text, values);
    return Number(rows[0]?.n ?? 0);
  }

  describe(): string {
    return `${this.serverKills} server kills, ${this.workerKills} worker kills`;
  }

  /** SIGTERM both nodes (graceful: loops stopped, pool closed); their exit codes. */
  async stopServers(): Promise<(number | null)[]> {
    const servers = this.servers.splice(0);
    return Promise.all(
      servers.map((server) => (server ? server.stop('SIGTERM') : Promise.resolve(null))),
    );
  }

  async close(): Promise<void> {
    this.#stopping = true;
    for (const worker of this.workers) {
      worker?.kill('SIGKILL');
    }
    await Promise.all(this.#exits);
    await this.stopServers();
    await this.#sql?.end();
  }
}

/** `ms` ± 25 %. */
export function interval(random: () => number, ms: number): number {
  return ms * (0.75 + random() / 2);
}

export function seconds(ms: number): number {
  return Math.round(ms / 100) / 10;
}

export function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
