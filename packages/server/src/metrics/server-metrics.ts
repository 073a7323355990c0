/**
 * A server's metrics (docs/operations.md "Metrics"), in the Prometheus text format through
 * prom-client. Three sources:
 *
 * - HTTP requests, timed by the HTTP layer (`observeRequest`);
 * - facts the services report after commit (store/observations.ts): task outcomes, claim waits,
 *   timer lateness. They carry ids; names come from the catalog read at each scrape. A fact whose
 *   names are not known yet (a queue created since the last scrape) waits for the next scrape, at
 *   most MAX_UNNAMED of them;
 * - gauges read from the database at scrape time (database-gauges.ts), reused for `cacheMs`.
 */
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Database } from '../store/database.js';
import type {
  ClaimFact,
  GroupFact,
  Observations,
  TaskEventFact,
  TimerFact,
} from '../store/observations.js';
import type { DatabaseGauges } from './database-gauges.js';
import { QUEUE_DEPTH_STATUSES, readDatabaseGauges } from './database-gauges.js';
import { processMetrics } from './process-metrics.js';

/** The raw task events counted as outcomes, by the label they get (`task.` dropped). */
export const TASK_OUTCOMES = [
  'succeeded',
  'failed',
  'cancelled',
  'needs_review',
  'retry_scheduled',
  'requeued',
] as const;

/** Facts waiting for names; beyond this the oldest are dropped (and counted). */
const MAX_UNNAMED = 10_000;
/** Default reuse of the database gauges: a second scraper (an HA Prometheus pair) costs nothing. */
export const DEFAULT_METRICS_CACHE_MS = 5_000;

const HTTP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
const CLAIM_BUCKETS = [0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300, 1800, 3600];
const TIMER_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];
const GROUP_BUCKETS = [1, 2, 3, 4, 6, 8, 12, 16, 24, 32];

export interface ServerMetricsOptions {
  /** How long a database read is reused (default 5 s; 0: every scrape reads). */
  readonly cacheMs?: number;
}

export interface RequestSample {
  readonly method: string;
  /** The route's path template (`/v1/namespaces/{ns}/queues/{queue}`), never the raw URL. */
  readonly route: string;
  readonly status: number;
  readonly seconds: number;
}

/** The catalog names a fact needs; `Named` records it and says whether it found them. */
type Names = Pick<DatabaseGauges, 'namespaces' | 'queues'>;
type Named = (names: Names) => boolean;

export class ServerMetrics implements Observations {
  readonly #options: ServerMetricsOptions;
  readonly #registry = new Registry();
  readonly #unnamed: Named[] = [];
  #names: Names = {
    namespaces: new Map(),
    queues: new Map(),
  };
  #read: { at: number; gauges: Promise<DatabaseGauges> } | undefined;
  #database: Database | undefined;

  readonly #requests = new Histogram({
    name: 'weave_http_request_duration_seconds',
    help: 'HTTP requests by method, route template and status code.',
    labelNames: ['method', 'route', 'status'],
    buckets: HTTP_BUCKETS,
    registers: [this.#registry],
  });
  readonly #outcomes = new Counter({
    name: 'weave_task_outcomes_total',
    help: 'Task outcomes (succeeded, failed, cancelled, needs_review, retry_scheduled, requeued).',
    labelNames: ['namespace', 'queue', 'outcome'],
    registers: [this.#registry],
  });
  readonly #claimWait = new Histogram({
    name: 'weave_task_claim_wait_seconds',
    help: 'Time from a task becoming claimable (submitted or retry due) to its claim.',
    labelNames: ['namespace', 'queue'],
    buckets: CLAIM_BUCKETS,
    registers: [this.#registry],
  });
  readonly #timerLateness = new Histogram({
    name: 'weave_timer_lateness_seconds',
    help: 'Workflow TIMER steps: fire time minus due time.',
    labelNames: ['namespace'],
    buckets: TIMER_BUCKETS,
    registers: [this.#registry],
  });
  readonly #groupItems = new Histogram({
    name: 'weave_group_commit_items',
    help: 'Requests that shared one committed transaction (group commit), by group.',
    labelNames: ['group'],
    buckets: GROUP_BUCKETS,
    registers: [this.#registry],
  });
  readonly #dropped = new Counter({
    name: 'weave_metrics_dropped_facts_total',
    help: 'Outcome, claim or timer facts dropped unnamed (queue or namespace not found).',
    registers: [this.#registry],
  });
  readonly #queueTasks = this.#gauge(
    'weave_queue_tasks',
    'Tasks of a queue by status (PENDING includes retry waits).',
    ['namespace', 'queue', 'status'],
  );
  readonly #inFlight = this.#gauge(
    'weave_tasks_in_flight',
    'Tasks of a queue held by workers (CLAIMED + RUNNING).',
    ['namespace', 'queue'],
  );
  readonly #instances = this.#gauge(
    'weave_instances_active',
    'Workflow instances not finished, by status.',
    ['namespace', 'status'],
  );
  readonly #inboxRows = this.#gauge(
    'weave_inbox_pending_rows',
    'Task results committed and not yet consumed by the workflow runner.',
    ['namespace'],
  );
  readonly #inboxLag = this.#gauge(
    'weave_inbox_lag_seconds',
    'Age of the oldest pending inbox row (0 when none).',
    ['namespace'],
  );
  readonly #advances = this.#gauge(
    'weave_pending_advances',
    'Instances with a pending advance (a round that ran out of its change budget).',
    ['namespace'],
  );
  readonly #advanceLag = this.#gauge(
    'weave_pending_advance_lag_seconds',
    'Age of the oldest pending advance (0 when none).',
    ['namespace'],
  );
  readonly #readSeconds = this.#gauge(
    'weave_metrics_database_read_seconds',
    'How long the last read of the database gauges took.',
    [],
  );

  constructor(options: ServerMetricsOptions = {}) {
    this.#options = options;
  }

  /** The database the gauges are read from: the one whose services report here. */
  readFrom(database: Database): void {
    this.#database = database;
  }

  get contentType(): string {
    return this.#registry.contentType;
  }

  observeRequest(sample: RequestSample): void {
    this.#requests.observe(
      { method: sample.method, route: sample.route, status: String(sample.status) },
      sample.seconds,
    );
  }

  /**
   * One increment per queue and outcome, not per fact: a grouped transaction reports the outcomes
   * of ~24 tasks at once, and each `inc` hashes its labels (hot-path.md §24).
   */
  taskEvents(facts: readonly TaskEventFact[]): void {
    const counts = new Map<string, Map<string, number>>(); // queue id → outcome → facts
    for (const fact of facts) {
      const outcome = fact.type.startsWith('task.') ? fact.type.slice('task.'.length) : '';
      if ((TASK_OUTCOMES as readonly string[]).includes(outcome)) {
        const byOutcome = counts.get(fact.queueId) ?? new Map<string, number>();
        byOutcome.set(outcome, (byOutcome.get(outcome) ?? 0) + 1);
        counts.set(fact.queueId, byOutcome);
      }
    }
    for (const [queueId, byOutcome] of counts) {
      for (const [outcome, n] of byOutcome) {
        this.#withQueue({ queueId }, (labels) => this.#outcomes.inc({ ...labels, outcome }, n));
      }
    }
  }

  tasksClaimed(facts: readonly ClaimFact[]): void {
    for (const fact of facts) {
      this.#withQueue(fact, (labels) =>
        this.#claimWait.observe(labels, Number(fact.waitedUs) / 1e6),
      );
    }
  }

  timersFired(facts: readonly TimerFact[]): void {
    for (const fact of facts) {
      this.#named((names) => {
        const namespace = names.namespaces.get(fact.namespaceId);
        if (namespace !== undefined) {
          this.#timerLateness.observe({ namespace }, Number(fact.latenessUs) / 1e6);
        }
        return namespace !== undefined;
      });
    }
  }

  groupCommitted(fact: GroupFact): void {
    this.#groupItems.observe({ group: fact.group }, fact.items);
  }

  /** The exposition text: this server's metrics, then the process's. */
  async render(): Promise<string> {
    const gauges = await this.#gauges();
    this.#names = gauges;
    const waiting = this.#unnamed.splice(0);
    for (const record of waiting) {
      if (!record(gauges)) {
        this.#dropped.inc();
      }
    }
    this.#setGauges(gauges);
    return `${await this.#registry.metrics()}\n${await processMetrics().metrics()}`;
  }

  #gauge<L extends string>(name: string, help: string, labelNames: L[]): Gauge<L> {
    return new Gauge({ name, help, labelNames, registers: [this.#registry] });
  }

  #withQueue(
    fact: { readonly queueId: string },
    record: (labels: { namespace: string; queue: string }) => void,
  ): void {
    this.#named((names) => {
      const labels = names.queues.get(fact.queueId);
      if (labels !== undefined) {
        record({ namespace: labels.namespace, queue: labels.queue });
      }
      return labels !== undefined;
    });
  }

  /** Records now if the names are known, else at the next scrape. */
  #named(record: Named): void {
    if (record(this.#names)) {
      return;
    }
    if (this.#unnamed.length >= MAX_UNNAMED) {
      this.#unnamed.shift();
      this.#dropped.inc();
    }
    this.#unnamed.push(record);
  }

  #gauges(): Promise<DatabaseGauges> {
    const cacheMs = this.#options.cacheMs ?? DEFAULT_METRICS_CACHE_MS;
    const now = performance.now();
    if (this.#read === undefined || now - this.#read.at >= cacheMs) {
      const started = now;
      if (this.#database === undefined) {
        throw new Error('ServerMetrics.readFrom was not called');
      }
      const gauges = readDatabaseGauges(this.#database).then((g) => {
        this.#readSeconds.set((performance.now() - started) / 1000);
        return g;
      });
      // A failed read is not reused: the next scrape tries again.
      gauges.catch(() => (this.#read = undefined));
      this.#read = { at: now, gauges };
    }
    return this.#read.gauges;
  }

  #setGauges(gauges: DatabaseGauges): void {
    for (const gauge of [this.#queueTasks, this.#inFlight, this.#instances]) {
      gauge.reset();
    }
    for (const gauge of [this.#inboxRows, this.#inboxLag, this.#advances, this.#advanceLag]) {
      gauge.reset();
    }
    for (const { namespace, queue, counts } of gauges.queueDepth) {
      for (const status of QUEUE_DEPTH_STATUSES) {
        this.#queueTasks.set({ namespace, queue, status }, counts[status]);
      }
      this.#inFlight.set({ namespace, queue }, counts.CLAIMED + counts.RUNNING);
    }
    for (const { namespace, status, count } of gauges.activeInstances) {
      this.#instances.set({ namespace, status }, count);
    }
    for (const { namespace, rows, lagSeconds } of gauges.inbox) {
      this.#inboxRows.set({ namespace }, rows);
      this.#inboxLag.set({ namespace }, lagSeconds);
    }
    for (const { namespace, rows, lagSeconds } of gauges.pendingAdvances) {
      this.#advances.set({ namespace }, rows);
      this.#advanceLag.set({ namespace }, lagSeconds);
    }
  }
}
