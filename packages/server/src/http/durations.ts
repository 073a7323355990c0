/**
 * ISO 8601 durations on the wire (API.md "Conventions": `"PT30S"`), as microseconds. Days, hours,
 * minutes and seconds (with up to 6 decimals) only: years and months have no fixed length.
 */
import type { JsonObject } from '@weave/json';
import { WeaveError } from '../errors.js';
import type { Micros } from '@weave/sdk/protocol';

const DURATION_PATTERN =
  /^P(?:([0-9]{1,6})D)?(?:T(?:([0-9]{1,7})H)?(?:([0-9]{1,9})M)?(?:([0-9]{1,11})(?:\.([0-9]{1,6}))?S)?)?$/;

const US = { s: 1_000_000n, m: 60_000_000n, h: 3_600_000_000n, d: 86_400_000_000n } as const;

/** `undefined` when the text is not a duration of this form. */
export function parseDuration(text: string): Micros | undefined {
  const m = DURATION_PATTERN.exec(text);
  if (m === null || text === 'P' || text.endsWith('T')) {
    return undefined;
  }
  const [, d = '0', h = '0', min = '0', s = '0', frac = ''] = m;
  return (
    BigInt(d) * US.d +
    BigInt(h) * US.h +
    BigInt(min) * US.m +
    BigInt(s) * US.s +
    BigInt(frac.padEnd(6, '0') || '0')
  );
}

/** Renders microseconds back as `PT…S`. */
export function formatDuration(micros: Micros): string {
  const seconds = micros / US.s;
  const frac = micros % US.s;
  return frac === 0n
    ? `PT${seconds}S`
    : `PT${seconds}.${frac.toString().padStart(6, '0').replace(/0+$/, '')}S`;
}

export function readDuration(
  obj: JsonObject,
  key: string,
  opts: { path?: string; min?: Micros; max?: Micros } = {},
): Micros | undefined {
  const path = `${opts.path ?? '$'}.${key}`;
  const value = obj.get(key);
  if (value === undefined) {
    return undefined;
  }
  const micros = typeof value === 'string' ? parseDuration(value) : undefined;
  const min = opts.min ?? 1n;
  if (micros === undefined || micros < min || (opts.max !== undefined && micros > opts.max)) {
    throw new WeaveError(
      'invalid_argument',
      `${path} must be an ISO 8601 duration such as PT30S, from ${formatDuration(min)}` +
        (opts.max === undefined ? '' : ` to ${formatDuration(opts.max)}`),
      { details: { path } },
    );
  }
  return micros;
}
