/**
 * The inbox consumer loop of a node (runtime.md §3.5): it runs at once after a result commits
 * on this node (the result transaction notifies `INBOX_WAKE_UP` after commit), and every
 * `intervalMs` anyway for what other nodes committed or a crashed node left, and for the clock
 * (DB time): waits, POLL rounds and instance deadlines falling due within the next interval set
 * the loop's next wake-up. Each pass reads a page of instances with pending inbox rows, a pending
 * advance or something due (a non-locking discovery read across namespaces, runtime.md §7) and
 * consumes each in its own transaction; an instance another node holds is skipped (SKIP LOCKED)
 * and comes back in a later pass. A consume that throws backs its rows off for a second and, after
 * `MAX_FAILURES`, QUARANTINES them `PLAN_REJECTED`: never executed, never retried forever.
 */
import type { TaskNotifier } from '../../pulse/task-notifier.js';
import type { Database } from '../../store/with-tx.js';
import { withTx } from '../../store/with-tx.js';
import { toId } from '../../store/values.js';
import { WeaveError } from '../../errors.js';
import { ACTIVE_INSTANCE_STATUSES } from '../model/states.js';
import { INBOX_WAKE_UP } from '../delivery/deliver-result.js';
import type { InstanceRef } from './consume-instance.js';
import { consumeTogether } from './consume-together.js';
import { writeHistory } from './history.js';
import { ProgramCache } from './program-cache.js';

/** Cross-node pickup bound (a result committed on another node waits at most this long). */
export const INBOX_INTERVAL_MS = 250;
/** Instances per discovery read. */
const PAGE = 50;
/** Failed consumes of a row before it is QUARANTINED `PLAN_REJECTED` (runtime.md §3.2). */
export const MAX_FAILURES = 5;
/** Consumer transactions at a time (MariaDB/MySQL): a fraction of the pool's connections. */
const PARALLEL = 4;
/** Instances per consumer transaction on SQLite (`groupOf`). */
const GROUP_SQLITE = 16;
/** Back-off after a failed consume. */
const BACKOFF_US = 1_000_000n;

export interface InboxConsumerOptions {
  readonly database: Database;
  readonly notifier: TaskNotifier;
  readonly intervalMs?: number;
  /** Consumer transactions at a time on MariaDB/MySQL (default 4; SQLite: 1). */
  readonly parallel?: number;
  readonly onError?: ((error: unknown) => void) | undefined;
}

export interface InboxConsumer {
  stop(): Promise<void>;
}

interface Discovery {
  readonly refs: InstanceRef[];
  /** Milliseconds until the next wait, round or deadline falls due within the look-ahead. */
  readonly nextDueMs: number | undefined;
}

/**
 * What is due (DB time): pending inbox rows and advances, and the clock's three sets — WAITING
 * waits, SCHEDULED POLL rounds, active instances past their deadline — each on its
 * `(state, due_at, namespace_id, id)` index. Items due within `lookAheadUs` give the loop its
 * next wake-up, so a timer that falls due while this node runs is acted on at once (§4.2).
 */
async function discover(database: Database, lookAheadUs: bigint): Promise<Discovery> {
  const { rows, now } = await withTx(database, async (tx) => {
    const horizon = tx.now + lookAheadUs;
    // Inbox rows and pending advances have the same scan shape (runtime.md §1.9).
    const pending = (table: 'weave_inbox' | 'weave_pending_advances') =>
      tx.db
        .selectFrom(table)
        .select(['namespace_id', 'instance_id', 'available_at as due_at'])
        .where('state', '=', 'PENDING')
        .where('available_at', '<=', tx.now)
        .orderBy('id')
        .limit(PAGE);
    // What is held on purpose stays due: a disabled application's waits and rounds (A5.2), a
    // paused instance's rounds (E4.4). Left in the page they would fill it pass after pass and
    // hide every other instance's timers and rounds; the joins leave them out (the database still
    // walks past them in the index, a primary-key lookup each, but nobody starves).
    const due = (table: 'weave_waits' | 'weave_poll_rounds', state: string, paused: boolean) =>
      tx.db
        // Typed as the waits: the rounds have the same four columns read here.
        .selectFrom(`${table} as w` as 'weave_waits as w')
        .innerJoin('weave_instances as i', (j) =>
          j.onRef('i.namespace_id', '=', 'w.namespace_id').onRef('i.id', '=', 'w.instance_id'),
        )
        .innerJoin('applications as a', (j) =>
          j.onRef('a.namespace_id', '=', 'i.namespace_id').onRef('a.id', '=', 'i.application_id'),
        )
        .select(['w.namespace_id', 'w.instance_id', 'w.due_at'])
        .where('w.state', '=', state)
        .where('w.due_at', '<=', horizon)
        .where('a.disabled', '=', 0)
        .$if(!paused, (q) => q.where('i.paused', '=', 0))
        .orderBy('w.due_at')
        .limit(PAGE);
    const found = await tx.readAll(
      pending('weave_inbox'),
      pending('weave_pending_advances'),
      // A paused instance's timers still fire (controls.md): only its rounds are held.
      due('weave_waits', 'WAITING', true),
      due('weave_poll_rounds', 'SCHEDULED', false),
      tx.db
        .selectFrom('weave_instances')
        .select(['namespace_id', 'id as instance_id', 'deadline_at as due_at'])
        .where('status', 'in', [...ACTIVE_INSTANCE_STATUSES])
        .where('deadline_at', '<=', horizon)
        .where('ending', 'is', null)
        .orderBy('deadline_at')
        .limit(PAGE),
    );
    return { rows: found.flat(), now: tx.now };
  });
  const seen = new Map<string, InstanceRef>();
  let next: bigint | undefined;
  for (const r of rows) {
    const dueAt = BigInt(r.due_at);
    if (dueAt > now) {
      next = next === undefined || dueAt < next ? dueAt : next;
      continue;
    }
    const ref = { namespaceId: toId(r.namespace_id), instanceId: toId(r.instance_id) };
    seen.set(`${ref.namespaceId}/${ref.instanceId}`, ref);
  }
  return {
    refs: [...seen.values()],
    nextDueMs: next === undefined ? undefined : Number((next - now + 999n) / 1000n),
  };
}

/**
 * A consume that throws: back off its rows, and quarantine them after `MAX_FAILURES` (E2.4); the
 * instance is then NEEDS_REVIEW with `instance.needs_review` in its history (runtime.md §3.3), so
 * what no round can apply is seen. A transient error (the database unreachable, a deadlock or
 * lock wait its retries did not outlast, SQLite busy) is not the rows' fault and counts nothing:
 * the next pass tries again.
 */
async function recordFailure(database: Database, ref: InstanceRef, error: unknown): Promise<void> {
  const transient =
    (error instanceof WeaveError && error.code === 'unavailable') ||
    database.dialect.retryableReason(error) !== undefined ||
    database.dialect.isConnectionError(error);
  if (transient) {
    return;
  }
  const code = error instanceof WeaveError ? error.code : 'PLAN_REJECTED';
  await withTx(database, async (tx) => {
    // The lock order (runtime.md §1): the instance before its rows.
    const [[instance]] = await tx.readAll(
      tx.dialect.forUpdate(
        tx.db
          .selectFrom('weave_instances')
          .select(['status', 'revision', 'history_seq'])
          .where('namespace_id', '=', ref.namespaceId)
          .where('id', '=', ref.instanceId),
      ),
    );
    const inbox = () =>
      tx.db
        .updateTable('weave_inbox')
        .where('namespace_id', '=', ref.namespaceId)
        .where('instance_id', '=', ref.instanceId)
        .where('state', '=', 'PENDING');
    await tx.write(
      inbox().set((eb) => ({
        failures: eb('failures', '+', 1),
        generation: eb('generation', '+', 1),
        error_code: code.slice(0, 64),
        available_at: tx.now + BACKOFF_US,
      })),
    );
    await tx.write(
      inbox()
        .where('failures', '>=', MAX_FAILURES)
        .set({ state: 'QUARANTINED', error_code: 'PLAN_REJECTED', processed_at: tx.now }),
    );
    const [quarantined] = await tx.readAll(
      tx.db
        .selectFrom('weave_inbox')
        .select('id')
        .where('namespace_id', '=', ref.namespaceId)
        .where('instance_id', '=', ref.instanceId)
        .where('state', '=', 'QUARANTINED')
        .where('error_code', '=', 'PLAN_REJECTED')
        .where('processed_at', '=', tx.now)
        .limit(1),
    );
    const active = (ACTIVE_INSTANCE_STATUSES as readonly string[]).includes(instance?.status ?? '');
    if (instance !== undefined && active && quarantined.length > 0) {
      const revision = BigInt(instance.revision) + 1n;
      const seq = BigInt(instance.history_seq) + 1n;
      await writeHistory(tx, { ...ref, firstSeq: seq }, [
        { type: 'instance.needs_review', revision, details: { error_code: code } },
      ]);
      await tx.write(
        tx.db
          .updateTable('weave_instances')
          .set({ status: 'NEEDS_REVIEW', revision, history_seq: seq, updated_at: tx.now })
          .where('namespace_id', '=', ref.namespaceId)
          .where('id', '=', ref.instanceId),
      );
    }
    await tx.write(
      tx.db
        .updateTable('weave_pending_advances')
        .where('namespace_id', '=', ref.namespaceId)
        .where('instance_id', '=', ref.instanceId)
        .set((eb) => ({
          generation: eb('generation', '+', 1),
          available_at: tx.now + BACKOFF_US,
        })),
    );
  });
}

/**
 * One pass: the found instances consumed by up to `parallel` lanes at a time, each lane taking
 * up to `groupOf` instances per transaction (consume-together.ts: each under its own savepoint,
 * one COMMIT for all). Each transaction holds its instances' rows; they meet only on the quota
 * and stream rows, taken last in one order. True when something was consumed (look again at
 * once).
 */
async function pass(
  options: InboxConsumerOptions,
  found: Discovery,
  programs: ProgramCache,
): Promise<boolean> {
  let worked = false;
  const queue = [...found.refs];
  const group = groupOf(options);
  const lane = async () => {
    for (let refs = queue.splice(0, group); refs.length > 0; refs = queue.splice(0, group)) {
      const outcome = await consumeTogether(options.database, refs, programs, (queueIds) => {
        for (const queueId of queueIds) {
          options.notifier.notify(queueId, 1);
        }
      });
      worked ||= outcome.worked;
      for (const { ref, error } of outcome.failed) {
        options.onError?.(error);
        if (!options.database.wakeUps.closed) {
          await recordFailure(options.database, ref, error);
        }
      }
    }
  };
  const lanes = Math.max(1, Math.min(parallelOf(options), Math.ceil(queue.length / group)));
  await Promise.all(Array.from({ length: lanes }, lane));
  return worked;
}

/** SQLite has one writer: more lanes would only queue on its lock. */
function parallelOf(options: InboxConsumerOptions): number {
  return options.database.dialect.name === 'sqlite' ? 1 : (options.parallel ?? PARALLEL);
}

/**
 * Instances per consumer transaction. SQLite: `GROUP_SQLITE`, since its one writer runs them
 * one after the other anyway and each COMMIT is a WAL fsync (0.2–0.9 ms, about half of what a
 * consume costs there: docs/design/hot-path.md §9). MariaDB: one, since its lanes already share
 * InnoDB's log flushes, and instances of different applications in one transaction would take
 * their quota rows in no fixed order.
 */
function groupOf(options: InboxConsumerOptions): number {
  return options.database.dialect.name === 'sqlite' ? GROUP_SQLITE : 1;
}

export function startInboxConsumer(options: InboxConsumerOptions): InboxConsumer {
  const { database } = options;
  const stopping = new AbortController();
  const intervalMs = options.intervalMs ?? INBOX_INTERVAL_MS;
  const programs = new ProgramCache();
  const run = async () => {
    // The wake-ups close when the server shuts down (waiters released first): stop then too.
    while (!stopping.signal.aborted && !database.wakeUps.closed) {
      const since = { key: INBOX_WAKE_UP, value: database.wakeUps.epoch(INBOX_WAKE_UP) };
      let worked = false;
      let nextDueMs: number | undefined;
      try {
        const found = await discover(database, BigInt(intervalMs) * 1000n);
        nextDueMs = found.nextDueMs;
        worked = await pass(options, found, programs);
      } catch (e: unknown) {
        options.onError?.(e);
      }
      if (!worked && !stopping.signal.aborted) {
        const waitMs = Math.max(1, Math.min(intervalMs, nextDueMs ?? intervalMs));
        await database.wakeUps.wait(INBOX_WAKE_UP, waitMs, { since, signal: stopping.signal });
      }
    }
  };
  const running = run();
  return {
    async stop() {
      stopping.abort();
      await running;
    },
  };
}
