/**
 * A running Weave server: database (migrated at start), HTTP listener, background loops,
 * metrics (`/metrics`).
 * `stop()` drains in-flight requests, stops the loops, then closes the pool.
 */
import type { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { buildHttpApp } from './http/app.js';
import type { Route } from './http/route.js';
import type { Database, StatementHook } from './store/database.js';
import { openDatabase } from './store/database.js';
import { checkReady } from './store/health.js';
import { migrate } from './store/migrate.js';
import { startLeaseSweeper } from './pulse/lease-sweeper.js';
import { startInboxConsumer } from './weave/runtime/inbox-consumer.js';
import { startOperationRunner } from './weave/operations/operation-runner.js';
import type { OperationRunnerHooks } from './weave/operations/operation-runner.js';
import { startScheduleRunner } from './pulse/schedule-runner.js';
import { TaskNotifier } from './pulse/task-notifier.js';
import { startRetentionLoop } from './orbit/retention.js';
import { startWebhookLoop } from './orbit/webhook-loop.js';
import type { WebhookDeliverySettings } from './orbit/webhook-settings.js';
import { toDeliverySettings } from './orbit/webhook-settings.js';
import { parseAllowList } from './orbit/webhook-targets.js';
import { ServerMetrics } from './metrics/server-metrics.js';

export interface ServerOptions {
  /**
   * The workflow inbox consumer's cross-node pickup interval (default 250 ms; results committed
   * on this node are consumed at once). `false`: no consumer on this node.
   */
  readonly inboxIntervalMs?: number | false;
  /** Active workflow instances allowed per namespace (default 10,000, seed 002 §4). */
  readonly maxActiveInstances?: number;
  /** The longest signal buffer window (`ttl`) accepted (default 24 h, docs/design/signals.md). */
  readonly maxSignalTtlMs?: number;
  /** The route table (default: every route of the API); tests wrap it to check answers. */
  readonly routes?: readonly Route[];
  /** `mysql://…` or a SQLite path. */
  readonly db: string;
  readonly port?: number;
  readonly host?: string;
  readonly logLevel?: string | false;
  readonly logStream?: Writable;
  readonly bodyLimitBytes?: number;
  /** Lease and deadline sweep interval (default 1 s); `false` runs no sweeper (tests). */
  readonly sweepIntervalMs?: number | false;
  /** Schedule firing interval (default 1 s); `false` fires no schedules (tests). */
  readonly scheduleIntervalMs?: number | false;
  /** Orbit retention pass interval (default 10 s); `false` runs none (tests). */
  readonly retentionIntervalMs?: number | false;
  /** Webhook delivery idle re-check (default 1 s); `false` delivers no webhooks (tests). */
  readonly webhookIntervalMs?: number | false;
  /** CIDRs, addresses and host names webhooks may reach although private or loopback. */
  readonly webhookAllow?: readonly string[];
  /** Batch size, timeout, lease, backoff and FAILING threshold (docs/webhooks.md). */
  readonly webhookSettings?: Partial<Omit<WebhookDeliverySettings, 'policy'>>;
  /**
   * Bulk-operation runner idle interval (default 250 ms); `false`: no runner on this node
   * (docs/design/bulk-operations.md).
   */
  readonly operationIntervalMs?: number | false;
  /** The runner's lease on an operation (default 10 s): a killed node's is taken over after it. */
  readonly operationLeaseMs?: number;
  /** Test seams of the bulk-operation runner. */
  readonly operationHooks?: OperationRunnerHooks;
  /** Test seam: sees every statement the server runs on its pool (database.ts `onStatement`). */
  readonly onStatement?: StatementHook;
  /** How long `/metrics` reuses its database read (default 5 s; 0: every scrape reads). */
  readonly metricsCacheMs?: number;
  /** When set, `GET /metrics` needs `Authorization: Bearer <token>` (`WEAVE_METRICS_TOKEN`). */
  readonly metricsToken?: string;
}

/** A background loop (e.g. the lease sweeper); stopped before the pool closes. */
export interface BackgroundLoop {
  stop(): Promise<void>;
}

/** How long shutdown waits for in-flight requests before closing their connections. */
const SHUTDOWN_GRACE_MS = 2_000;

export class Server {
  readonly #app: FastifyInstance;
  readonly #database: Database;
  readonly #loops: BackgroundLoop[] = [];
  readonly #notifier: TaskNotifier;
  #url = '';
  #stopping: Promise<void> | undefined;

  private constructor(app: FastifyInstance, database: Database, notifier: TaskNotifier) {
    this.#app = app;
    this.#database = database;
    this.#notifier = notifier;
  }

  static async start(options: ServerOptions): Promise<Server> {
    // A bad allow-list entry or setting fails the start before anything is opened.
    const webhookSettings = toDeliverySettings({
      ...options.webhookSettings,
      policy: parseAllowList(options.webhookAllow ?? []),
    });
    // The metrics receive the services' facts from the database they then read their gauges from.
    const metrics = new ServerMetrics(
      options.metricsCacheMs === undefined ? {} : { cacheMs: options.metricsCacheMs },
    );
    const database = openDatabase(options.db, {
      observations: metrics,
      ...(options.onStatement === undefined ? {} : { onStatement: options.onStatement }),
    });
    metrics.readFrom(database);
    try {
      await migrate(database);
      const notifier = new TaskNotifier();
      const app = buildHttpApp({
        database,
        ready: () => checkReady(database),
        notifier,
        metrics,
        ...(options.metricsToken === undefined ? {} : { metricsToken: options.metricsToken }),
        ...(options.routes === undefined ? {} : { routes: options.routes }),
        settings: {
          ...(options.maxActiveInstances === undefined
            ? {}
            : { maxActiveInstances: options.maxActiveInstances }),
          ...(options.maxSignalTtlMs === undefined
            ? {}
            : { maxSignalTtlMs: options.maxSignalTtlMs }),
        },
        ...(options.logLevel === undefined ? {} : { logLevel: options.logLevel }),
        ...(options.logStream === undefined ? {} : { logStream: options.logStream }),
        ...(options.bodyLimitBytes === undefined ? {} : { bodyLimitBytes: options.bodyLimitBytes }),
      });
      const server = new Server(app, database, notifier);
      const address = await app.listen({
        port: options.port ?? 8420,
        host: options.host ?? '127.0.0.1',
      });
      server.#url = address.replace('[::1]', 'localhost');
      if (options.sweepIntervalMs !== false) {
        server.addLoop(
          startLeaseSweeper({
            database,
            notifier,
            ...(options.sweepIntervalMs === undefined
              ? {}
              : { intervalMs: options.sweepIntervalMs }),
            onError: (e: unknown) => app.log.error({ err: e }, 'lease sweep failed'),
          }),
        );
      }
      if (options.scheduleIntervalMs !== false) {
        server.#startScheduleRunner(options.scheduleIntervalMs);
      }
      if (options.inboxIntervalMs !== false) {
        server.addLoop(
          startInboxConsumer({
            // Its own connections: due work never waits for a pooled connection behind
            // requests that queue on row locks (database.ts `runners`).
            database: database.runners,
            notifier,
            ...(options.inboxIntervalMs === undefined
              ? {}
              : { intervalMs: options.inboxIntervalMs }),
            onError: (e: unknown) => app.log.error({ err: e }, 'workflow inbox consume failed'),
          }),
        );
      }
      if (options.operationIntervalMs !== false) {
        server.#startOperationRunner(options);
      }
      if (options.retentionIntervalMs !== false) {
        server.addLoop(
          startRetentionLoop({
            database,
            ...(options.retentionIntervalMs === undefined
              ? {}
              : { intervalMs: options.retentionIntervalMs }),
            onError: (e: unknown) => app.log.error({ err: e }, 'stream retention failed'),
          }),
        );
      }
      if (options.webhookIntervalMs !== false) {
        server.addLoop(
          startWebhookLoop({
            database,
            ...(options.webhookIntervalMs === undefined
              ? {}
              : { intervalMs: options.webhookIntervalMs }),
            settings: webhookSettings,
            onError: (e: unknown) => app.log.error({ err: e }, 'webhook delivery failed'),
          }),
        );
      }
      return server;
    } catch (e: unknown) {
      await database.close();
      throw e;
    }
  }

  /** Base URL, e.g. `http://127.0.0.1:8420` (the real port when started on port 0). */
  get url(): string {
    return this.#url;
  }

  get database(): Database {
    return this.#database;
  }

  /** This node's claim wake-ups (e.g. `notifier.waiterCount()`: long-polls waiting now). */
  get notifier(): TaskNotifier {
    return this.#notifier;
  }

  /** Fires due schedules (docs/design/pulse.md "Schedules"); every node runs one. */
  #startScheduleRunner(intervalMs: number | undefined): void {
    this.addLoop(
      startScheduleRunner({
        database: this.#database,
        notifier: this.#notifier,
        ...(intervalMs === undefined ? {} : { intervalMs }),
        onError: (e: unknown) => this.#app.log.error({ err: e }, 'schedule firing failed'),
      }),
    );
  }

  /** Processes bulk instance operations (docs/design/bulk-operations.md); every node runs one. */
  #startOperationRunner(options: ServerOptions): void {
    this.addLoop(
      startOperationRunner({
        database: this.#database,
        notifier: this.#notifier,
        ...(options.operationIntervalMs === undefined || options.operationIntervalMs === false
          ? {}
          : { intervalMs: options.operationIntervalMs }),
        ...(options.operationLeaseMs === undefined ? {} : { leaseMs: options.operationLeaseMs }),
        ...(options.operationHooks === undefined ? {} : { hooks: options.operationHooks }),
        onError: (e: unknown) => this.#app.log.error({ err: e }, 'instance operation failed'),
      }),
    );
  }

  addLoop(loop: BackgroundLoop): void {
    this.#loops.push(loop);
  }

  /** Idempotent: a second call waits for the first. */
  stop(): Promise<void> {
    this.#stopping ??= this.#shutdown();
    return this.#stopping;
  }

  async #shutdown(): Promise<void> {
    // Release waiting long-polls first, so closing the listener does not wait up to 30 s.
    this.#notifier.close();
    this.#database.wakeUps.close();
    // A connection whose client aborted a request (a worker stopping its long-poll) keeps Node's
    // server.close() waiting until the keep-alive timeout (72 s in Fastify): in-flight requests
    // get a grace period to finish, then what is left is closed.
    const closing = this.#app.close();
    const force = setTimeout(() => this.#app.server.closeAllConnections(), SHUTDOWN_GRACE_MS);
    await closing;
    clearTimeout(force);
    await Promise.all(this.#loops.map((loop) => loop.stop()));
    await this.#database.close();
  }
}
