/**
 * Pause, resume and cancel (docs/design/controls.md, issue 12 Deliver 2, E4.4, E4.6): one
 * transaction per control. It locks the instance (the per-instance mutex: it waits for a
 * consumer round in progress), checks the pinned version, the caller's queues, the expected
 * revision and the state, changes the control fields (`paused`, `control_version`, the gate),
 * and runs one consumer round with the control's history entry — so a resume plans at once and
 * a cancel tells every leaf in flight to stop in the same commit.
 */
import type { Principal } from '../../auth/principal.js';
import { WeaveError, notFound } from '../../errors.js';
import type { Tx } from '../../store/with-tx.js';
import { readInstance, requireInstanceQueues } from '../instance/read-instance.js';
import type { Instance } from '../model/rows.js';
import { TERMINAL_INSTANCE_STATUSES } from '../model/states.js';
import { consumeInstance } from '../runtime/consume-instance.js';
import type { RoundControl } from '../runtime/consume-instance.js';

export const CONTROL_ACTIONS = ['pause', 'resume', 'cancel'] as const;
export type ControlAction = (typeof CONTROL_ACTIONS)[number];

export interface ControlRequest {
  readonly principal: Principal;
  readonly instanceId: string;
  readonly action: ControlAction;
  readonly expectedRevision?: bigint | undefined;
  readonly reason?: string | undefined;
}

export interface ControlOutcome {
  /** False when the instance already was so: a repeated control changes nothing. */
  readonly changed: boolean;
  /** Queues that got new tasks (a resume): wake their claims after the commit. */
  readonly queueIds: readonly string[];
}

const UNCHANGED: ControlOutcome = { changed: false, queueIds: [] };

export async function controlInstance(tx: Tx, request: ControlRequest): Promise<ControlOutcome> {
  const namespaceId = request.principal.namespaceId;
  await lockInstance(tx, namespaceId, request.instanceId);
  const read = await readInstance(tx, namespaceId, request.instanceId);
  requireInstanceQueues(request.principal, read);
  const { instance } = read;
  if (request.expectedRevision !== undefined && request.expectedRevision !== instance.revision) {
    throw new WeaveError(
      'revision_mismatch',
      `instance ${instance.id} is at revision ${instance.revision}, not ${request.expectedRevision}`,
      { details: { path: '$.expected_revision', revision: instance.revision.toString() } },
    );
  }
  const change = decide(instance, request.action, request.reason);
  if (change === 'unchanged') {
    return UNCHANGED;
  }
  await tx.write(
    tx.db
      .updateTable('weave_instances')
      .set((eb) => ({
        control_version: eb('control_version', '+', 1n),
        updated_at: tx.now,
        ...(request.action === 'cancel' ? {} : { paused: request.action === 'pause' ? 1 : 0 }),
      }))
      .where('namespace_id', '=', namespaceId)
      .where('id', '=', instance.id),
  );
  if (request.action !== 'cancel') {
    // HELD while paused; a gate already CLOSING (an ending) is left as it is.
    const [from, to] = request.action === 'pause' ? ['OPEN', 'HELD'] : ['HELD', 'OPEN'];
    await tx.write(
      tx.db
        .updateTable('weave_gates')
        .set({ state: to, reason: to === 'HELD' ? 'paused' : null, updated_at: tx.now })
        .where('namespace_id', '=', namespaceId)
        .where('instance_id', '=', instance.id)
        .where('state', '=', from),
    );
  }
  const consumed = await consumeInstance(
    tx,
    { namespaceId, instanceId: instance.id },
    undefined,
    change,
  );
  return { changed: true, queueIds: consumed.queueIds };
}

async function lockInstance(tx: Tx, namespaceId: string, instanceId: string): Promise<void> {
  const row = /^[0-9]{1,19}$/.test(instanceId)
    ? await tx.dialect
        .forUpdate(
          tx.db
            .selectFrom('weave_instances')
            .select('id')
            .where('namespace_id', '=', namespaceId)
            .where('id', '=', instanceId),
        )
        .executeTakeFirst()
    : undefined;
  if (row === undefined) {
    throw notFound(`instance ${instanceId}`, { path: '$.instance' });
  }
}

const HISTORY: Record<ControlAction, string> = {
  pause: 'instance.paused',
  resume: 'instance.resumed',
  cancel: 'instance.cancel_requested',
};

/** What the control does to an instance in this state (docs/design/controls.md "States"). */
function decide(
  instance: Instance,
  action: ControlAction,
  reason: string | undefined,
): RoundControl | 'unchanged' {
  if ((TERMINAL_INSTANCE_STATUSES as readonly string[]).includes(instance.status)) {
    if (action === 'cancel' && instance.status === 'CANCELLED') {
      return 'unchanged';
    }
    throw invalidState(instance, `it has ended ${instance.status}`);
  }
  const entry = { type: HISTORY[action], ...(reason === undefined ? {} : { details: { reason } }) };
  switch (action) {
    case 'pause':
      if (instance.ending !== null) {
        throw invalidState(instance, `it is ending ${instance.ending}`);
      }
      return instance.paused ? 'unchanged' : { entries: [entry] };
    case 'resume':
      return instance.paused ? { entries: [entry] } : 'unchanged';
    case 'cancel':
      if (instance.ending === 'CANCELLED') {
        return 'unchanged';
      }
      if (instance.ending !== null) {
        throw invalidState(instance, `it is ending ${instance.ending}`);
      }
      return { entries: [entry], closing: 'CANCELLED' };
  }
}

function invalidState(instance: Instance, why: string): WeaveError {
  return new WeaveError('invalid_state', `instance ${instance.id} cannot be changed: ${why}`, {
    details: { status: instance.status },
  });
}
