/**
 * The inbox consumer loop of a node (runtime.md §3.5): it runs at once after a result commits
 * on this node (the result transaction notifies `INBOX_WAKE_UP` after commit), and every
 * `intervalMs` anyway for what other nodes committed or a crashed node left, and for TIMERs that
 * fell due (DB time: a due timer is acted on within one interval). Each pass reads a page of
 * instances with pending inbox rows, a pending advance or a due TIMER (a non-locking discovery read
 * across namespaces, runtime.md §7) and consumes each in its own transaction; an instance another
 * node holds is skipped (SKIP LOCKED) and comes back in a later pass.
 */
import type { TaskNotifier } from '../../pulse/task-notifier.js';
import type { Database } from '../../store/with-tx.js';
import { withTx } from '../../store/with-tx.js';
import { toId } from '../../store/values.js';
import { INBOX_WAKE_UP } from '../delivery/deliver-result.js';
import { consumeInstance } from './consume-instance.js';
import type { InstanceRef } from './consume-instance.js';

/** Cross-node pickup bound (a result committed on another node waits at most this long). */
export const INBOX_INTERVAL_MS = 250;
/** Instances per discovery read. */
const PAGE = 50;

export interface InboxConsumerOptions {
  readonly database: Database;
  readonly notifier: TaskNotifier;
  readonly intervalMs?: number;
  readonly onError?: ((error: unknown) => void) | undefined;
}

export interface InboxConsumer {
  stop(): Promise<void>;
}

async function discover(database: Database): Promise<InstanceRef[]> {
  const rows = await withTx(database, async (tx) => {
    // Inbox rows and pending advances have the same scan shape (runtime.md §1.9).
    const pending = (table: 'weave_inbox' | 'weave_pending_advances') =>
      tx.db
        .selectFrom(table)
        .select(['namespace_id', 'instance_id'])
        .where('state', '=', 'PENDING')
        .where('available_at', '<=', tx.now)
        .orderBy('id')
        .limit(PAGE);
    const [inbox, advances, timers] = await tx.readAll(
      pending('weave_inbox'),
      pending('weave_pending_advances'),
      tx.db
        .selectFrom('weave_waits')
        .select(['namespace_id', 'instance_id'])
        .where('state', '=', 'WAITING')
        .where('purpose', '=', 'TIMER')
        .where('due_at', '<=', tx.now)
        .orderBy('due_at')
        .limit(PAGE),
    );
    return [...inbox, ...advances, ...timers];
  });
  const seen = new Map<string, InstanceRef>();
  for (const r of rows) {
    const ref = { namespaceId: toId(r.namespace_id), instanceId: toId(r.instance_id) };
    seen.set(`${ref.namespaceId}/${ref.instanceId}`, ref);
  }
  return [...seen.values()];
}

/** One pass: true when something was consumed (look again at once). */
async function pass(options: InboxConsumerOptions): Promise<boolean> {
  const refs = await discover(options.database);
  let worked = false;
  for (const ref of refs) {
    const done = await withTx(options.database, async (tx) => {
      const consumed = await consumeInstance(tx, ref);
      tx.afterCommit(() => {
        for (const queueId of consumed.queueIds) {
          options.notifier.notify(queueId, 1);
        }
      });
      return consumed;
    });
    worked ||= done.rows > 0 || done.advanced;
  }
  return worked;
}

export function startInboxConsumer(options: InboxConsumerOptions): InboxConsumer {
  const { database } = options;
  const stopping = new AbortController();
  const intervalMs = options.intervalMs ?? INBOX_INTERVAL_MS;
  const run = async () => {
    // The wake-ups close when the server shuts down (waiters released first): stop then too.
    while (!stopping.signal.aborted && !database.wakeUps.closed) {
      const since = { key: INBOX_WAKE_UP, value: database.wakeUps.epoch(INBOX_WAKE_UP) };
      let worked = false;
      try {
        worked = await pass(options);
      } catch (e: unknown) {
        options.onError?.(e);
      }
      if (!worked && !stopping.signal.aborted) {
        await database.wakeUps.wait(INBOX_WAKE_UP, intervalMs, { since, signal: stopping.signal });
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
