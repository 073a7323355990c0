/**
 * The bulk-operation runner of a node (docs/design/bulk-operations.md "Runner"): every node runs
 * one. A pass claims one RUNNING operation whose lease is free, expired or already its own
 * (`FOR UPDATE SKIP LOCKED` on `(status, lease_until)`: a discovery across namespaces, like
 * Pulse's lease sweep), then runs one batch of it:
 *
 * 1. batch transaction: the operation row locked and its lease checked, the creator's credential
 *    read again (revoked, expired, or without `workflows:control` → FAILED; each instance's
 *    transaction reads it again too, operation-end.ts), the next page of
 *    matching instance ids read through the instance list from the cursor (newest first, below
 *    the bound fixed at creation), the lease renewed — or SUCCEEDED when the page is empty;
 * 2. each instance in its own transaction (apply-to-instance.ts), which also advances the
 *    cursor and the counters and renews the lease;
 * 3. after the last page, SUCCEEDED in a short transaction.
 *
 * A killed node's transaction rolls back; its lease runs out and any node (a restarted one too)
 * claims the operation with the generation bumped, so a node that comes back from a pause past
 * its lease finds its fence gone and writes nothing.
 */
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type { PeriodicLoop } from '../../periodic-loop.js';
import { startPeriodicLoop } from '../../periodic-loop.js';
import type { TaskNotifier } from '../../pulse/task-notifier.js';
import type { Database, Tx } from '../../store/with-tx.js';
import { withTx } from '../../store/with-tx.js';
import { listInstances } from '../instance/list-instances.js';
import type { LeaseHold } from './apply-to-instance.js';
import { applyToInstance, lockHeldOperation } from './apply-to-instance.js';
import { creatorRights, finishOperation } from './operation-end.js';
import type { InstanceOperation } from './operation-record.js';
import { toOperation } from './operation-record.js';

/** Instances per batch: one list page, then one transaction each. */
export const OPERATION_BATCH = 50;
/** How long a claim holds an operation without a renewal (each instance renews it). */
export const OPERATION_LEASE_MS = 10_000;
/** Idle look for new or abandoned operations. */
export const OPERATION_INTERVAL_MS = 250;

export interface OperationRunnerHooks {
  /** After each instance's transaction committed (tests: pause the walk, kill the node). */
  afterInstance?(operationId: string, instanceId: string): Promise<void>;
}

export interface OperationRunnerOptions {
  readonly database: Database;
  readonly notifier: TaskNotifier;
  readonly intervalMs?: number;
  readonly leaseMs?: number;
  readonly batchSize?: number;
  readonly hooks?: OperationRunnerHooks;
  readonly onError?: ((error: unknown) => void) | undefined;
}

interface Claim {
  readonly operation: InstanceOperation;
  readonly hold: LeaseHold;
}

/**
 * The next RUNNING operation whose lease is free, expired or this owner's, of any namespace (a
 * discovery scan on `(status, lease_until)`, SKIP LOCKED: another node's claim in progress is
 * passed over). Everything after it is scoped by the operation's namespace.
 */
function discoverOperation(tx: Tx, owner: string) {
  return tx.dialect
    .forUpdateSkipLocked(
      tx.db
        .selectFrom('weave_instance_operations')
        .selectAll()
        .where('status', '=', 'RUNNING')
        .where((eb) =>
          eb.or([
            eb('lease_until', 'is', null),
            eb('lease_until', '<=', tx.now),
            eb('lease_owner', '=', owner),
          ]),
        )
        .orderBy('id')
        .limit(1),
    )
    .executeTakeFirst();
}

/** One operation for this owner, with the lease taken (generation +1 when it changes hands). */
async function claim(
  database: Database,
  owner: string,
  leaseUs: bigint,
): Promise<Claim | undefined> {
  return withTx(database, async (tx) => {
    const found = await discoverOperation(tx, owner);
    if (found === undefined) {
      return undefined;
    }
    const operation = toOperation(found);
    const generation =
      operation.leaseOwner === owner ? operation.generation : operation.generation + 1n;
    await tx.write(
      tx.db
        .updateTable('weave_instance_operations')
        .set({ lease_owner: owner, lease_until: tx.now + leaseUs, generation, updated_at: tx.now })
        .where('namespace_id', '=', operation.namespaceId)
        .where('id', '=', operation.id),
    );
    return { operation, hold: { owner, generation, leaseUs } };
  });
}

interface Batch {
  readonly items: readonly { readonly id: string; readonly key: string }[];
  readonly last: boolean;
}

/** Step 1: rights, the next page, the lease renewed; undefined when the operation is over or lost. */
async function startBatch(
  database: Database,
  claimed: Claim,
  size: number,
): Promise<Batch | undefined> {
  return withTx(database, async (tx) => {
    const { hold } = claimed;
    if (!(await lockHeldOperation(tx, claimed.operation, hold))) {
      return undefined;
    }
    const row = await tx.db
      .selectFrom('weave_instance_operations')
      .selectAll()
      .where('namespace_id', '=', claimed.operation.namespaceId)
      .where('id', '=', claimed.operation.id)
      .executeTakeFirstOrThrow();
    const operation = toOperation(row);
    const rights = await creatorRights(tx, operation);
    if (rights.stop !== undefined) {
      await finishOperation(tx, operation, rights.stop);
      return undefined;
    }
    const page = await listInstances(tx, {
      namespaceId: operation.namespaceId,
      filter: { ...operation.filter, createdBefore: operation.bound },
      readableQueues: rights.principal.queueNames,
      afterKey: operation.cursorKey ?? undefined,
      size,
    });
    if (page.items.length === 0) {
      await finishOperation(tx, operation, { status: 'SUCCEEDED' });
      return undefined;
    }
    await tx.write(
      tx.db
        .updateTable('weave_instance_operations')
        .set({ lease_until: tx.now + hold.leaseUs, updated_at: tx.now })
        .where('namespace_id', '=', operation.namespaceId)
        .where('id', '=', operation.id),
    );
    return {
      items: page.items.map((i) => ({ id: i.id, key: `${i.createdAt}.${i.id}` })),
      last: page.nextAfterId === undefined,
    };
  });
}

/** One pass: claim, one batch. True when there is more to do at once. */
async function pass(
  options: OperationRunnerOptions,
  owner: string,
  isStopped: () => boolean,
): Promise<boolean> {
  const { database } = options;
  const leaseUs = BigInt(options.leaseMs ?? OPERATION_LEASE_MS) * 1000n;
  const claimed = await claim(database, owner, leaseUs);
  if (claimed === undefined) {
    return false;
  }
  const batch = await startBatch(database, claimed, options.batchSize ?? OPERATION_BATCH);
  if (batch === undefined) {
    return true;
  }
  for (const item of batch.items) {
    if (isStopped() || database.wakeUps.closed) {
      return false;
    }
    const result = await withTx(database, async (tx) => {
      const done = await applyToInstance(tx, {
        operation: claimed.operation,
        instanceId: item.id,
        key: item.key,
        hold: claimed.hold,
      });
      if (done.kind === 'recorded') {
        tx.afterCommit(() => {
          for (const queueId of done.queueIds) {
            options.notifier.notify(queueId, 1);
          }
        });
      }
      return done;
    });
    if (result.kind !== 'recorded') {
      return true;
    }
    await options.hooks?.afterInstance?.(claimed.operation.id, item.id);
  }
  if (batch.last) {
    await withTx(database, async (tx) => {
      if (await lockHeldOperation(tx, claimed.operation, claimed.hold)) {
        await finishOperation(tx, claimed.operation, { status: 'SUCCEEDED' });
      }
    });
  }
  return true;
}

/** This node's lease owner name: host, process and a random part (a restart is a new owner). */
function ownerName(): string {
  return `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`.slice(0, 200);
}

export function startOperationRunner(options: OperationRunnerOptions): PeriodicLoop {
  const owner = ownerName();
  return startPeriodicLoop({
    intervalMs: options.intervalMs ?? OPERATION_INTERVAL_MS,
    pass: async (isStopped) => !isStopped() && (await pass(options, owner, isStopped)),
    onError: options.onError,
  });
}
