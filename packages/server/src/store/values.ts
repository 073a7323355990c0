/**
 * Mapping of driver values, in one place. mysql2 returns BIGINT as decimal strings
 * (`bigNumberStrings`), better-sqlite3 returns integers as BigInt (`defaultSafeIntegers`):
 * neither goes through float64.
 */
export type DbInt = number | bigint | string;

/** Instants and durations are microseconds; the type says so. */
export type Micros = bigint;

export function toId(value: DbInt): string {
  return typeof value === 'string' ? value : value.toString();
}

export function toIdOrNull(value: DbInt | null): string | null {
  return value == null ? null : toId(value);
}

/** A count or small integer that fits a double exactly. */
export function toInt(value: DbInt): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n)) {
    throw new RangeError(`integer ${String(value)} is outside the safe range`);
  }
  return n;
}

export function toBool(value: DbInt): boolean {
  return toInt(value) !== 0;
}

export function toMicros(value: DbInt): Micros {
  return BigInt(value);
}

export function toMicrosOrNull(value: DbInt | null): Micros | null {
  return value == null ? null : BigInt(value);
}

/** RFC 3339 UTC with microseconds: `2026-11-29T20:30:11.123456Z` (API.md "Conventions"). */
export function formatInstant(micros: Micros): string {
  const millis = micros / 1000n;
  const sub = ((micros % 1_000_000n) + 1_000_000n) % 1_000_000n;
  const base = new Date(Number(millis)).toISOString().slice(0, 19);
  return `${base}.${sub.toString().padStart(6, '0')}Z`;
}

const INSTANT_PATTERN =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?(Z|[+-]\d{2}:\d{2})$/;

/** Parse an RFC 3339 instant to microseconds; `undefined` when the text is not one. */
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

/** Orders decimal-string ids numerically (shorter first, then by digits): the lock order. */
export function compareIds(a: string, b: string): number {
  return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
}
