/**
 * Sending a signal (docs/design/signals.md §2, issue 12 Deliver 1): admitted with DB time,
 * delivered once per instance to every WAITING SIGNAL or POLL final-signal wait of the namespace
 * with the exact name, the exact correlation bytes (A4.4) and the same payload version (A2.4)
 * whose wait began before and ends after the admission time; a wait already past its deadline,
 * or closed before the signal came, gets `signal.late` in its history and nothing else. A signal
 * that matched nothing is kept BUFFERED for its `ttl`. One transaction, the caller's.
 *
 * Lock order (runtime.md §1): the instances by ascending id, then the running query tasks of
 * their final-signal POLLs by ascending id (FOR SHARE: the result transaction holds them FOR
 * UPDATE, which is how the two admission times are ordered, E4.5; signals.md §3).
 */
import { WeaveError } from '../../errors.js';
import type { Micros } from '../../store/values.js';
import { toId, toMicros, toMicrosOrNull } from '../../store/values.js';
import type { Tx } from '../../store/with-tx.js';
import { readNow } from '../../store/with-tx.js';
import { stringify } from '@weave/json';
import { deliverToWaits } from './deliver-signal.js';
import type { WaitDelivery } from './deliver-signal.js';
import { inNamespaces } from '../../store/namespace-filter.js';

/** The default cap of a signal's buffer window: 24 hours. */
export const DEFAULT_MAX_SIGNAL_TTL_MS = 24 * 60 * 60 * 1000;

/** Open waits one signal looks at (and so instances it locks): the first ones by wait id. */
export const MAX_SIGNAL_WAITS = 1000;
/** Closed waits a correlated signal reports itself late to: the newest ones. */
export const MAX_LATE_WAITS = 100;

export interface SignalRequest {
  readonly namespaceId: string;
  readonly credentialId: string | null;
  readonly name: string;
  /** The correlation key (compared as its exact UTF-8 bytes, A4.4); absent for a direct signal. */
  readonly correlationKey?: string;
  /** The addressed instance of a direct signal. */
  readonly instanceId?: string;
  /** Exact payload JSON text. */
  readonly payload: string;
  readonly payloadVersion: number;
  /** Buffer window; 0 = none. */
  readonly ttlUs: Micros;
}

export interface SignalTarget {
  readonly instanceId: string;
  readonly stepId: string;
}

export interface SignalOutcome {
  readonly signalId: string;
  readonly matched: readonly SignalTarget[];
  readonly late: readonly SignalTarget[];
  readonly bufferedUntil?: Micros;
}

interface CandidateWait {
  readonly id: string;
  readonly instanceId: string;
  readonly activationId: string;
  readonly stepId: string;
  readonly purpose: string;
  readonly state: string;
  readonly dueAt: Micros;
  readonly createdAt: Micros;
  readonly closedAt: Micros | null;
}

type Decision =
  | { readonly kind: 'MATCHED'; readonly wait: CandidateWait }
  | { readonly kind: 'LATE'; readonly wait: CandidateWait; readonly reason: string };

const encoder = new TextEncoder();

/** A correlated signal carries the exact bytes; a direct one none. */
type Resolved = SignalRequest & { readonly correlation?: Uint8Array };

function resolve(request: SignalRequest): Resolved {
  return request.correlationKey === undefined
    ? request
    : { ...request, correlation: encoder.encode(request.correlationKey) };
}

async function readWaits(
  tx: Tx,
  request: Resolved,
  instanceIds?: readonly string[],
): Promise<CandidateWait[]> {
  const ns = request.namespaceId;
  let query = tx.db
    .selectFrom('weave_waits as w')
    .innerJoin('weave_activations as a', (j) =>
      j.onRef('a.id', '=', 'w.activation_id').on('a.namespace_id', '=', ns),
    )
    .select([
      'w.id',
      'w.instance_id',
      'w.activation_id',
      'w.purpose',
      'w.state',
      'w.due_at',
      'w.created_at',
      'w.closed_at',
      'a.step_id',
    ])
    .where('w.namespace_id', '=', ns)
    .where('w.signal_name', '=', request.name)
    .where('w.payload_version', '=', request.payloadVersion)
    .where('w.purpose', 'in', ['SIGNAL', 'POLL_SIGNAL']);
  if (request.correlation !== undefined) {
    query = query.where('w.correlation_key', '=', request.correlation);
  }
  if (request.instanceId !== undefined) {
    query = query.where('w.instance_id', '=', request.instanceId);
  }
  if (instanceIds !== undefined) {
    query = query.where('w.instance_id', 'in', [...instanceIds]);
  }
  // The open waits, oldest first; a correlated signal also records lateness against the newest
  // closed ones. Read apart, so closed waits (never deleted) can never crowd open ones out.
  const open = query.where('w.state', '=', 'WAITING').orderBy('w.id').limit(MAX_SIGNAL_WAITS);
  const rows =
    request.correlation === undefined
      ? (await tx.readAll(open))[0]
      : (
          await tx.readAll(
            open,
            query.where('w.state', '=', 'CANCELLED').orderBy('w.id', 'desc').limit(MAX_LATE_WAITS),
          )
        ).flat();
  return rows.map((r) => ({
    id: toId(r.id),
    instanceId: toId(r.instance_id),
    activationId: toId(r.activation_id),
    stepId: r.step_id,
    purpose: r.purpose,
    state: r.state,
    dueAt: toMicros(r.due_at),
    createdAt: toMicros(r.created_at),
    closedAt: toMicrosOrNull(r.closed_at),
  }));
}

/** Per instance, its earliest wait decides: one delivery per instance and signal. Pure. */
export function decide(waits: readonly CandidateWait[], admittedAt: Micros): Decision[] {
  const byInstance = new Map<string, CandidateWait[]>();
  for (const w of waits) {
    byInstance.set(w.instanceId, [...(byInstance.get(w.instanceId) ?? []), w]);
  }
  const out: Decision[] = [];
  for (const list of byInstance.values()) {
    const began = list.filter((w) => w.createdAt <= admittedAt);
    const open = began.find((w) => w.state === 'WAITING');
    if (open !== undefined) {
      out.push(
        open.dueAt > admittedAt
          ? { kind: 'MATCHED', wait: open }
          : { kind: 'LATE', wait: open, reason: 'wait_deadline_passed' },
      );
      continue;
    }
    const closed = began.find(
      (w) => w.state === 'CANCELLED' && w.dueAt > admittedAt && (w.closedAt ?? 0n) <= admittedAt,
    );
    if (closed !== undefined) {
      out.push({ kind: 'LATE', wait: closed, reason: 'wait_closed' });
    }
  }
  return out;
}

/** Locks the instances, then the running query tasks of their final-signal POLLs. */
async function lockTargets(
  tx: Tx,
  ns: string,
  instanceIds: readonly string[],
): Promise<Map<string, { revision: bigint; historySeq: bigint }>> {
  const rows = await tx.dialect
    .forUpdate(
      tx.db
        .selectFrom('weave_instances')
        .select(['id', 'revision', 'history_seq'])
        .where('id', 'in', [...instanceIds])
        .where(inNamespaces([ns]))
        .orderBy('id'),
    )
    .execute();
  return new Map(
    rows.map((r) => [
      toId(r.id),
      { revision: BigInt(r.revision), historySeq: BigInt(r.history_seq) },
    ]),
  );
}

/** E4.5: the result transaction of a POLL round holds its task; wait for it (signals.md §3). */
async function lockRunningQueries(tx: Tx, ns: string, waits: readonly CandidateWait[]) {
  const polls = waits.filter((w) => w.purpose === 'POLL_SIGNAL' && w.state === 'WAITING');
  if (polls.length === 0) {
    return;
  }
  const rounds = await tx.db
    .selectFrom('weave_poll_rounds')
    .select('task_id')
    .where('namespace_id', '=', ns)
    .where(
      'activation_id',
      'in',
      polls.map((w) => w.activationId),
    )
    .where('state', '=', 'RUNNING')
    .execute();
  const taskIds = rounds.flatMap((r) => (r.task_id === null ? [] : [toId(r.task_id)]));
  if (taskIds.length > 0) {
    await tx.dialect
      .forShare(
        tx.db
          .selectFrom('tasks')
          .select('id')
          .where('id', 'in', taskIds)
          .where(inNamespaces([ns]))
          .orderBy('id'),
      )
      .execute();
  }
}

export async function sendSignal(tx: Tx, signal: SignalRequest): Promise<SignalOutcome> {
  const request = resolve(signal);
  const ns = request.namespaceId;
  // A direct signal locks its instance even without a wait (404 vs 409 below).
  const found = request.instanceId === undefined ? await readWaits(tx, request) : [];
  const instanceIds = [
    ...new Set([
      ...found.map((w) => w.instanceId),
      ...(request.instanceId === undefined ? [] : [request.instanceId]),
    ]),
  ].sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : 1));
  let decisions: Decision[] = [];
  let admittedAt = tx.now;
  let instances = new Map<string, { revision: bigint; historySeq: bigint }>();
  if (instanceIds.length > 0) {
    instances = await lockTargets(tx, ns, instanceIds);
    if (request.instanceId !== undefined && !instances.has(request.instanceId)) {
      throw new WeaveError('not_found', `instance ${request.instanceId} not found`, {
        details: { path: '$.instance' },
      });
    }
    const locked = await readWaits(tx, request, instanceIds);
    await lockRunningQueries(tx, ns, locked);
    // The admission time is read once everything that orders it is held (signals.md §3).
    const clock = await readNow(tx.db, tx.dialect);
    admittedAt = clock > tx.now ? clock : tx.now;
    decisions = decide(locked, admittedAt);
  }
  const matched = decisions.filter((d) => d.kind === 'MATCHED');
  if (request.instanceId !== undefined && decisions.length === 0) {
    throw new WeaveError(
      'invalid_state',
      `instance ${request.instanceId} has no WAITING wait for signal ${request.name} version ${request.payloadVersion}`,
      { details: { path: '$.name' } },
    );
  }
  const buffered = matched.length === 0 && request.ttlUs > 0n;
  const signalId = await insertSignal(tx, request, {
    state: matched.length > 0 ? 'DELIVERED' : buffered ? 'BUFFERED' : 'UNMATCHED',
    matchedCount: matched.length,
    admittedAt,
    expiresAt: buffered ? admittedAt + request.ttlUs : null,
  });
  const deliveries: WaitDelivery[] = matched.map((d) => ({
    signalId,
    waitId: d.wait.id,
    name: request.name,
    payloadVersion: request.payloadVersion,
    admittedAt,
    payload: request.payload,
    instanceId: d.wait.instanceId,
    activationId: d.wait.activationId,
  }));
  await deliverToWaits(tx, { namespaceId: ns, createdAt: admittedAt }, deliveries);
  await recordHistory(tx, { ns, signalId, name: request.name, instances }, decisions);
  const target = (d: Decision) => ({ instanceId: d.wait.instanceId, stepId: d.wait.stepId });
  return {
    signalId,
    matched: matched.map(target),
    late: decisions.filter((d) => d.kind === 'LATE').map(target),
    ...(buffered ? { bufferedUntil: admittedAt + request.ttlUs } : {}),
  };
}

async function insertSignal(
  tx: Tx,
  request: Resolved,
  row: {
    state: string;
    matchedCount: number;
    admittedAt: Micros;
    expiresAt: Micros | null;
  },
): Promise<string> {
  const query = tx.db
    .insertInto('weave_signals')
    .values({
      namespace_id: request.namespaceId,
      name: request.name,
      correlation_key: request.correlation ?? null,
      instance_id: request.instanceId ?? null,
      payload: request.payload,
      payload_version: request.payloadVersion,
      state: row.state,
      matched_count: row.matchedCount,
      admitted_at: row.admittedAt,
      expires_at: row.expiresAt,
      consumed_wait_id: null,
      created_by: request.credentialId,
      created_at: tx.now,
      updated_at: tx.now,
    })
    .returning('id');
  const { rows } = await tx.db.executeQuery(query.compile());
  const id = rows[0]?.id;
  if (id === undefined) {
    throw new Error('no signal id came back');
  }
  return toId(id);
}

/** `signal.received` / `signal.late` in each instance's history; revision + 1 each. */
async function recordHistory(
  tx: Tx,
  at: {
    ns: string;
    signalId: string;
    name: string;
    instances: ReadonlyMap<string, { revision: bigint; historySeq: bigint }>;
  },
  decisions: readonly Decision[],
): Promise<void> {
  for (const d of decisions) {
    const instance = at.instances.get(d.wait.instanceId);
    if (instance === undefined) {
      continue;
    }
    const revision = instance.revision + 1n;
    // One history event (runtime.md §1.10), numbered under the instance lock this holds.
    await tx.write(
      tx.db.insertInto('weave_history').values({
        namespace_id: at.ns,
        instance_id: d.wait.instanceId,
        seq: instance.historySeq + 1n,
        instance_revision: revision,
        type: d.kind === 'MATCHED' ? 'signal.received' : 'signal.late',
        step_id: d.wait.stepId,
        activation_id: d.wait.activationId,
        task_id: null,
        round_id: null,
        inbox_id: null,
        at: tx.now,
        details: stringify({
          signal_id: at.signalId,
          name: at.name,
          ...(d.kind === 'LATE' ? { reason: d.reason } : {}),
        }),
      }),
    );
    await tx.write(
      tx.db
        .updateTable('weave_instances')
        .set({ revision, history_seq: instance.historySeq + 1n, updated_at: tx.now })
        .where('namespace_id', '=', at.ns)
        .where('id', '=', d.wait.instanceId),
    );
  }
}
