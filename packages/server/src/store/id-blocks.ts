/**
 * Ids for new task and attempt rows, reserved by this process in blocks (MariaDB/MySQL), so the
 * inserts need no answer: they travel with the next statement that needs one, most often the
 * COMMIT (store/coalescing-driver.ts), instead of costing a round trip each for their
 * `RETURNING` ids (docs/design/hot-path.md §14).
 *
 * A block is a range `[first, first + size)` taken from the `id_blocks` row of its table by one
 * autocommitted `UPDATE` on a connection of its own, never inside a caller's transaction: a
 * reservation is committed before any of its ids is used, so two processes (or two
 * reservations of one) never hold the same id, whatever dies when. Ids a process reserved and
 * did not use (a crash, a block that aged out) are simply never used; a rolled-back insert's id
 * is not handed out again either.
 *
 * Order: within one process ids grow; across processes they interleave by block. A block is
 * used for at most `maxAgeMs` (1 s) after it was reserved, so an id from a later block is never
 * more than about that much older than ids from earlier ones: lists ordered by id stay in
 * creation order to within a second across nodes, as on one node they are exactly.
 *
 * Sizes adapt: a block used up within half its age doubles the next one, a block that aged out
 * mostly unused halves it (between MIN_SIZE and MAX_SIZE), so a busy node reserves a few times a
 * second and an idle one wastes few ids. A spare block is reserved ahead, in the background, so
 * a caller waits for a reservation only after an idle spell.
 *
 * SQLite: not used. One writer, no round trips: the insert's `RETURNING` costs nothing there.
 */

/** The tables whose ids come from blocks (a row each in `id_blocks`). */
export type BlockTable = 'tasks' | 'task_attempts';

/** Reserves `size` ids of `table`: the first of them (the block is `[first, first + size)`). */
export type ReserveIds = (table: BlockTable, size: number) => Promise<bigint>;

export interface IdBlockOptions {
  /** Longest use of one block after its reservation (default 1,000 ms). */
  readonly maxAgeMs?: number;
  /** Test seam: a monotonic clock in ms (default `performance.now`). */
  readonly clock?: () => number;
}

export const MIN_SIZE = 16;
export const MAX_SIZE = 4_096;

interface Block {
  next: bigint;
  readonly end: bigint;
  readonly size: number;
  /** When its reservation was asked for (the clock of `IdBlockOptions`). */
  readonly at: number;
}

class TableBlocks {
  private current: Block | undefined;
  private spare: Block | undefined;
  private refilling: Promise<void> | undefined;
  private size = MIN_SIZE * 4;

  constructor(
    private readonly table: BlockTable,
    private readonly reserve: ReserveIds,
    private readonly maxAgeMs: number,
    private readonly clock: () => number,
  ) {}

  take(count: number): string[] | Promise<string[]> {
    const ids: string[] = [];
    while (ids.length < count) {
      const block = this.usable();
      if (block === undefined) {
        return this.reserveNow(count - ids.length).then((rest) => {
          this.prefetch();
          return [...ids, ...rest];
        });
      }
      while (ids.length < count && block.next < block.end) {
        ids.push((block.next++).toString());
      }
    }
    this.prefetch();
    return ids;
  }

  /** The block to take from: the current one while fresh and not used up, else the spare. */
  private usable(): Block | undefined {
    const now = this.clock();
    const fresh = (block: Block) => now - block.at <= this.maxAgeMs;
    if (this.current !== undefined) {
      if (this.current.next < this.current.end && fresh(this.current)) {
        return this.current;
      }
      this.adapt(this.current, now);
    }
    this.current = this.spare !== undefined && fresh(this.spare) ? this.spare : undefined;
    this.spare = undefined;
    return this.current;
  }

  /** A block that is done: used up quickly → bigger blocks; aged out mostly unused → smaller. */
  private adapt(done: Block, now: number): void {
    const used = done.size - Number(done.end - done.next);
    if (done.next >= done.end && now - done.at < this.maxAgeMs / 2) {
      this.size = Math.min(MAX_SIZE, this.size * 2);
    } else if (used < done.size / 4) {
      this.size = Math.max(MIN_SIZE, this.size / 2);
    }
  }

  /** A block for a caller who cannot wait for the spare: at least `count` ids. */
  private async reserveNow(count: number): Promise<string[]> {
    const size = Math.max(this.size, count);
    const at = this.clock();
    const first = await this.reserve(this.table, size);
    const block: Block = { next: first + BigInt(count), end: first + BigInt(size), size, at };
    if (this.current === undefined || this.current.next >= this.current.end) {
      this.current = block;
    }
    return Array.from({ length: count }, (_, i) => (first + BigInt(i)).toString());
  }

  /** A fresh spare in the background when there is none, or when it is half its age. */
  private prefetch(): void {
    if (this.refilling !== undefined) {
      return;
    }
    if (this.spare !== undefined && this.clock() - this.spare.at <= this.maxAgeMs / 2) {
      return;
    }
    const size = this.size;
    const at = this.clock();
    this.refilling = this.reserve(this.table, size)
      .then((first) => {
        this.spare = { next: first, end: first + BigInt(size), size, at };
      })
      // A failed reservation is tried again by the next caller, who waits for it.
      .catch(() => undefined)
      .finally(() => {
        this.refilling = undefined;
      });
  }
}

/** One process's blocks, per table. */
export class IdBlocks {
  private readonly tables = new Map<BlockTable, TableBlocks>();

  constructor(
    private readonly reserve: ReserveIds,
    private readonly options: IdBlockOptions = {},
  ) {}

  /** `count` new ids of `table`, as decimal strings, distinct from every other process's. */
  take(table: BlockTable, count: number): string[] | Promise<string[]> {
    let blocks = this.tables.get(table);
    if (blocks === undefined) {
      blocks = new TableBlocks(
        table,
        this.reserve,
        this.options.maxAgeMs ?? 1_000,
        this.options.clock ?? (() => performance.now()),
      );
      this.tables.set(table, blocks);
    }
    return blocks.take(count);
  }
}
