/**
 * Cron slots in an IANA time zone, with `Intl.DateTimeFormat` as the only source of zone rules
 * (no dependency). Pure: the instant to start from is an argument (DB time from the caller).
 *
 * Daylight saving time: a local time that does not exist (spring forward, 02:30 in New York on
 * the day clocks jump 02:00 → 03:00) is skipped; a local time that exists twice (fall back,
 * 01:30 happens at -04:00 and again at -05:00) fires once, at its first occurrence.
 */
import { WeaveError } from '../errors.js';
import type { Micros } from '../store/values.js';
import type { CronSpec } from './cron.js';
import { matchesDay } from './cron.js';

const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
/**
 * How far ahead a slot is searched: 8 years + 2 days, so `0 0 29 2 *` finds the next Feb 29
 * even across a century year that is not a leap year (2096 → 2104).
 */
const SEARCH_DAYS = 8 * 366 + 2;

/** Throws `invalid_argument` at `path` unless `zone` is an IANA zone this runtime knows. */
export function checkTimeZone(zone: string, path = '$.timezone'): void {
  if (zone === '' || zone.length > 64 || !/^[A-Za-z0-9_+\-/]+$/.test(zone)) {
    throw new WeaveError(
      'invalid_argument',
      `${path} must be an IANA time zone such as Europe/Berlin`,
      {
        details: { path },
      },
    );
  }
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
  } catch (e: unknown) {
    throw new WeaveError(
      'invalid_argument',
      `${path} is not a known IANA time zone (got ${zone})`,
      {
        details: { path },
        cause: e,
      },
    );
  }
}

/** Reads wall-clock fields of an instant in one zone, as "UTC milliseconds" of that wall time. */
type WallClock = (instantMs: number) => number;

function wallClockOf(zone: string): WallClock {
  const format = new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  });
  return (instantMs) => {
    const parts: Record<string, number> = {};
    for (const p of format.formatToParts(instantMs)) {
      parts[p.type] = Number(p.value);
    }
    const { year = 0, month = 1, day = 1, hour = 0, minute = 0, second = 0 } = parts;
    return Date.UTC(year, month - 1, day, hour, minute, second);
  };
}

/** The zone's offset (wall − instant) at an instant, in ms. */
function offsetAt(wall: WallClock, instantMs: number): number {
  const whole = Math.floor(instantMs / 1000) * 1000;
  return wall(whole) - whole;
}

/**
 * The first instant whose wall time is `wallMs`, or undefined in a gap. The offsets one day
 * either side are the only candidates: zones never change offset twice within a day.
 */
function firstInstantOf(wall: WallClock, wallMs: number): number | undefined {
  const offsets = new Set([offsetAt(wall, wallMs - DAY_MS), offsetAt(wall, wallMs + DAY_MS)]);
  let first: number | undefined;
  for (const offset of offsets) {
    const instant = wallMs - offset;
    if (offsetAt(wall, instant) === offset && (first === undefined || instant < first)) {
      first = instant;
    }
  }
  return first;
}

/**
 * The first slot strictly after `afterMicros` (Unix µs), or undefined when the expression has
 * no slot within the search horizon (`0 0 30 2 *`).
 */
export function nextSlotAfter(
  spec: CronSpec,
  zone: string,
  afterMicros: Micros,
): Micros | undefined {
  const wall = wallClockOf(zone);
  const afterMs = Number(afterMicros / 1000n);
  const startWall = Math.floor(wall(afterMs) / MINUTE_MS) * MINUTE_MS;
  const firstDay = Math.floor(startWall / DAY_MS) * DAY_MS;
  for (let i = 0, day = firstDay; i < SEARCH_DAYS; i++, day += DAY_MS) {
    const date = new Date(day);
    const calendar = {
      month: date.getUTCMonth() + 1,
      day: date.getUTCDate(),
      weekday: date.getUTCDay(),
    };
    if (!matchesDay(spec, calendar)) {
      continue;
    }
    const found = firstSlotOfDay(spec, wall, { day, startWall, afterMicros });
    if (found !== undefined) {
      return found;
    }
  }
  return undefined;
}

function firstSlotOfDay(
  spec: CronSpec,
  wall: WallClock,
  at: { day: number; startWall: number; afterMicros: Micros },
): Micros | undefined {
  for (const hour of spec.hours) {
    for (const minute of spec.minutes) {
      const wallMs = at.day + hour * HOUR_MS + minute * MINUTE_MS;
      if (wallMs < at.startWall) {
        continue;
      }
      const instant = firstInstantOf(wall, wallMs);
      // A wall time of the repeated hour whose first occurrence is already past is not fired
      // again; neither is a wall time inside a gap.
      if (instant !== undefined && BigInt(instant) * 1000n > at.afterMicros) {
        return BigInt(instant) * 1000n;
      }
    }
  }
  return undefined;
}
