/**
 * Many completions in one transaction (API.md `POST /queues/{q}/completions`), so a busy worker
 * pays one commit for a batch instead of one per task (DESIGN.md §5a). Each item is whole or
 * nothing on its own: a refused item (permit_stale, …) changes nothing and never blocks the
 * others.
 *
 * Cost per batch, not per item, where it can be:
 *   1. one `SELECT … FOR UPDATE` locks every task of the batch, in ascending id (the lock order
 *      of task rows, so two overlapping batches cannot deadlock each other), and one SELECT reads
 *      their attempts;
 *   2. the checks are pure (planCompletion): an item refused there is refused before any write;
 *   3. the accepted items are settled together (`settleTasks`: the result transaction with one
 *      statement per step and table for the whole set) under ONE savepoint. Should a settlement
 *      refuse (a WeaveError from a later step), the savepoint is rolled back and the items are
 *      settled again each under its own savepoint: the refused one leaves no trace, the others
 *      go on.
 * A task named twice in one batch: the later items run after the others through the one-by-one
 * path, so they see the first item's settlement (a replay or permit_stale).
 */
import { workers } from '@weave/sdk/protocol';
import { isWeaveError, notFound } from '../errors.js';
import type { WeaveError } from '../errors.js';
import { shaped } from '../store/statement-shapes.js';
import type { RowsOf, Tx } from '../store/with-tx.js';
import { compareIds, toId } from '../store/values.js';
import type { CompleteRequest } from './complete-attempt.js';
import { completeAttempt, planCompletion } from './complete-attempt.js';
import { requireOwnPermit } from './permits.js';
import type { Settlement, TaskReceipt } from './settle-task.js';
import { settleTask, settleTasks } from './settle-task.js';
import type { Attempt, TaskState } from './task-record.js';
import { TASK_STATE_COLUMNS, toAttempt, toTaskState } from './task-record.js';
import { inNamespaces } from '../store/namespace-filter.js';
import { kept, mapped } from '../store/flatten.js';

/** Most completions in one call. */
export const MAX_BATCH_COMPLETIONS = workers.MAX_BATCH_COMPLETIONS;

export type BatchItemResult =
  | { readonly index: number; readonly receipt: TaskReceipt }
  | { readonly index: number; readonly error: WeaveError };

interface Item {
  readonly item: CompleteRequest;
  readonly index: number;
}

interface Accepted {
  readonly index: number;
  readonly task: TaskState;
  readonly settlement: Settlement;
}

export interface BatchOptions {
  /** Test seam: the settlement step (default settleTask), to force a refusal while settling. */
  readonly settle?: typeof settleTask;
  /**
   * The batch's rows, already locked by the caller with `lockBatchReads` (sent together with
   * its own reads); the batch then reads nothing before it settles.
   */
  readonly locked?: LockedBatch;
}

export interface LockedBatch {
  readonly tasks: ReadonlyMap<string, TaskState>;
  readonly attempts: ReadonlyMap<string, Attempt>;
}

export async function completeBatch(
  tx: Tx,
  items: readonly CompleteRequest[],
  options: BatchOptions = {},
): Promise<BatchItemResult[]> {
  const ordered = mapped(items, (item, index) => ({ item, index })).sort((a, b) =>
    compareIds(a.item.taskId, b.item.taskId),
  );
  const first: Item[] = [];
  const repeated: Item[] = [];
  const seen = new Set<string>();
  for (const entry of ordered) {
    (seen.has(entry.item.taskId) ? repeated : first).push(entry);
    seen.add(entry.item.taskId);
  }
  const { tasks, attempts } = options.locked ?? (await lockBatch(tx, first));
  const results: BatchItemResult[] = [];
  const accepted: Accepted[] = [];
  for (const { item, index } of first) {
    try {
      const task = tasks.get(item.taskId);
      if (task === undefined) {
        throw notFound(`task ${item.taskId}`, { path: 'task_id' });
      }
      const attempt = requireOwnPermit(task, attempts.get(item.attemptId), item.permit);
      const plan = planCompletion(tx, { task, attempt, request: item });
      if (plan.kind === 'replay') {
        results.push({ index, receipt: plan.receipt });
      } else {
        accepted.push({ index, task, settlement: plan.settlement });
      }
    } catch (e: unknown) {
      results.push({ index, error: refusal(e) });
    }
  }
  results.push(...(await settleAll(tx, accepted, options.settle ?? settleTask)));
  for (const { item, index } of repeated) {
    results.push(await eachAlone(tx, index, () => completeAttempt(tx, item)));
  }
  return results.sort((a, b) => a.index - b.index);
}

/**
 * Settle under one savepoint; on a refusal, again one by one (see the module comment).
 * `tx.savepoint` also drops the commit hooks registered inside it (Orbit's appends), so a
 * rolled-back settlement leaves nothing queued either.
 */
async function settleAll(
  tx: Tx,
  accepted: readonly Accepted[],
  settle: typeof settleTask,
): Promise<BatchItemResult[]> {
  if (accepted.length === 0) {
    return [];
  }
  try {
    return await tx.savepoint(async () => {
      // The whole set in one pass of the result transaction (one statement per step and table),
      // unless a test replaced the per-item step.
      const receipts =
        settle === settleTask
          ? await settleTasks(tx, accepted)
          : await settleEach(tx, accepted, settle);
      return accepted.map(({ index }, i) => ({ index, receipt: receipts[i] as TaskReceipt }));
    });
  } catch (e: unknown) {
    refusal(e);
  }
  const results: BatchItemResult[] = [];
  for (const { index, task, settlement } of accepted) {
    results.push(await eachAlone(tx, index, () => settle(tx, task, settlement)));
  }
  return results;
}

async function settleEach(
  tx: Tx,
  accepted: readonly Accepted[],
  settle: typeof settleTask,
): Promise<TaskReceipt[]> {
  const receipts: TaskReceipt[] = [];
  for (const { task, settlement } of accepted) {
    receipts.push(await settle(tx, task, settlement));
  }
  return receipts;
}

/** One item inside its own savepoint: a refusal rolls back exactly that item. */
async function eachAlone(
  tx: Tx,
  index: number,
  run: () => Promise<TaskReceipt>,
): Promise<BatchItemResult> {
  try {
    return { index, receipt: await tx.savepoint(run) };
  } catch (e: unknown) {
    return { index, error: refusal(e) };
  }
}

/** Only refusals are per item; a driver error (deadlock, lost connection) fails the batch. */
function refusal(e: unknown): WeaveError {
  if (!isWeaveError(e)) {
    throw e;
  }
  return e;
}

const ID_PATTERN = /^[1-9][0-9]{0,18}$/;

/**
 * Locks the batch's task rows with one `SELECT … FOR UPDATE … ORDER BY id` (ascending: the task
 * lock order) and reads their attempts (only written under their task's lock) in the same packet
 * (`tx.readAll`). Ids that are not ids, or rows of another namespace, are simply absent.
 */
async function lockBatch(tx: Tx, items: readonly Item[]): Promise<LockedBatch> {
  const reads = lockBatchReads(
    tx,
    items.map(({ item }) => item),
  );
  return reads.queries === undefined
    ? reads.locked([])
    : reads.locked(await tx.readAll(...reads.queries));
}

/**
 * `lockBatch` as queries and their mapping, for a caller that sends them with its own reads in
 * one packet (grouped worker calls). `queries` is undefined when there is nothing to lock.
 */
export function lockBatchReads(tx: Tx, items: readonly CompleteRequest[]) {
  const namespaceId = items[0]?.namespaceId;
  const wellFormed = (ids: string[]) => kept(ids, (id) => ID_PATTERN.test(id));
  const taskIds = wellFormed(mapped(items, (item) => item.taskId));
  const attemptIds = wellFormed(mapped(items, (item) => item.attemptId));
  const queries =
    namespaceId === undefined || taskIds.length === 0
      ? undefined
      : ([
          shaped(tx.db, `lock tasks ×${taskIds.length}`, [...taskIds, BigInt(namespaceId)], () =>
            tx.dialect.forUpdate(
              tx.db
                .selectFrom('tasks')
                // Not the input (up to 256 KiB a task): settling never reads it.
                .select(TASK_STATE_COLUMNS)
                .where('id', 'in', taskIds)
                .where(inNamespaces([namespaceId]))
                .orderBy('id'),
            ),
          ),
          shaped(
            tx.db,
            `attempts ×${Math.max(1, attemptIds.length)}`,
            [namespaceId, ...(attemptIds.length > 0 ? attemptIds : ['0'])],
            () =>
              tx.db
                .selectFrom('task_attempts')
                .selectAll()
                .where('namespace_id', '=', namespaceId)
                .where('id', 'in', attemptIds.length > 0 ? attemptIds : ['0']),
          ),
        ] as const);
  type Rows = RowsOf<NonNullable<typeof queries>>;
  return {
    queries,
    locked(rows: Rows | readonly []): LockedBatch {
      const [taskRows = [], attemptRows = []] = rows;
      return {
        tasks: new Map(taskRows.map((row) => [toId(row.id), toTaskState(row)])),
        attempts: new Map(attemptRows.map((row) => [toId(row.id), toAttempt(row)])),
      };
    },
  };
}
