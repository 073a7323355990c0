/**
 * Keyset pages: a list query reads `size + 1` rows ordered by id after the previous page's last
 * id; the extra row only says that there is a next page.
 */
export interface Page<T> {
  readonly items: T[];
  /** The last id of this page when more follow (the next page token), else undefined. */
  readonly nextAfterId: string | undefined;
}

export function pageOf<T>(rows: T[], size: number, idOf: (item: T) => string): Page<T> {
  const more = rows.length > size;
  const items = more ? rows.slice(0, size) : rows;
  const last = items[items.length - 1];
  return { items, nextAfterId: more && last !== undefined ? idOf(last) : undefined };
}
