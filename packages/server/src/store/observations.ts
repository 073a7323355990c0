/**
 * Facts the services report for metrics (docs/operations.md "Metrics"): what changed, with the
 * ids it changed under. Services report from `tx.afterCommit`, so a rolled-back or retried
 * transaction reports nothing and a retried one reports once. The metrics layer turns ids into
 * names; without one (tests, tools) the facts go nowhere (`NO_OBSERVATIONS`).
 */
import type { Micros } from './values.js';

/** A raw task status event (`task.succeeded`, `task.retry_scheduled`, …) that committed. */
export interface TaskEventFact {
  readonly namespaceId: string;
  readonly queueId: string;
  readonly type: string;
}

/** A task claimed: how long it had been claimable (`now − available_at`). */
export interface ClaimFact {
  readonly namespaceId: string;
  readonly queueId: string;
  readonly waitedUs: Micros;
}

/** A TIMER wait that fired: how late after its due time (`now − due_at`). */
export interface TimerFact {
  readonly namespaceId: string;
  readonly latenessUs: Micros;
}

/** A grouped transaction that committed (store/tx-group.ts): its group and how many items. */
export interface GroupFact {
  /** The group's name (`worker_calls`, `shared_short`, …). */
  readonly group: string;
  readonly items: number;
}

export interface Observations {
  taskEvents(facts: readonly TaskEventFact[]): void;
  tasksClaimed(facts: readonly ClaimFact[]): void;
  timersFired(facts: readonly TimerFact[]): void;
  groupCommitted(fact: GroupFact): void;
}

export const NO_OBSERVATIONS: Observations = Object.freeze({
  taskEvents: () => undefined,
  tasksClaimed: () => undefined,
  timersFired: () => undefined,
  groupCommitted: () => undefined,
});
