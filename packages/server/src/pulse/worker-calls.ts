/**
 * The worker calls of one node, grouped (docs/design/hot-path.md §2): batch completions with
 * their riding claim (`POST /queues/{q}/completions`) and the claims of long-polls that arrive
 * while such a transaction runs share the next one (store/tx-group.ts). Not only the COMMIT is
 * shared: the completions of every call are settled together (`completeBatch`: one lock
 * statement, one statement per step and table), and the claims of one queue scan it once and
 * share out what they locked, in arrival order.
 *
 * Each call keeps its own outcome:
 *   - `admit` (authentication, rights) runs first and writes nothing: a refused call is simply
 *     left out;
 *   - a missing queue refuses only the calls that need it;
 *   - every completion is whole or nothing on its own (`completeBatch`'s savepoints);
 *   - a claim writes only its own tasks' rows.
 * Lock order, as in one call: task rows of all completions (ascending id, one statement), then
 * the claim scans (SKIP LOCKED), then resource rows, then the stream row (beforeCommit).
 */
import { isWeaveError, notFound } from '../errors.js';
import type { Database } from '../store/database.js';
import type { Settled } from '../store/tx-group.js';
import { TxGroup } from '../store/tx-group.js';
import type { Compilable, Selectable } from 'kysely';
import type { TasksTable } from '../store/schema.js';
import type { Tx } from '../store/with-tx.js';
import { compareIds } from '../store/values.js';
import type { Attempt, TaskState } from './task-record.js';
import type { ClaimedTask, ClaimRequest } from './claim-tasks.js';
import {
  claimInTurn,
  claimLimit,
  claimRequest,
  lockReady,
  readyQuery,
  takeResources,
} from './claim-tasks.js';
import type { CompleteRequest } from './complete-attempt.js';
import type { BatchItemResult, BatchOptions } from './complete-batch.js';
import { completeBatch, lockBatchReads } from './complete-batch.js';
import type { Queue } from './queues.js';
import { queueByName } from './queues.js';
import { mapped } from '../store/flatten.js';

type Completion = Omit<CompleteRequest, 'queueId'> & { readonly index: number };

export interface WorkerCallBody {
  readonly namespaceId: string;
  readonly queueName: string;
  /**
   * Batch completions; `index` is the item's place in the caller's list. With completions the
   * queue must exist (404 otherwise); a claim alone answers "no queue" instead.
   */
  readonly completions?: readonly Completion[] | undefined;
  readonly claim?: Omit<ClaimRequest, 'namespaceId' | 'queueName' | 'queue'> | undefined;
}

export interface WorkerCall {
  /** Runs first in the shared transaction; writes nothing. A throw refuses this call only. */
  admit(tx: Tx): Promise<WorkerCallBody>;
  /**
   * The worker that calls (its `worker_id`), if known before admission: a hint only, for the
   * group's wait for returning workers (`RETURN_WINDOW_MS`); it decides no outcome.
   */
  readonly caller?: string | undefined;
}

export interface WorkerCallResult {
  /** undefined when the queue does not exist (a claim alone). */
  readonly queueId: string | undefined;
  readonly paused: boolean;
  /** One per completion, `index` as given. */
  readonly results: readonly BatchItemResult[];
  readonly claimed: readonly ClaimedTask[];
}

/** Most calls in one transaction (each up to 100 completions and a claim of up to 100). */
const MAX_CALLS_PER_GROUP = 32;

/**
 * How long a group may wait for workers that were just handed tasks (docs/design/hot-path.md
 * §8): about a commit plus a worker's turn-around when its handler is quick. A worker whose
 * measured turn-around is quick is waited for longer, up to three times it
 * (store/returning-callers.ts, §20); one that takes longer is not waited for beyond this, so
 * real work is never delayed by more.
 */
export const RETURN_WINDOW_MS = 4;

export interface WorkerCallOptions {
  /**
   * Queue ids seen on this database, by `namespace/name` (one map per node's group). A queue row
   * keeps its id for life (a queue deleted and created again is a new row with a new id), so a
   * known id lets the claim scan go out in the same packet as the queue read; the read beside it
   * decides whether the scan counts. Without it nothing is known and each scan follows its read.
   */
  readonly queueIds?: Map<string, string>;
  /** Test seam: passed to `completeBatch` (forces a refusal while settling). */
  readonly batch?: BatchOptions;
}

const groups = new WeakMap<Database, TxGroup<WorkerCall, WorkerCallResult>>();

/** This node's group of worker calls on `database`. */
export function workerCallsOf(database: Database): TxGroup<WorkerCall, WorkerCallResult> {
  let group = groups.get(database);
  if (group === undefined) {
    const options = { queueIds: new Map<string, string>() };
    group = new TxGroup(database, (tx, calls) => runWorkerCalls(tx, calls, options), {
      name: 'worker_calls',
      maxItems: MAX_CALLS_PER_GROUP,
      maxInFlight: 1,
      overlapCommit: true,
      returning: {
        windowMs: RETURN_WINDOW_MS,
        callerOf: (call) => call.caller,
        // Handed tasks, the worker reports them next: soon, if its handler is quick.
        back: (result) => result.claimed.length > 0,
      },
    });
    groups.set(database, group);
  }
  return group;
}

/**
 * A call's body in the one shape the group reads: every member present, in this order. Bodies
 * come from a batch of completions (with or without its riding claim) and from a long-poll's
 * claim, each with its own object shape; a function compiled for one shape meets another when
 * the other kind of call first arrives, and is thrown away and compiled again
 * (docs/design/hot-path.md §57).
 */
export interface CallBody {
  readonly namespaceId: string;
  readonly queueName: string;
  readonly completions: readonly Completion[] | undefined;
  readonly claim: ClaimRequest | undefined;
}

export function callBody(body: WorkerCallBody): CallBody {
  const { namespaceId, queueName, completions, claim } = body;
  return {
    namespaceId,
    queueName,
    completions,
    claim:
      claim === undefined
        ? undefined
        : claimRequest({
            namespaceId,
            queueName,
            workerId: claim.workerId,
            maxTasks: claim.maxTasks,
            leaseUs: claim.leaseUs,
            start: claim.start === true,
          }),
  };
}

interface Admitted {
  readonly at: number;
  readonly body: CallBody;
  readonly queue: Queue | undefined;
}

interface Answer {
  results: BatchItemResult[];
  claimed: ClaimedTask[];
}

export async function runWorkerCalls(
  tx: Tx,
  calls: readonly WorkerCall[],
  options: WorkerCallOptions = {},
): Promise<Settled<WorkerCallResult>[]> {
  const settled: Settled<WorkerCallResult>[] = [];
  const bodies: { at: number; body: CallBody }[] = [];
  for (const [at, call] of calls.entries()) {
    try {
      bodies.push({ at, body: callBody(await call.admit(tx)) });
    } catch (error: unknown) {
      settled[at] = refused(error);
    }
  }
  const { queues, locked, scanned } = await readTogether(
    tx,
    bodies,
    options.queueIds ?? new Map<string, string>(),
  );
  const admitted: Admitted[] = [];
  for (const { at, body } of bodies) {
    const queue = queues.get(queueKey(body));
    if (queue === undefined && body.completions !== undefined) {
      settled[at] = refused(notFound(`queue ${body.queueName}`, { path: 'queue' }));
    } else {
      admitted.push({ at, body, queue });
    }
  }
  const answers = new Map<number, Answer>(
    mapped(admitted, (a) => [a.at, { results: [], claimed: [] }]),
  );
  await completeAll(tx, admitted, answers, { ...options.batch, locked });
  await claimAll(tx, admitted, answers, scanned);
  for (const { at, queue } of admitted) {
    const answer = answers.get(at) as Answer;
    settled[at] = {
      ok: true,
      value: { queueId: queue?.id, paused: queue?.paused ?? false, ...answer },
    };
  }
  return settled;
}

/** Only refusals are a call's own outcome; anything else fails the group (run alone again). */
function refused(error: unknown): Settled<WorkerCallResult> {
  if (!isWeaveError(error)) {
    throw error;
  }
  return { ok: false, error };
}

function queueKey(body: CallBody): string {
  return `${body.namespaceId}/${body.queueName}`;
}

/** How many tasks a call's claim may take (none without a claim). */
function wantOf(body: CallBody): number {
  return body.claim === undefined ? 0 : claimLimit(body.claim.maxTasks);
}

/** What the claims of one queue want, in all (the scan's limit). */
function claimWants(bodies: readonly { body: CallBody }[]): Map<string, number> {
  const wants = new Map<string, number>();
  for (const { body } of bodies) {
    const n = wantOf(body);
    if (n > 0) {
      wants.set(queueKey(body), (wants.get(queueKey(body)) ?? 0) + n);
    }
  }
  return wants;
}

/**
 * The reads the group needs before it writes, in one packet: each queue named, every
 * completion's task (locked, ascending id, namespaces in id order) and attempt, and — for a
 * queue whose id this process already knows — the claim scan (SKIP LOCKED, after the task locks,
 * as in one call). A scan whose queue turns out paused, missing or renamed is dropped: its rows
 * were only locked, never written.
 */
async function readTogether(
  tx: Tx,
  bodies: readonly { body: CallBody }[],
  knownQueueIds: Map<string, string>,
) {
  const queueReads = new Map<string, ReturnType<typeof queueByName>>();
  const items = new Map<string, CompleteRequest[]>();
  for (const { body } of bodies) {
    const key = queueKey(body);
    if (!queueReads.has(key)) {
      queueReads.set(key, queueByName(tx, body.namespaceId, body.queueName));
    }
    if (body.completions !== undefined) {
      const list = items.get(body.namespaceId) ?? [];
      for (const { index: _index, ...item } of body.completions) {
        list.push(item);
      }
      items.set(body.namespaceId, list);
    }
  }
  const lockReads = mapped([...items.keys()].sort(compareIds), (namespaceId) =>
    lockBatchReads(tx, items.get(namespaceId) ?? []),
  );
  const scans: { key: string; id: string; query: ReturnType<typeof readyQuery> }[] = [];
  for (const [key, limit] of claimWants(bodies)) {
    const id = knownQueueIds.get(key);
    if (id !== undefined) {
      const namespaceId = key.slice(0, key.indexOf('/'));
      scans.push({ key, id, query: readyQuery(tx, { namespaceId, id }, limit) });
    }
  }
  const queries: Compilable<unknown>[] = [];
  for (const read of queueReads.values()) {
    queries.push(read.query);
  }
  for (const read of lockReads) {
    if (read.queries !== undefined) {
      queries.push(...read.queries);
    }
  }
  for (const scan of scans) {
    queries.push(scan.query);
  }
  const rows: unknown[][] = queries.length === 0 ? [] : await tx.readAll(...queries);
  const queues = new Map<string, Queue | undefined>();
  let next = 0;
  for (const [key, read] of queueReads) {
    const queue = read.found((rows[next++] ?? []) as Parameters<typeof read.found>[0]);
    queues.set(key, queue);
    if (queue === undefined) {
      knownQueueIds.delete(key);
    } else {
      knownQueueIds.set(key, queue.id);
    }
  }
  const tasks = new Map<string, TaskState>();
  const attempts = new Map<string, Attempt>();
  for (const read of lockReads) {
    if (read.queries !== undefined) {
      const pair = [rows[next++] ?? [], rows[next++] ?? []] as const;
      const locked = read.locked(pair as Parameters<typeof read.locked>[0]);
      locked.tasks.forEach((task, id) => tasks.set(id, task));
      locked.attempts.forEach((attempt, id) => attempts.set(id, attempt));
    }
  }
  const scanned = new Map<string, readonly Selectable<TasksTable>[]>();
  for (const scan of scans) {
    const found = rows[next++] ?? [];
    const queue = queues.get(scan.key);
    if (queue !== undefined && queue.id === scan.id && !queue.paused) {
      scanned.set(queue.id, found as Selectable<TasksTable>[]);
    }
  }
  return { queues, locked: { tasks, attempts }, scanned };
}

/** Every call's completions of one namespace in one `completeBatch`, answered back by index. */
async function completeAll(
  tx: Tx,
  admitted: readonly Admitted[],
  answers: Map<number, Answer>,
  batchOptions: BatchOptions,
): Promise<void> {
  const byNamespace = new Map<string, { at: number; index: number; item: CompleteRequest }[]>();
  for (const { at, body, queue } of admitted) {
    if (body.completions === undefined) {
      continue;
    }
    const list = byNamespace.get(body.namespaceId) ?? [];
    for (const { index, ...item } of body.completions) {
      list.push({ at, index, item: queue === undefined ? item : { ...item, queueId: queue.id } });
    }
    byNamespace.set(body.namespaceId, list);
  }
  for (const entries of byNamespace.values()) {
    const results = await completeBatch(
      tx,
      mapped(entries, (e) => e.item),
      batchOptions,
    );
    for (const result of results) {
      const entry = entries[result.index];
      if (entry !== undefined) {
        answers.get(entry.at)?.results.push({ ...result, index: entry.index });
      }
    }
  }
}

/** Per queue: one scan for every call claiming from it, shared out in arrival order. */
async function claimAll(
  tx: Tx,
  admitted: readonly Admitted[],
  answers: Map<number, Answer>,
  scanned: ReadonlyMap<string, readonly Selectable<TasksTable>[]>,
): Promise<void> {
  const byQueue = new Map<string, Admitted[]>();
  for (const a of admitted) {
    if (wantOf(a.body) > 0 && a.queue?.paused === false) {
      const list = byQueue.get(a.queue.id) ?? [];
      list.push(a);
      byQueue.set(a.queue.id, list);
    }
  }
  for (const [queueId, claimers] of byQueue) {
    const namespaceId = claimers[0]?.body.namespaceId ?? '';
    // wantOf > 0: each has its claim.
    const requests = mapped(claimers, ({ body }) => body.claim as ClaimRequest);
    const rows = scanned.get(queueId);
    const locked =
      rows === undefined
        ? await lockReady(
            tx,
            { namespaceId, id: queueId },
            claimers.reduce((n, c) => n + wantOf(c.body), 0),
          )
        : await takeResources(tx, rows);
    if (locked.length === 0) {
      continue;
    }
    const claimed = await claimInTurn(tx, locked, requests);
    for (let i = 0; i < claimers.length; i++) {
      const answer = answers.get((claimers[i] as Admitted).at);
      for (const task of claimed[i] ?? []) {
        answer?.claimed.push(task);
      }
    }
  }
}
