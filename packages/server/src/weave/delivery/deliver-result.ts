/**
 * Weave step of the result transaction, seed 000 §1 steps 4–5: for a workflow task
 * (`owner_kind = workflow_activation`, E1.3), a read-only ownership check of activation, step,
 * instance, gate and version (E1.4, E1.9), then the `weave_inbox` row with its frozen
 * `schema_version=1` snapshot (E2.1). Plain and scheduled tasks never get here (E1.2).
 * Weave is a later issue: this does nothing yet, but Pulse calls it at its place in the order.
 */
import type { Tx } from '../../store/with-tx.js';

export interface TaskResultForWorkflow {
  readonly namespaceId: string;
  readonly taskId: string;
  readonly ownerKind: string;
  readonly ownerId: string | null;
  readonly revision: bigint;
  readonly status: string;
  readonly attemptId: string | null;
}

export function deliverResult(_tx: Tx, _result: TaskResultForWorkflow): Promise<void> {
  return Promise.resolve();
}
