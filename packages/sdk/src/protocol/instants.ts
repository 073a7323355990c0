/**
 * Instants on the wire: RFC 3339 UTC with microseconds (`2026-11-29T20:30:11.123456Z`, API.md
 * "Conventions"), always the database's clock. The server holds them as Unix microseconds.
 */

/** Unix time in microseconds (the server's representation of a database instant). */
export type Micros = bigint;

/**
 * The `YYYY-MM-DDTHH:MM:SS` part of recent whole seconds: the instants of one answer share a few
 * seconds (now, the lease's end, the deadlines), and `Date#toISOString` is most of the cost of
 * a format (hot-path.md §24). Cleared when full.
 */
const SECONDS = new Map<bigint, string>();
const MAX_SECONDS = 16;

/** Microseconds → `2026-11-29T20:30:11.123456Z` (before 1970 too: the fraction counts up). */
export function formatInstant(micros: Micros): string {
  const sub = ((micros % 1_000_000n) + 1_000_000n) % 1_000_000n;
  const second = (micros - sub) / 1_000_000n;
  let base = SECONDS.get(second);
  if (base === undefined) {
    if (SECONDS.size >= MAX_SECONDS) {
      SECONDS.clear();
    }
    base = new Date(Number(second) * 1000).toISOString().slice(0, 19);
    SECONDS.set(second, base);
  }
  return `${base}.${sub.toString().padStart(6, '0')}Z`;
}

const INSTANT_PATTERN =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?(Z|[+-]\d{2}:\d{2})$/;

/** An RFC 3339 instant → microseconds; `undefined` when the text is not one. */
export function parseInstant(text: string): Micros | undefined {
  const m = INSTANT_PATTERN.exec(text);
  if (m === null) {
    return undefined;
  }
  const [, y, mo, d, h, mi, s, frac = '', zone = 'Z'] = m;
  const millis = Date.parse(`${y}-${mo}-${d}T${h}:${mi}:${s}${zone}`);
  if (Number.isNaN(millis)) {
    return undefined;
  }
  return BigInt(millis) * 1000n + BigInt(frac.padEnd(6, '0'));
}
