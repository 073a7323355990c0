/**
 * Wakes long-polling claims on this node as soon as a task of their queue becomes claimable:
 * `notify(queueId)` from `tx.afterCommit`, `wait(queueId, ms, {signal, since})` with an epoch read
 * before the claim (store/signals.ts). Across nodes there is no signal: waiters re-poll at a
 * bounded interval (claim-with-wait.ts). One instance per server.
 */
export { Signals as TaskNotifier } from '../store/signals.js';
export type { Epoch } from '../store/signals.js';
