/**
 * The long-poll around `claimTasks`: a claim cannot hold a transaction while it waits, so each
 * try is its own short transaction; between tries it sleeps until a local submit wakes it
 * (TaskNotifier), or this node's queue watch (queue-watch.ts), which looks every
 * `CROSS_NODE_POLL_MS` for tasks committed on another node or becoming due by time (retry
 * backoff), wakes it. Each waiter also re-checks on its own, at a longer interval, in case a
 * probe failed.
 */
import { workers } from '@weave/sdk/protocol';
import type { Database } from '../store/database.js';
import { claimHandOffOf } from './claim-hand-off.js';
import type { ClaimedTask, ClaimOutcome, ClaimRequest } from './claim-tasks.js';
import { claimRequest } from './claim-tasks.js';
import { queueWatchOf } from './queue-watch.js';
import type { Epoch, TaskNotifier } from './task-notifier.js';
import { workerCallsOf } from './worker-calls.js';

/** Longest wait a claim may ask for (API.md: up to 30 s). */
export const MAX_WAIT_MS = workers.MAX_WAIT_MS;
/** The queue watch's interval: the bound on cross-node and time-based pickup delay. */
export const CROSS_NODE_POLL_MS = 250;
/** Each waiter's own re-check, a safety net behind the queue watch: this many intervals. */
const OWN_RECHECK_FACTOR = 8;

export interface ClaimWaitOptions {
  readonly database: Database;
  readonly notifier: TaskNotifier;
  /**
   * The queue watch's interval (default CROSS_NODE_POLL_MS; the waiter's own re-check is
   * OWN_RECHECK_FACTOR times it); tests raise it to prove the local wake-up.
   */
  readonly pollMs?: number;
  /** The caller went away (client disconnected): stop waiting, claim nothing more. */
  readonly signal?: AbortSignal;
  /** Test seam: runs after each claim transaction, before the wait (forces the wake-up race). */
  readonly hooks?: { afterClaim?(): Promise<void> };
}

export async function claimWithWait(
  options: ClaimWaitOptions,
  request: ClaimRequest,
  waitMs: number,
): Promise<ClaimOutcome> {
  const until = Date.now() + Math.min(waitMs, MAX_WAIT_MS);
  let queueId: string | undefined;
  for (;;) {
    // Read before the claim: a submit committed after this point either is seen by the claim or
    // has moved the epoch, and then the wait below returns at once.
    const epoch: Epoch =
      queueId === undefined
        ? { value: options.notifier.epoch() }
        : { key: queueId, value: options.notifier.epoch(queueId) };
    const outcome = await claimOnce(options.database, request);
    await options.hooks?.afterClaim?.();
    queueId = outcome.queueId;
    const remaining = until - Date.now();
    if (outcome.claimed.length > 0 || outcome.queueId === undefined || remaining <= 0) {
      return outcome;
    }
    if (options.notifier.closed || callerGone(options)) {
      return outcome;
    }
    const pollMs = options.pollMs ?? CROSS_NODE_POLL_MS;
    const release = queueWatchOf(options.database, options.notifier).hold(
      { namespaceId: request.namespaceId, id: outcome.queueId },
      pollMs,
    );
    // Parked for a hand-off (claim-hand-off.ts): a transaction that makes a task of this queue
    // claimable on this node may claim it for this long-poll and hand it over after its COMMIT.
    const parking = claimHandOffOf(options.database).park(
      outcome.queueId,
      claimRequest(request),
      options.signal,
    );
    // Ends this wait when the hand-off wins the race below: a wait left registered would take
    // the next wake-up of the queue (`notify` wakes a count of waiters) and nobody would claim.
    const done = new AbortController();
    const stop = () => done.abort();
    options.signal?.addEventListener('abort', stop, { once: true });
    let handed: readonly ClaimedTask[] | undefined;
    try {
      handed = await Promise.race([
        parking.handed,
        options.notifier
          .wait(outcome.queueId, Math.min(remaining, pollMs * OWN_RECHECK_FACTOR), {
            signal: done.signal,
            since: epoch,
          })
          .then(() => undefined),
      ]);
    } finally {
      stop();
      options.signal?.removeEventListener('abort', stop);
      handed ??= await parking.leave();
      release();
    }
    if (handed !== undefined) {
      return { queueId: outcome.queueId, paused: false, claimed: handed };
    }
    // A worker that went away (SIGKILL, aborted long-poll) must not be handed tasks it will
    // never run: they would sit CLAIMED until their lease ends. A wake-up it may have taken
    // (notify wakes as many waiters as there are new tasks) goes to the next waiter.
    if (callerGone(options)) {
      options.notifier.notify(outcome.queueId, 1);
      return outcome;
    }
  }
}

/** One try, in this node's group of worker calls (worker-calls.ts): it may share a transaction. */
async function claimOnce(database: Database, request: ClaimRequest): Promise<ClaimOutcome> {
  const { namespaceId, queueName, workerId, maxTasks, leaseUs, start } = request;
  // The group gives every body one shape on entry (worker-calls.ts `callBody`, hot-path.md §57).
  const claim = { workerId, maxTasks, leaseUs, start: start === true };
  const body = { namespaceId, queueName, completions: undefined, claim };
  const outcome = await workerCallsOf(database).submit({
    admit: () => Promise.resolve(body),
    caller: request.workerId,
  });
  return { queueId: outcome.queueId, paused: outcome.paused, claimed: outcome.claimed };
}

function callerGone(options: ClaimWaitOptions): boolean {
  return options.signal?.aborted === true;
}
