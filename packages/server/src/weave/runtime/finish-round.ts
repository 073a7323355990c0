/**
 * The end of every runner round (runtime.md §3.2, §4.4, §4.5): ack the inbox rows the round
 * decided, write its history, and update the instance row once (revision, status, cause,
 * `ending`); when the round ends the instance, close its gate and append its outcome to the
 * Orbit stream — all in the round's transaction.
 */
import { stringify } from '@weave/json';
import type { Tx } from '../../store/with-tx.js';
import type { InstanceStatusResult } from '../model/instance-status.js';
import type { Instance } from '../model/rows.js';
import type { InstanceEnding } from '../model/states.js';
import type { Activated } from './activate-work.js';
import { writeHistory } from './history.js';
import type { HistoryEntry } from './history.js';
import { appendInstanceOutcome } from './instance-outcome.js';
import type { Settlements } from './settle-results.js';

export async function ackRows(
  tx: Tx,
  namespaceId: string,
  settlements: Settlements,
): Promise<void> {
  for (const [id, outcome] of settlements.outcomes) {
    await tx.write(
      tx.db
        .updateTable('weave_inbox')
        .set({
          state: outcome.kind === 'QUARANTINED' ? 'QUARANTINED' : 'PROCESSED',
          outcome: outcome.kind === 'QUARANTINED' ? null : outcome.kind,
          error_code: outcome.kind === 'QUARANTINED' ? outcome.code : null,
          // E2.5: a quarantined row holds no lease; its generation is kept.
          lease_owner: null,
          lease_until: null,
          processed_at: tx.now,
        })
        .where('namespace_id', '=', namespaceId)
        .where('id', '=', id),
    );
  }
}

export interface RoundEnd {
  readonly workflow: string;
  readonly revision: bigint;
  readonly entries: readonly HistoryEntry[];
  readonly activated: readonly Activated[];
  readonly status?: InstanceStatusResult;
  /** The cause of FAILED / TIMED_OUT; `stepId` null when no step caused it (the deadline). */
  readonly failure?: { code: string; message: string; stepId: string | null } | undefined;
  /** Set by this round: the instance deadline passed (runtime.md §4.2) or a cancel. */
  readonly ending?: InstanceEnding;
}

/** Why the gate closes when an ending is set (runtime.md §1.3). */
const GATE_REASON: Record<InstanceEnding, string> = {
  TIMED_OUT: 'deadline',
  CANCELLED: 'cancelled',
};

export async function finishInstance(tx: Tx, instance: Instance, done: RoundEnd): Promise<void> {
  const ref = { namespaceId: instance.namespaceId, instanceId: instance.id };
  await writeHistory(
    tx,
    { ...ref, firstSeq: instance.historySeq + 1n },
    done.entries,
    done.activated,
  );
  const status = done.status;
  const output = status?.output === undefined ? null : stringify(status.output);
  await tx.write(
    tx.db
      .updateTable('weave_instances')
      .set({
        revision: done.revision,
        history_seq: instance.historySeq + BigInt(done.entries.length),
        updated_at: tx.now,
        ...(status === undefined ? {} : { status: status.status }),
        ...(status?.terminal === true ? { finished_at: tx.now, output } : {}),
        ...(done.ending === undefined ? {} : { ending: done.ending, ending_at: tx.now }),
        ...(done.failure === undefined
          ? {}
          : {
              error_code: done.failure.code,
              error_message: done.failure.message,
              error_step_id: done.failure.stepId,
            }),
      })
      .where('namespace_id', '=', instance.namespaceId)
      .where('id', '=', instance.id),
  );
  if (status?.terminal !== true && done.ending === undefined) {
    return;
  }
  await tx.write(
    tx.db
      .updateTable('weave_gates')
      .set(
        status?.terminal === true
          ? { state: 'CLOSED', reason: status.status.toLowerCase(), updated_at: tx.now }
          : {
              state: 'CLOSING',
              reason: GATE_REASON[done.ending ?? 'TIMED_OUT'],
              updated_at: tx.now,
            },
      )
      .where('namespace_id', '=', instance.namespaceId)
      .where('instance_id', '=', instance.id),
  );
  if (status?.terminal === true) {
    await appendInstanceOutcome(tx, {
      namespaceId: instance.namespaceId,
      applicationId: instance.applicationId,
      resultStreamId: instance.resultStreamId,
      instanceId: instance.id,
      workflow: done.workflow,
      version: instance.version,
      revision: done.revision,
      status: status.status,
      output,
      error:
        done.failure === undefined
          ? null
          : { code: done.failure.code, message: done.failure.message },
    });
  }
}
