/**
 * Instance history (Deliver 8, runtime.md §1.10, §4.5): every event of an instance is appended
 * to `weave_history` in the transaction that caused it, numbered 1, 2, … per instance (the
 * instance row, locked by every writer, keeps the last number). No business payloads: those are
 * in the steps and tasks; the details are small codes.
 */
import { stringify } from '@weave/json';
import { insertRows } from '../../store/insert-rows.js';
import type { Tx } from '../../store/with-tx.js';
import type { Activated } from './activate-work.js';

export interface HistoryEntry {
  readonly type: string;
  /** The instance revision the causing transaction produced. */
  readonly revision: bigint;
  readonly stepId?: string;
  readonly details?: Readonly<Record<string, string | number>>;
}

export async function writeHistory(
  tx: Tx,
  at: { readonly namespaceId: string; readonly instanceId: string; readonly firstSeq: bigint },
  entries: readonly HistoryEntry[],
  activated: readonly Activated[] = [],
): Promise<void> {
  if (entries.length === 0) {
    return;
  }
  const byStep = new Map(activated.map((a) => [a.stepId, a]));
  await tx.write(
    insertRows(
      tx.db,
      'weave_history',
      entries.map((entry, i) => {
        const work = entry.type === 'step.activated' ? byStep.get(entry.stepId ?? '') : undefined;
        // A new wait that took a buffered signal says so on its activation (signals.md §4).
        const details =
          work?.bufferedSignalId === undefined
            ? entry.details
            : { ...entry.details, buffered_signal_id: work.bufferedSignalId };
        return {
          namespace_id: at.namespaceId,
          instance_id: at.instanceId,
          seq: at.firstSeq + BigInt(i),
          instance_revision: entry.revision,
          type: entry.type,
          step_id: entry.stepId ?? null,
          activation_id: work?.activationId ?? null,
          task_id: work?.taskId ?? null,
          round_id: work?.roundId ?? null,
          inbox_id: null,
          at: tx.now,
          details: details === undefined ? null : stringify(details),
        };
      }),
    ),
  );
}
