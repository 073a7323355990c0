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

/**
 * The page of `size` items out of up to `size + 1` rows read (for a list that reads its rows
 * itself, such as the instance list's two-column keyset).
 */
export function pageOf<T>(rows: T[], size: number, idOf: (item: T) => string): Page<T> {
  const more = rows.length > size;
  const items = more ? rows.slice(0, size) : rows;
  const last = items[items.length - 1];
  return { items, nextAfterId: more && last !== undefined ? idOf(last) : undefined };
}
