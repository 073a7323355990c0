/**
 * Lists: `page_size` (default 50, max 500) and an opaque `page_token` (API.md). The token is the
 * key of the previous page's last item — its id, or for a list with another order (the instance
 * list: created_at, then id) the text the service gives — base64url-encoded with a prefix so
 * that callers do not build it themselves.
 */
import { WeaveError } from '../errors.js';

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 500;

export interface PageRequest {
  readonly size: number;
  readonly afterId: string | undefined;
}

/** How a list's keys look inside its tokens. */
export interface TokenFormat {
  readonly prefix: string;
  readonly pattern: RegExp;
}

const ID_TOKEN: TokenFormat = { prefix: 'id', pattern: /^[0-9]{1,19}$/ };

export function readPage(
  query: Readonly<Record<string, string | undefined>>,
  format: TokenFormat = ID_TOKEN,
): PageRequest {
  const sizeText = query.page_size;
  let size = DEFAULT_PAGE_SIZE;
  if (sizeText !== undefined) {
    size = Number(sizeText);
    if (!/^[0-9]{1,4}$/.test(sizeText) || size < 1 || size > MAX_PAGE_SIZE) {
      throw new WeaveError(
        'invalid_argument',
        `$.page_size must be an integer from 1 to ${MAX_PAGE_SIZE}`,
        {
          details: { path: '$.page_size' },
        },
      );
    }
  }
  const token = query.page_token;
  if (token === undefined || token === '') {
    return { size, afterId: undefined };
  }
  const text = typeof token === 'string' ? Buffer.from(token, 'base64url').toString('utf8') : '';
  const afterId = text.startsWith(`${format.prefix}:`)
    ? text.slice(format.prefix.length + 1)
    : text;
  if (!format.pattern.test(afterId)) {
    throw new WeaveError('invalid_argument', '$.page_token is not a token this server issued', {
      details: { path: '$.page_token' },
    });
  }
  return { size, afterId };
}

export function pageToken(
  lastId: string | undefined,
  format: TokenFormat = ID_TOKEN,
): string | undefined {
  return lastId === undefined
    ? undefined
    : Buffer.from(`${format.prefix}:${lastId}`, 'utf8').toString('base64url');
}

/** `{items, next_page_token?}` (the token absent on the last page). */
export function pageBody<T>(
  items: readonly T[],
  lastId: string | undefined,
  format: TokenFormat = ID_TOKEN,
): { items: readonly T[]; next_page_token?: string } {
  const token = pageToken(lastId, format);
  return token === undefined ? { items } : { items, next_page_token: token };
}
