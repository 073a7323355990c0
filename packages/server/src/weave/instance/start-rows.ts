/**
 * The rows a Start inserts before its activations (runtime.md §2 steps 12–13, §2.2): the
 * instance, already at revision 2 and in its post-round status (the revision-1 state lives only
 * inside the transaction; the history still records it, A2.9), its gate, every step row in its
 * post-round state, and the pending advance when the round ran out of budget (A3.2).
 */
import { stringify } from '@weave/json';
import { ROOT_STEP_ID } from '@weave/engine';
import { toId } from '../../store/values.js';
import type { Micros } from '../../store/values.js';
import type { Tx } from '../../store/with-tx.js';
import type { InstanceStatusResult } from '../model/instance-status.js';
import type { NewStepRow } from '../model/snapshot-rows.js';
import { insertPendingAdvance } from '../runtime/pending-advance.js';
import type { CheckedRequest } from './admit-instance.js';
import type { OwningApplication, PinnedVersion } from './pinned-version.js';

export interface FirstRows {
  readonly namespaceId: string;
  readonly request: { readonly principal: { readonly credentialId: string } };
  readonly pinned: PinnedVersion;
  readonly owner: OwningApplication;
  readonly checked: CheckedRequest;
  readonly status: InstanceStatusResult;
  readonly failure: { code: string; message: string; stepId: string } | undefined;
  readonly deadlineAt: Micros;
  readonly steps: readonly NewStepRow[];
  /** How many history entries the Start writes (the instance keeps the last seq). */
  readonly historyCount: number;
  /** The round ran out of its 32 changes: a pending advance continues it. */
  readonly more: boolean;
}

export interface InsertedRows {
  readonly instanceId: string;
  /** Step rows by step id, for the activations. */
  readonly steps: ReadonlyMap<string, { readonly id: string; readonly activationCount: number }>;
}

export async function insertFirstRows(tx: Tx, first: FirstRows): Promise<InsertedRows> {
  const instanceId = await insertInstance(tx, first);
  await tx.write(
    tx.db.insertInto('weave_gates').values({
      namespace_id: first.namespaceId,
      instance_id: instanceId,
      state: first.status.terminal ? 'CLOSED' : 'OPEN',
      reason: first.status.terminal ? first.status.status.toLowerCase() : null,
      created_at: tx.now,
      updated_at: tx.now,
    }),
  );
  const steps = await insertSteps(tx, first, instanceId);
  if (first.more) {
    await insertStartAdvance(tx, first, instanceId, steps);
  }
  return { instanceId, steps };
}

async function insertInstance(tx: Tx, first: FirstRows): Promise<string> {
  const { pinned, status, failure } = first;
  const query = tx.db
    .insertInto('weave_instances')
    .values({
      namespace_id: first.namespaceId,
      definition_id: pinned.version.definitionId,
      version_id: pinned.version.id,
      version: pinned.version.version,
      digest: pinned.version.digest,
      application_id: first.owner.id,
      result_stream_id: first.checked.resultStreamId,
      status: status.status,
      revision: 2,
      history_seq: first.historyCount,
      ending: null,
      ending_at: null,
      business_key: first.checked.businessKey,
      input: first.checked.inputText,
      output: status.output === undefined ? null : stringify(status.output),
      error_code: failure?.code ?? null,
      error_message: failure?.message ?? null,
      error_step_id: failure?.stepId ?? null,
      deadline_at: first.deadlineAt,
      created_by: first.request.principal.credentialId,
      created_at: tx.now,
      updated_at: tx.now,
      finished_at: status.terminal ? tx.now : null,
    })
    .returning('id');
  const { rows } = await tx.db.executeQuery(query.compile());
  const [row] = rows;
  if (row === undefined) {
    throw new Error('the instance insert returned no row');
  }
  return toId(row.id);
}

async function insertSteps(
  tx: Tx,
  first: FirstRows,
  instanceId: string,
): Promise<Map<string, { id: string; activationCount: number }>> {
  const query = tx.db
    .insertInto('weave_steps')
    .values(
      first.steps.map((s) => ({
        namespace_id: first.namespaceId,
        instance_id: instanceId,
        step_id: s.stepId,
        kind: s.kind,
        position: s.position,
        status: s.status,
        revision: s.revision,
        output: s.output,
        case_index: s.caseIndex,
        completed_by: s.completedBy,
        cancel_requested: s.cancelRequested ? 1 : 0,
        error_code: first.failure?.stepId === s.stepId ? first.failure.code : null,
        error_message: first.failure?.stepId === s.stepId ? first.failure.message : null,
        finished_at: ['SUCCEEDED', 'FAILED', 'SKIPPED'].includes(s.status) ? tx.now : null,
        updated_at: tx.now,
      })),
    )
    .returning(['id', 'step_id']);
  const { rows } = await tx.db.executeQuery(query.compile());
  return new Map(rows.map((r) => [r.step_id, { id: toId(r.id), activationCount: 0 }]));
}

async function insertStartAdvance(
  tx: Tx,
  first: FirstRows,
  instanceId: string,
  steps: ReadonlyMap<string, { id: string }>,
): Promise<void> {
  const root = first.steps.find((s) => s.stepId === ROOT_STEP_ID);
  const rootRow = steps.get(ROOT_STEP_ID);
  if (root === undefined || rootRow === undefined) {
    throw new Error('the Start has no $root row');
  }
  await insertPendingAdvance(tx, {
    namespaceId: first.namespaceId,
    instanceId,
    rootRowId: rootRow.id,
    rootRevision: root.revision,
    instanceRevision: 2n,
  });
}
