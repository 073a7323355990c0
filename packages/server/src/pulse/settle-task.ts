/**
 * The result transaction (seed 000 §1, E1.1), shared by completions, cancellation and the lease
 * and deadline sweeper. In order, inside the caller's transaction, which rolls back whole on any
 * failure:
 *   1. update the task row;
 *   2. settle the permit (attempt final, task's current attempt and lease cleared) — usage needs
 *      no write: the quota count is derived from task statuses (admission.ts);
 *   3. write the raw status event;
 *   4–5. workflow tasks only (E1.2): read-only ownership check and inbox row (Weave);
 *   6. lock the Orbit stream row and append the result event;
 *   7. audit, and the execution receipt on the attempt.
 * A retry (PENDING again) is a raw status event only: no result is delivered (E1.5).
 */
import { stringify } from '@weave/json';
import { sql } from 'kysely';
import { writeAudits } from '../auth/audit.js';
import { appendResult } from '../orbit/append-result.js';
import { flatten, mapped } from '../store/flatten.js';
import { inNamespaces } from '../store/namespace-filter.js';
import { shaped } from '../store/statement-shapes.js';
import type { Tx } from '../store/with-tx.js';
import { deliverResult } from '../weave/delivery/deliver-result.js';
import { releaseResource } from './resource-keys.js';
import type { TaskChange } from './task-change.js';
import { updateTaskRow, writeTaskEvents } from './task-change.js';
import type { TaskState } from './task-record.js';
import type { AttemptStatus, StoredTaskStatus } from './task-states.js';
import { isTerminal } from './task-states.js';

export interface AttemptSettlement {
  readonly id: string;
  readonly status: AttemptStatus;
  readonly errorCode?: string | null;
  readonly completionDigest?: string;
}

export interface Settlement extends TaskChange {
  readonly attempt?: AttemptSettlement;
  /** Who caused it (null for the sweeper) and the request, for the audit row. */
  readonly actor: { readonly credentialId: string | null; readonly requestId?: string };
}

export interface TaskReceipt {
  readonly taskId: string;
  readonly attemptId: string | null;
  readonly revision: bigint;
  readonly status: StoredTaskStatus;
}

export async function settleTask(
  tx: Tx,
  task: TaskState,
  settlement: Settlement,
): Promise<TaskReceipt> {
  const [receipt] = await settleTasks(tx, [{ task, settlement }]);
  return receipt as TaskReceipt;
}

export interface SettlementOf {
  readonly task: TaskState;
  readonly settlement: Settlement;
}

/**
 * The result transaction for many tasks at once (a batch of completions, a sweep): the same
 * steps in the same order as `settleTask`, each step one statement for the whole set where it
 * can be (task rows, attempts, raw events, audit), per task only where a task needs it
 * (resource keys). The caller holds every task row lock, taken in ascending id.
 */
export async function settleTasks(
  tx: Tx,
  entries: readonly SettlementOf[],
): Promise<TaskReceipt[]> {
  const changes = mapped(entries, ({ task, settlement }) => {
    const terminal = isTerminal(settlement.status);
    const set = {
      ...settlement.set,
      current_attempt_id: null,
      lease_owner: null,
      lease_until: null,
      ...(terminal ? { finished_at: tx.now } : {}),
    };
    const receipt: TaskReceipt = {
      taskId: task.id,
      attemptId: settlement.attempt?.id ?? null,
      revision: task.revision + 1n,
      status: settlement.status,
    };
    return { task, settlement, change: { ...settlement, set }, terminal, receipt };
  });
  await updateTaskRows(tx, changes);
  await settleAttempts(
    tx,
    flatten(changes, ({ task, settlement, receipt }) =>
      settlement.attempt === undefined
        ? []
        : [{ attempt: settlement.attempt, receipt, namespaceId: task.namespaceId }],
    ),
  );
  for (const { task } of changes) {
    // Settling always leaves CLAIMED/RUNNING: the resource key is free for the next task.
    if (task.status === 'CLAIMED' || task.status === 'RUNNING') {
      await releaseResource(tx, task);
    }
  }
  await writeTaskEvents(
    tx,
    changes.map(({ task, settlement, receipt }) => ({
      task,
      change: { ...settlement, revision: receipt.revision },
    })),
  );
  for (const { task, settlement, terminal, receipt } of changes) {
    if (terminal) {
      await deliverTerminal(tx, task, settlement, receipt);
    }
  }
  await writeAudits(
    tx,
    changes.map(({ task, settlement }) => ({
      namespaceId: task.namespaceId,
      credentialId: settlement.actor.credentialId,
      action: settlement.type,
      outcome: 'ok' as const,
      objectType: 'task',
      objectId: task.id,
      ...(settlement.actor.requestId === undefined
        ? {}
        : { requestId: settlement.actor.requestId }),
      ...(settlement.details === undefined ? {} : { details: stringify(settlement.details) }),
    })),
  );
  return changes.map((c) => c.receipt);
}

type TaskSet = NonNullable<TaskChange['set']>;

/**
 * One UPDATE per shape of change (the set of columns it writes): a column whose value differs
 * between tasks goes through `CASE id WHEN … THEN … END`. A single task takes the plain update.
 */
async function updateTaskRows(
  tx: Tx,
  changes: readonly { readonly task: TaskState; readonly change: TaskChange }[],
): Promise<void> {
  if (changes.length === 1) {
    const [only] = changes as [{ task: TaskState; change: TaskChange }];
    await updateTaskRow(tx, only.task, only.change);
    return;
  }
  const shapes = new Map<string, { task: TaskState; change: TaskChange }[]>();
  for (const c of changes) {
    const key = Object.keys(c.change.set ?? {})
      .sort()
      .join(',');
    shapes.set(key, [...(shapes.get(key) ?? []), c]);
  }
  for (const group of shapes.values()) {
    const columns = Object.keys(group[0]?.change.set ?? {}) as (keyof TaskSet)[];
    const ids = mapped(group, (c) => c.task.id);
    const namespaces = namespacesOf(mapped(group, (c) => c.task));
    const status = byId(mapped(group, (c) => [c.task.id, c.change.status] as const));
    const values = mapped(columns, (column) =>
      byId(mapped(group, (c) => [c.task.id, c.change.set?.[column] ?? null] as const)),
    );
    await tx.write(
      shaped(
        tx.db,
        `settled tasks ×${group.length} ns ×${namespaces.length} status ${status.arms} ` +
          mapped(columns, (column, i) => `${column} ${values[i]?.arms}`).join(' '),
        [
          ...status.parameters,
          tx.now,
          ...flatten(values, (v) => v.parameters),
          ...ids,
          ...mapped(namespaces, (id) => BigInt(id)),
        ],
        () => {
          const set: Record<string, unknown> = {
            status: status.value(),
            revision: sql`revision + 1`,
            updated_at: tx.now,
          };
          columns.forEach((column, i) => (set[column] = values[i]?.value()));
          return tx.db
            .updateTable('tasks')
            .set(set)
            .where('id', 'in', ids)
            .where(inNamespaces(namespaces));
        },
      ),
    );
  }
}

/**
 * The value itself when every row gets the same one, else `CASE id WHEN … THEN … END`; with
 * the parameters it binds, in order, and which of the two it is (for a statement's shape). The
 * expression is built only when asked for: `shaped` compiles it once per shape, while the
 * parameters are needed on every call.
 */
function byId(values: readonly (readonly [string, unknown])[]) {
  const first = values[0]?.[1];
  if (values.every(([, v]) => v === first)) {
    return { value: () => first, parameters: [first], arms: 'one' };
  }
  // Ids as numbers: bound as strings, MariaDB compares each row's id with every arm as a double.
  const value = () =>
    sql`CASE id ${sql.join(
      values.map(([id, v]) => sql`WHEN ${BigInt(id)} THEN ${v}`),
      sql` `,
    )} END`;
  return { value, parameters: flatten(values, ([id, v]) => [BigInt(id), v]), arms: 'case' };
}

async function settleAttempts(
  tx: Tx,
  settled: readonly {
    readonly attempt: AttemptSettlement;
    readonly receipt: TaskReceipt;
    readonly namespaceId: string;
  }[],
): Promise<void> {
  if (settled.length === 0) {
    return;
  }
  const pairs = <T>(f: (s: (typeof settled)[number]) => T) =>
    byId(mapped(settled, (s) => [s.attempt.id, f(s)] as const));
  const status = pairs((s) => s.attempt.status);
  const errorCode = pairs((s) => s.attempt.errorCode ?? null);
  const digest = pairs((s) => s.attempt.completionDigest ?? null);
  const receipt = pairs((s) => stringify(receiptJson(s.receipt)));
  const ids = mapped(settled, (s) => s.attempt.id);
  const namespaces = namespacesOf(settled);
  await tx.write(
    shaped(
      tx.db,
      `settled attempts ×${settled.length} ns ×${namespaces.length} ` +
        `${status.arms} ${errorCode.arms} ${digest.arms} ${receipt.arms}`,
      [
        ...status.parameters,
        tx.now,
        ...errorCode.parameters,
        ...digest.parameters,
        ...receipt.parameters,
        ...ids,
        ...namespaces,
      ],
      () =>
        tx.db
          .updateTable('task_attempts')
          .set({
            status: status.value() as string,
            finished_at: tx.now,
            error_code: errorCode.value() as string | null,
            completion_digest: digest.value() as string | null,
            receipt: receipt.value() as string,
          })
          .where('id', 'in', ids)
          .where('namespace_id', 'in', namespaces),
    ),
  );
}

/** The distinct namespaces of a set of tasks or attempts (one, except in a lease sweep). */
function namespacesOf(rows: readonly { readonly namespaceId: string }[]): string[] {
  return [...new Set(mapped(rows, (r) => r.namespaceId))];
}

async function deliverTerminal(
  tx: Tx,
  task: TaskState,
  settlement: Settlement,
  receipt: TaskReceipt,
): Promise<void> {
  if (task.ownerKind !== null) {
    const outcome = outcomeSnapshot(task, settlement, receipt);
    await deliverResult(tx, {
      namespaceId: task.namespaceId,
      taskId: task.id,
      queueId: task.queueId,
      ownerKind: task.ownerKind,
      ownerId: task.ownerId,
      revision: receipt.revision,
      status: receipt.status,
      attemptId: receipt.attemptId,
      effectUncertain: settlement.set?.effect_uncertain === 1 || task.effectUncertain,
      result: outcome.result?.text ?? null,
      error: outcome.error ?? null,
    });
  }
  await appendResult(tx, {
    namespaceId: task.namespaceId,
    applicationId: task.applicationId,
    streamId: task.resultStreamId,
    type: `task.${receipt.status.toLowerCase()}`,
    source: { kind: 'task', id: task.id },
    revision: receipt.revision,
    fields: outcomeSnapshot(task, settlement, receipt),
  });
}

/** The frozen outcome for the stream: the task as this change leaves it, payload text as is. */
function outcomeSnapshot(task: TaskState, settlement: Settlement, receipt: TaskReceipt) {
  const set = settlement.set ?? {};
  const result = set.result !== undefined ? set.result : task.result;
  const errorCode = set.error_code !== undefined ? set.error_code : task.errorCode;
  const errorMessage = set.error_message !== undefined ? set.error_message : task.errorMessage;
  return {
    task_id: task.id,
    ...(receipt.attemptId === null ? {} : { attempt_id: receipt.attemptId }),
    revision: receipt.revision.toString(),
    status: receipt.status,
    ...(task.traceKey === null ? {} : { trace_key: task.traceKey }),
    ...(result === null || receipt.status !== 'SUCCEEDED'
      ? {}
      : { result: { kind: 'raw' as const, text: result } }),
    ...(errorCode === null || receipt.status === 'SUCCEEDED'
      ? {}
      : { error: { code: errorCode, message: errorMessage ?? '' } }),
  };
}

/** The receipt as stored on the attempt and sent on the wire. */
export function receiptJson(receipt: TaskReceipt) {
  return {
    task_id: receipt.taskId,
    attempt_id: receipt.attemptId,
    revision: receipt.revision.toString(),
    status: receipt.status,
  };
}
