/**
 * Wakes long-polling claims on this node as soon as a task of their queue becomes claimable:
 * `notify(queueId)` from `tx.afterCommit`, `wait(queueId, ms, {signal, since})` with an epoch read
 * before the claim (store/wake-ups.ts). Across nodes there is no signal: waiters re-poll at a
 * bounded interval (claim-with-wait.ts). One instance per server.
 */
export { WakeUps as TaskNotifier } from '../store/wake-ups.js';
export type { Epoch } from '../store/wake-ups.js';
