/**
 * Direct hand-off to parked long-polls (docs/design/hot-path.md §10). A long-poll that found
 * nothing parks here while it waits. A transaction that then makes tasks of that queue claimable
 * on this node (a submit, `POST /queues/{q}/tasks`) claims them for the parked
 * long-polls in that same transaction — the same scan, attempts, task rows and events a claim
 * would write — and after its COMMIT the long-polls answer with those tasks. Without it, the
 * transaction commits, wakes a long-poll, and the long-poll claims in a transaction of its own:
 * one more transaction, its commit and a group's wait between a task's submit and its claim.
 *
 * A parked long-poll is reserved while a transaction claims for it (`offer`): no other
 * transaction takes it, and it does not leave (`leave` waits for the outcome). The transaction's
 * outcome decides (`tx.onSettled`): committed, the claimed tasks are delivered; rolled back (the
 * transaction, or the savepoint of the one request that offered), the long-poll is parked again
 * as if nothing happened. A long-poll whose client went away is never offered anything.
 *
 * The claim is an ordinary claim of the parked request: the queue read (a paused queue hands out
 * nothing), the scan in priority order (SKIP LOCKED, after the offering transaction's own locks;
 * it may hand out an older ready task rather than the new one), resource keys, one attempt insert
 * and one task update per start flag for all the long-polls served (`claimShares`).
 *
 * Offered by submits only. A Start or a consumer round holds its application's quota row until
 * it commits (seed 002 §1), and the claim's work inside that hold cost S3 more than it saved S2,
 * on both engines (docs/design/hot-path.md §10): their tasks' long-polls are woken instead.
 */
import type { Compilable, Selectable } from 'kysely';
import type { TasksTable } from '../store/schema.js';
import type { WakeUps } from '../store/wake-ups.js';
import type { Tx } from '../store/with-tx.js';
import { toBool } from '../store/values.js';
import type { ClaimedTask, ClaimRequest, QueueRef } from './claim-tasks.js';
import { claimInTurn, claimLimit, readyQuery, takeResources } from './claim-tasks.js';

/** Long-polls reserved for a hand-off whose scan the caller sends (`ClaimHandOff.reserve`). */
export interface HandOffReservation {
  /** The claim scan for every reserved long-poll (SKIP LOCKED, in claim order). */
  readonly scan: Compilable<Selectable<TasksTable>>;
  /** Claims from `scan`'s rows; the number of tasks claimed. */
  claim(rows: readonly Selectable<TasksTable>[], paused: boolean): Promise<number>;
}

/** A parked long-poll, as `park` returns it to its owner. */
export interface Parking {
  /** Resolves with the tasks a committed hand-off claimed for it (never with none). */
  readonly handed: Promise<readonly ClaimedTask[]>;
  /**
   * Stops parking: at once when not reserved; while a transaction claims for it, once that one
   * has settled. The tasks it was handed, or undefined.
   */
  leave(): Promise<readonly ClaimedTask[] | undefined>;
}

interface Parked {
  readonly queueId: string;
  readonly request: ClaimRequest;
  readonly signal: AbortSignal | undefined;
  state: 'parked' | 'reserved' | 'left';
  /** Set while reserved: resolves when the reserving transaction settles. */
  settling: Promise<void> | undefined;
  tasks: readonly ClaimedTask[] | undefined;
  readonly hand: (tasks: readonly ClaimedTask[]) => void;
}

export class ClaimHandOff {
  /** Parked long-polls by queue id, longest waiting first. */
  readonly #parked = new Map<string, Parked[]>();

  /** Parks a long-poll of `queueId` (its own claim request) until `leave`. */
  park(queueId: string, request: ClaimRequest, signal?: AbortSignal): Parking {
    let hand: (tasks: readonly ClaimedTask[]) => void = () => undefined;
    const handed = new Promise<readonly ClaimedTask[]>((resolve) => (hand = resolve));
    const parked: Parked = {
      queueId,
      request,
      signal,
      state: 'parked',
      settling: undefined,
      tasks: undefined,
      hand,
    };
    this.#add(parked, false);
    return {
      handed,
      leave: async () => {
        if (parked.state === 'reserved') {
          await parked.settling;
        }
        this.#remove(parked);
        parked.state = 'left';
        return parked.tasks;
      },
    };
  }

  /** Long-polls parked on the queue now (a test waits for one instead of sleeping). */
  parkedCount(queueId: string): number {
    return this.#parked.get(queueId)?.length ?? 0;
  }

  /**
   * Inside a transaction that made up to `count` tasks of the queue claimable: claims for up to
   * `count` parked long-polls of the queue, in this transaction. The number of tasks claimed
   * (the caller wakes long-polls for the rest, as before).
   */
  async offer(tx: Tx, queue: QueueRef, count: number): Promise<number> {
    const reserved = this.reserve(tx, queue, count);
    if (reserved === undefined) {
      return 0;
    }
    const [queueRows, scanned] = await tx.readAll(
      tx.db
        .selectFrom('queues')
        .select(['id', 'paused'])
        .where('namespace_id', '=', queue.namespaceId)
        .where('id', '=', queue.id),
      reserved.scan,
    );
    const row = queueRows[0];
    return reserved.claim(scanned, row === undefined || toBool(row.paused));
  }

  /**
   * `offer` in two steps, for a transaction that sends the scan itself, in the packet of the
   * statement that makes the task claimable (a submit's insert, submit-task.ts): reserves up to
   * `count` parked long-polls of the queue now; `claim` then shares out the scanned rows (none
   * if the queue, as this transaction read it, is paused) and answers the number claimed.
   * undefined when nobody is parked. Whatever happens between the two, the transaction's
   * outcome decides, as for `offer`.
   */
  reserve(tx: Tx, queue: QueueRef, count: number): HandOffReservation | undefined {
    const taken = this.#take(queue.id, count);
    if (taken.length === 0) {
      return undefined;
    }
    let settle: () => void = () => undefined;
    const settling = new Promise<void>((resolve) => (settle = resolve));
    for (const parked of taken) {
      parked.state = 'reserved';
      parked.settling = settling;
    }
    let claimed: ClaimedTask[][] = taken.map(() => []);
    tx.onSettled((committed) => {
      taken.forEach((parked, i) => {
        const tasks = committed ? (claimed[i] ?? []) : [];
        if (tasks.length > 0) {
          parked.tasks = tasks;
          parked.state = 'left';
          parked.hand(tasks);
        } else {
          parked.state = 'parked';
          this.#add(parked, true);
        }
      });
      settle();
    });
    const requests = taken.map((p) => p.request);
    const total = requests.reduce((n, r) => n + claimLimit(r.maxTasks), 0);
    return {
      scan: readyQuery(tx, queue, total),
      async claim(rows, paused) {
        if (paused || total === 0) {
          return 0;
        }
        claimed = await claimInTurn(tx, await takeResources(tx, rows), requests);
        return claimed.reduce((n, tasks) => n + tasks.length, 0);
      },
    };
  }

  #take(queueId: string, count: number): Parked[] {
    const list = this.#parked.get(queueId);
    if (list === undefined) {
      return [];
    }
    const taken: Parked[] = [];
    for (const parked of [...list]) {
      if (taken.length >= count) {
        break;
      }
      if (parked.signal?.aborted === true) {
        continue;
      }
      this.#remove(parked);
      taken.push(parked);
    }
    return taken;
  }

  #add(parked: Parked, first: boolean): void {
    const list = this.#parked.get(parked.queueId) ?? [];
    if (first) {
      list.unshift(parked);
    } else {
      list.push(parked);
    }
    this.#parked.set(parked.queueId, list);
  }

  #remove(parked: Parked): void {
    const list = this.#parked.get(parked.queueId);
    const at = list?.indexOf(parked) ?? -1;
    if (list !== undefined && at >= 0) {
      list.splice(at, 1);
      if (list.length === 0) {
        this.#parked.delete(parked.queueId);
      }
    }
  }
}

const handOffs = new WeakMap<WakeUps, ClaimHandOff>();

/** This node's hand-off for the database `tx` runs on (one per opened database). */
export function claimHandOffOf(tx: Pick<Tx, 'wakeUps'>): ClaimHandOff {
  let handOff = handOffs.get(tx.wakeUps);
  if (handOff === undefined) {
    handOff = new ClaimHandOff();
    handOffs.set(tx.wakeUps, handOff);
  }
  return handOff;
}
