/** What a system of the workflow bench (workflow.ts) reports for one scenario. */
import type { ServerStats } from './workflow-server.js';

export type ScenarioId = 's2' | 's3' | 's4' | 'timers';

export interface Sizes {
  /** S2: closed-loop instances of 10 sequential TASKs. */
  readonly s2: number;
  /** S3: instances of the 8-step workflow, over `clients` concurrent clients. */
  readonly s3: number;
  readonly clients: number;
  /** S4: instances × PARALLEL width. */
  readonly s4: number;
  readonly s4Width: number;
  /** Timers: instances of one 1 s TIMER. */
  readonly timers: number;
}

export interface Counters {
  /** COMMITs: counted at the Weave server (both dialects), `xact_commit` on PostgreSQL. */
  readonly commits?: number;
  /** MariaDB `Handler_commit` (global). */
  readonly handlerCommit?: number;
  /** MariaDB `Com_commit` (global). */
  readonly comCommit?: number;
  /**
   * Durable flushes: MariaDB `Innodb_data_fsyncs` (global, redo log and data files), PostgreSQL
   * `pg_stat_wal.wal_sync` (the whole cluster). Several commits can share one (group commit).
   */
  readonly fsyncs?: number;
  /** MariaDB `Innodb_row_lock_waits` and `Innodb_row_lock_time` (ms), global. */
  readonly rowLockWaits?: number;
  readonly rowLockMs?: number;
}

export interface ScenarioResult {
  readonly scenario: ScenarioId;
  readonly instances: number;
  /** Executed steps (workflow-defs.ts `TRANSITION_DEFINITION`). */
  readonly transitions: number;
  /** First start to last end (client clock). */
  readonly wallMs: number;
  /** Instances that did not end SUCCEEDED. */
  readonly failed: number;
  /** Client clock: start call to the end notification, per instance. */
  readonly instanceMs: readonly number[];
  /** S2: per-step latency from the database's step times. */
  readonly stepMs?: readonly number[];
  /** S2 (Weave): per TASK step, the phases between the DB times of its transactions. */
  readonly phases?: Readonly<Record<string, readonly number[]>>;
  /** Timers: firing − due. */
  readonly latenessMs?: readonly number[];
  /** Timers, S4: how long starting all instances took. */
  readonly startPhaseMs?: number;
  readonly counters: Counters;
  /** Weave: the server's own measurements (workflow-server.ts). */
  readonly server?: ServerStats;
  /** DBOS: CPU of its one process (engine, steps and clients). */
  readonly processCpuMs?: number;
  /**
   * Weave MariaDB: lock waits seen by sampling `information_schema.INNODB_LOCK_WAITS` every
   * 100 ms during the scenario — waiting transactions summed over the samples, by the table and
   * index of the lock they wait for.
   */
  readonly lockWaits?: Readonly<Record<string, number>>;
  readonly lockSamples?: number;
  /** Weave: CPU (ms) of the server process, all worker processes and this harness. */
  readonly cpuMs?: { readonly server: number; readonly workers: number; readonly harness: number };
}

export interface SystemInfo {
  readonly name: string;
  readonly kind: 'weave-mysql' | 'weave-sqlite' | 'dbos';
  /** Durability as the database reports it. */
  readonly durability: string;
}

export interface BenchSystem {
  readonly info: SystemInfo;
  setup(): Promise<void>;
  warmUp(): Promise<void>;
  run(scenario: ScenarioId, sizes: Sizes): Promise<ScenarioResult>;
  teardown(): Promise<void>;
}
