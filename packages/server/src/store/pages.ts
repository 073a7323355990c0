/**
 * Keyset pages, one helper for every list: `readPage` orders the query by its id column, keeps
 * the ids after the previous page's last id (before it, newest first), and reads `size + 1`
 * rows; the extra row only says that there is a next page. The token is the decimal id of the
 * page's last item.
 */
import type { SelectQueryBuilder, StringReference } from 'kysely';
import { sql } from 'kysely';

export interface Page<T> {
  readonly items: T[];
  /** The last id of this page when more follow (the next page token), else undefined. */
  readonly nextAfterId: string | undefined;
}

export interface PageRequest {
  /** The last id of the previous page (its token); undefined for the first page. */
  readonly afterId?: string | undefined;
  readonly size: number;
}

export interface Keyset<DB, TB extends keyof DB, O, T> {
  /** The id column the list is ordered by, e.g. `'t.id'`. */
  readonly column: StringReference<DB, TB>;
  readonly toItem: (row: O) => T;
  /** The id of an item: the next page token when it ends a page. */
  readonly idOf: (item: T) => string;
  /** Newest first: ids below the token (default: ascending, ids above it). */
  readonly descending?: boolean;
}

export async function readPage<DB, TB extends keyof DB, O, T>(
  query: SelectQueryBuilder<DB, TB, O>,
  page: PageRequest,
  keyset: Keyset<DB, TB, O, T>,
): Promise<Page<T>> {
  const id = sql.ref(keyset.column);
  let paged = query.orderBy(id, keyset.descending === true ? 'desc' : 'asc').limit(page.size + 1);
  if (page.afterId !== undefined) {
    paged = paged.where(id, keyset.descending === true ? '<' : '>', page.afterId);
  }
  const rows = await paged.execute();
  return pageOf(rows.map(keyset.toItem), page.size, keyset.idOf);
}

/** No items, no next page (a filter that can match nothing). */
export function emptyPage<T>(): Page<T> {
  return { items: [], nextAfterId: undefined };
}

export interface NewestFirstKeyset<O> {
  /** The instant column and the id column, both immutable, ordered descending. */
  readonly atColumn: string;
  readonly idColumn: string;
  readonly atOf: (row: O) => bigint;
  readonly idOf: (row: O) => string;
}

/** The token of a newest-first page: `<instant>.<id>` of its last row. */
export const NEWEST_FIRST_KEY = /^[0-9]{1,19}\.[0-9]{1,19}$/;

/**
 * Newest first by `(instant, id)` with a keyset on the pair (the instance list): each query —
 * one per index range, e.g. one per status — reads `size + 1` rows below the token, written
 * `at <= ? AND (at < ? OR id < ?)` so that both engines read a range on the instant after the
 * equality prefix; the rows are merged, each id once (READ COMMITTED: two statements may both
 * see a row that moved between their ranges), and the first `size + 1` make the page.
 */
export async function readNewestFirstPage<DB, TB extends keyof DB, O>(
  queries: readonly SelectQueryBuilder<DB, TB, O>[],
  page: PageRequest,
  keyset: NewestFirstKeyset<O>,
): Promise<Page<O>> {
  const at = sql.ref(keyset.atColumn);
  const id = sql.ref(keyset.idColumn);
  const [afterAt, afterId] = page.afterId?.split('.') ?? [];
  const rows: O[] = [];
  for (let query of queries) {
    if (afterAt !== undefined && afterId !== undefined) {
      const before = BigInt(afterAt);
      query = query
        .where(at, '<=', before)
        .where(sql<boolean>`(${at} < ${before} OR ${id} < ${afterId})`);
    }
    rows.push(
      ...(await query
        .orderBy(at, 'desc')
        .orderBy(id, 'desc')
        .limit(page.size + 1)
        .execute()),
    );
  }
  const seen = new Set<string>();
  const unique = rows.filter((row) => !seen.has(keyset.idOf(row)) && seen.add(keyset.idOf(row)));
  const isNewer = (a: O, b: O) => {
    const [aAt, bAt] = [keyset.atOf(a), keyset.atOf(b)];
    return aAt !== bAt ? aAt > bAt : BigInt(keyset.idOf(a)) > BigInt(keyset.idOf(b));
  };
  unique.sort((a, b) => (isNewer(a, b) ? -1 : isNewer(b, a) ? 1 : 0));
  return pageOf(unique, page.size, (row) => `${keyset.atOf(row)}.${keyset.idOf(row)}`);
}

/** The page of `size` items out of up to `size + 1` rows read. */
function pageOf<T>(rows: T[], size: number, idOf: (item: T) => string): Page<T> {
  const more = rows.length > size;
  const items = more ? rows.slice(0, size) : rows;
  const last = items[items.length - 1];
  return { items, nextAfterId: more && last !== undefined ? idOf(last) : undefined };
}
