/**
 * Mapping of driver values, in one place. mysql2 returns BIGINT as decimal strings
 * (`bigNumberStrings`), better-sqlite3 returns integers as BigInt (`defaultSafeIntegers`):
 * neither goes through float64.
 */
export type DbInt = number | bigint | string;

/** Instants and durations are microseconds; the type says so. */
import type { Micros } from '@weave/sdk/protocol';

export type { Micros };

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

// Instants are a wire format shared with the SDK (`@weave/sdk/protocol`).
export { formatInstant, parseInstant } from '@weave/sdk/protocol';

/** Orders decimal-string ids numerically (shorter first, then by digits): the lock order. */
export function compareIds(a: string, b: string): number {
  return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
}
