/**
 * Orbit (对外结果流) step of the result transaction, seed 000 §1 step 6: lock the task's result
 * stream row and append the result event. Orbit is a later issue: until then no task has a
 * stream and this does nothing, but it is called at its place in the order (after the inbox
 * write, before audit), so the lock order is already the real one (E1.9).
 */
import type { Tx } from '../store/with-tx.js';

export interface ResultForStream {
  readonly namespaceId: string;
  readonly taskId: string;
  readonly revision: bigint;
  readonly status: string;
}

export function appendResult(_tx: Tx, _result: ResultForStream): Promise<void> {
  return Promise.resolve();
}
