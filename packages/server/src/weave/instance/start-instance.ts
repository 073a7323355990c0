/**
 * Start (seed 002 §1 steps 1–6, A1.1–A1.8; runtime.md §2): one transaction admits the instance
 * and persists its first planning round — instance, gate, every static step and the hidden
 * `$root`, the first activations with their tasks, waits and poll rounds, a pending advance when
 * the 32-change budget ran out, and the history. Any refusal throws, and the caller's `withTx`
 * rolls the whole graph back, tasks included (A1.7). The Idempotency-Key receipt is the route's
 * (run-route): a replay answers the frozen view after `checkStartReplay`.
 */
import { stringify } from '@weave/json';
import type { JsonValue } from '@weave/json';
import { applyDecisions } from '@weave/engine';
import type { ActivateDecision } from '@weave/engine';
import type { Principal } from '../../auth/principal.js';
import type { Tx } from '../../store/with-tx.js';
import { toInstanceStatus } from '../model/instance-status.js';
import { toNewStepRows } from '../model/snapshot-rows.js';
import { activateWork } from '../runtime/activate-work.js';
import { writeHistory } from '../runtime/history.js';
import { appendInstanceOutcome } from '../runtime/instance-outcome.js';
import { causeOf, roundHistory } from '../runtime/round-history.js';
import {
  admitInstance,
  checkRequest,
  lockCredential,
  lockQueues,
  lockQuotas,
  requireStartRights,
} from './admit-instance.js';
import type { CheckedRequest } from './admit-instance.js';
import { owningApplication, readPinnedVersion } from './pinned-version.js';
import type { OwningApplication, PinnedVersion } from './pinned-version.js';
import { insertFirstRows } from './start-rows.js';

/** Decisions per round (seed 002 §3, A3.1). */
const ROUND_LIMIT = 32;
const US_PER_MS = 1000n;

export interface StartRequest {
  readonly principal: Principal;
  readonly workflow: string;
  readonly version?: number | undefined;
  readonly input: JsonValue;
  readonly businessKey?: string | undefined;
  readonly resultStream?: string | undefined;
  readonly application?: string | undefined;
  /** Active instances allowed in the namespace (A4.3; a server setting). */
  readonly maxActiveInstances: number;
}

export interface Started {
  readonly instanceId: string;
  /** The queues of the first tasks, one id per task (their claims are woken after commit). */
  readonly queueIds: readonly string[];
}

export async function startInstance(tx: Tx, request: StartRequest): Promise<Started> {
  const { principal } = request;
  const namespaceId = principal.namespaceId;
  await lockCredential(tx, principal);
  const pinned = await readPinnedVersion(tx, namespaceId, request);
  requireStartRights(principal, pinned);
  const owner = await owningApplication(tx, namespaceId, pinned, request.application);
  const queueApps = [...pinned.queues.values()].map((q) => q.applicationId);
  await lockQuotas(tx, namespaceId, [owner.id, ...queueApps]);
  const queues = await lockQueues(tx, namespaceId, pinned);
  const checked = await checkRequest(tx, { ...request, namespaceId }, pinned, owner);
  const bound = await admitInstance(tx, namespaceId, request.maxActiveInstances);
  return persistFirstRound(tx, { request, pinned: { ...pinned, queues }, owner, checked, bound });
}

interface Admitted {
  readonly request: StartRequest;
  readonly pinned: PinnedVersion;
  readonly owner: OwningApplication;
  readonly checked: CheckedRequest;
  /** The namespace's active bound once this instance counts (A4.3). */
  readonly bound: bigint;
}

async function persistFirstRound(tx: Tx, admitted: Admitted): Promise<Started> {
  const { request, pinned } = admitted;
  const namespaceId = request.principal.namespaceId;
  const snapshot = pinned.program.initialSnapshot(request.input, true);
  const { decisions, more } = pinned.program.plan(snapshot, ROUND_LIMIT);
  const after = applyDecisions(snapshot, decisions);
  const status = toInstanceStatus({ steps: after.steps, ending: null, pendingAdvance: more });
  const deadlineAt = tx.now + BigInt(pinned.program.timeoutMs) * US_PER_MS;
  const failure = status.status === 'FAILED' ? causeOf(decisions) : undefined;
  // `instance.admitted` at revision 1, then the first round's entries at 2 (A2.9).
  const history = [
    { type: 'instance.admitted', revision: 1n },
    ...roundHistory(decisions, status, 2n),
  ];
  const rows = await insertFirstRows(tx, {
    ...admitted,
    namespaceId,
    status,
    failure,
    deadlineAt,
    steps: toNewStepRows(pinned.program.steps(), after),
    historyCount: history.length,
    more,
  });
  const activated = await activateWork(
    tx,
    {
      namespaceId,
      instanceId: rows.instanceId,
      deadlineAt,
      steps: rows.steps,
      queues: pinned.queues,
    },
    decisions.filter((d): d is ActivateDecision => d.kind === 'ACTIVATE'),
  );
  await writeHistory(
    tx,
    { namespaceId, instanceId: rows.instanceId, firstSeq: 1n },
    history,
    activated,
  );
  if (status.terminal) {
    await appendInstanceOutcome(tx, {
      namespaceId,
      applicationId: admitted.owner.id,
      resultStreamId: admitted.checked.resultStreamId,
      instanceId: rows.instanceId,
      workflow: pinned.version.workflow,
      version: pinned.version.version,
      revision: 2n,
      status: status.status,
      output: status.output === undefined ? null : stringify(status.output),
      error: failure === undefined ? null : { code: failure.code, message: failure.message },
    });
  } else {
    await tx.write(
      tx.db
        .updateTable('weave_instance_bounds')
        .set({ active_bound: admitted.bound, updated_at: tx.now })
        .where('namespace_id', '=', namespaceId),
    );
  }
  const queueIds = decisions.flatMap((d) =>
    d.kind === 'ACTIVATE' && (d.node === 'TASK' || d.node === 'POLL')
      ? [pinned.queues.get(d.queue)?.id ?? '']
      : [],
  );
  return { instanceId: rows.instanceId, queueIds: queueIds.filter((id) => id !== '') };
}
