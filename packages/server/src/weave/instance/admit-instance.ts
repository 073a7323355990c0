/**
 * The checks and locks of a Start before anything is written (seed 002 §1 steps 1–5, A1.1–A1.5,
 * A4.1–A4.3), in the lock order (runtime.md §1): credential (shared) → application quotas by
 * ascending id → queues by ascending id → the namespace's instance bound.
 */
import { stringify, utf8ByteLength } from '@weave/json';
import type { JsonValue } from '@weave/json';
import { LIMITS } from '@weave/engine';
import type { Principal } from '../../auth/principal.js';
import { requireQueue, requireScope } from '../../auth/principal.js';
import { WeaveError, invalidArgument } from '../../errors.js';
import { resolveResultStream } from '../../orbit/streams.js';
import { compareIds, toId, toInt } from '../../store/values.js';
import type { Tx } from '../../store/with-tx.js';
import { ACTIVE_INSTANCE_STATUSES } from '../model/states.js';
import type { RoundQueue } from '../runtime/activate-work.js';
import type { OwningApplication, PinnedVersion } from './pinned-version.js';
import { inNamespaces } from '../../store/namespace-filter.js';

/** Business keys (seed 002 §4, A4.2): at most 191 characters, kept exactly. */
export const MAX_BUSINESS_KEY_CHARACTERS = 191;
/** Active instances per namespace when the server sets no lower limit (seed 002 §4, A4.3). */
export const DEFAULT_MAX_ACTIVE_INSTANCES = 10_000;

/** A1.1: the credential is read under a shared lock, not from the 1 s cache of the request. */
export async function lockCredential(tx: Tx, principal: Principal): Promise<void> {
  const row = await tx.dialect
    .forShare(
      tx.db
        .selectFrom('credentials')
        .select(['id', 'revoked_at', 'expires_at'])
        .where('namespace_id', '=', principal.namespaceId)
        .where('id', '=', principal.credentialId),
    )
    .executeTakeFirst();
  const expired = row?.expires_at != null && BigInt(row.expires_at) <= tx.now;
  if (row === undefined || row.revoked_at !== null || expired) {
    throw new WeaveError('unauthenticated', 'the key is missing, unknown, revoked or expired');
  }
}

/** A1.1, A1.3: rights over everything the version uses (publishing rights are not enough). */
export function requireStartRights(principal: Principal, pinned: PinnedVersion): void {
  if (pinned.version.hasTasks) {
    requireScope(principal, 'tasks:submit');
  }
  for (const queue of pinned.queues.keys()) {
    requireQueue(principal, queue);
  }
}

/** The quota rows of the owning application and of every queue's application, ascending. */
export async function lockQuotas(
  tx: Tx,
  namespaceId: string,
  applicationIds: readonly string[],
): Promise<void> {
  const ids = [...new Set(applicationIds)].sort(compareIds);
  await tx.dialect
    .forUpdate(
      tx.db
        .selectFrom('application_quotas')
        .select('application_id')
        .where('namespace_id', '=', namespaceId)
        .where('application_id', 'in', ids)
        .orderBy('application_id'),
    )
    .execute();
}

/**
 * A1.3: the version's queues, locked by ascending id; each still exists under its name and
 * application. The capacities the round admits against are the ones read under the lock.
 */
export async function lockQueues(
  tx: Tx,
  namespaceId: string,
  pinned: PinnedVersion,
): Promise<Map<string, RoundQueue>> {
  const queues = [...pinned.queues.values()].sort((a, b) => compareIds(a.id, b.id));
  if (queues.length === 0) {
    return new Map();
  }
  const rows = await tx.dialect
    .forUpdate(
      tx.db
        .selectFrom('queues')
        .select(['id', 'name', 'application_id', 'capacity'])
        .where(
          'id',
          'in',
          queues.map((q) => q.id),
        )
        .where(inNamespaces([namespaceId]))
        .orderBy('id'),
    )
    .execute();
  const locked = new Map(
    rows.map((r) => [
      r.name,
      {
        id: toId(r.id),
        name: r.name,
        applicationId: toId(r.application_id),
        capacity: toInt(r.capacity),
      },
    ]),
  );
  for (const queue of queues) {
    const now = locked.get(queue.name);
    if (now === undefined || now.id !== queue.id || now.applicationId !== queue.applicationId) {
      throw new WeaveError('not_found', `queue ${queue.name} of the workflow went away`, {
        details: { path: '$.workflow' },
      });
    }
  }
  return locked;
}

export interface CheckedRequest {
  readonly inputText: string;
  readonly businessKey: string | null;
  readonly resultStreamId: string | null;
}

/** A4.1, A4.2: input size and schema, business key length, the result stream's owner. */
export async function checkRequest(
  tx: Tx,
  request: {
    readonly namespaceId: string;
    readonly input: JsonValue;
    readonly businessKey?: string | undefined;
    readonly resultStream?: string | undefined;
  },
  pinned: PinnedVersion,
  owner: OwningApplication,
): Promise<CheckedRequest> {
  const inputText = stringify(request.input);
  if (utf8ByteLength(inputText) > LIMITS.maxInstanceInputBytes) {
    throw new WeaveError('payload_too_large', '$.input is over its limit', {
      details: { path: '$.input', limit: LIMITS.maxInstanceInputBytes },
    });
  }
  const problems = pinned.program.validateInput(request.input, '$.input');
  const [first] = problems;
  if (first !== undefined) {
    throw new WeaveError('invalid_argument', first.message, {
      details: { path: first.path, problems: problems.map((p) => ({ ...p })) },
    });
  }
  const key = request.businessKey;
  if (key !== undefined && [...key].length > MAX_BUSINESS_KEY_CHARACTERS) {
    throw invalidArgument(
      '$.business_key',
      `must be at most ${MAX_BUSINESS_KEY_CHARACTERS} characters`,
    );
  }
  const resultStreamId =
    request.resultStream === undefined
      ? null
      : await resolveResultStream(tx, request.namespaceId, owner.id, request.resultStream);
  return { inputText, businessKey: key ?? null, resultStreamId };
}

/**
 * A4.3: at most `limit` active instances per namespace. The namespace's bound row (locked) is an
 * upper bound that only grows; at the limit the active instances are counted exactly, bounded by
 * the limit (runtime.md §1.2). Returns the bound to store if the instance stays active.
 */
export async function admitInstance(tx: Tx, namespaceId: string, limit: number): Promise<bigint> {
  const lock = () =>
    tx.dialect
      .forUpdate(
        tx.db
          .selectFrom('weave_instance_bounds')
          .select('active_bound')
          .where('namespace_id', '=', namespaceId),
      )
      .executeTakeFirst();
  let row = await lock();
  if (row === undefined) {
    // The first Start of the namespace creates the row; a racing first Start's insert is ignored.
    await tx.db
      .insertInto('weave_instance_bounds')
      .orIgnore()
      .values({ namespace_id: namespaceId, active_bound: 0, updated_at: tx.now })
      .execute();
    row = await lock();
  }
  let bound = BigInt(row?.active_bound ?? 0);
  if (bound >= BigInt(limit)) {
    bound = BigInt(await countActive(tx, namespaceId, limit));
    if (bound >= BigInt(limit)) {
      throw new WeaveError(
        'active_instance_limit',
        'the namespace has its maximum of active instances',
        {
          details: { limit },
        },
      );
    }
  }
  return bound + 1n;
}

async function countActive(tx: Tx, namespaceId: string, cap: number): Promise<number> {
  const row = await tx.db
    .selectFrom((eb) =>
      eb
        .selectFrom('weave_instances')
        .select('id')
        .where('namespace_id', '=', namespaceId)
        .where('status', 'in', ACTIVE_INSTANCE_STATUSES)
        .limit(cap)
        .as('a'),
    )
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  return toInt(row.n);
}
