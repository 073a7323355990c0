import { LIMITS } from './limits.js';

/**
 * ISO 8601 durations with fixed-length units only: weeks, days, hours, minutes and seconds with
 * up to three decimals (`P7D`, `PT30S`, `PT1.5S`, `P1DT12H`). Years and months are refused: their
 * length depends on a calendar date, and the engine knows no date (storage adds DB time).
 */
const DURATION = /^P(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)(?:\.(\d{1,3}))?S)?)?$/;

const UNIT_MS = [604_800_000, 86_400_000, 3_600_000, 60_000, 1000] as const;

export type DurationResult =
  { readonly ok: true; readonly ms: number } | { readonly ok: false; readonly message: string };

export function parseDuration(text: string): DurationResult {
  const match = DURATION.exec(text);
  if (match === null || text === 'P' || text.endsWith('T')) {
    return {
      ok: false,
      message: `must be an ISO 8601 duration such as "PT30S", "P1DT2H" or "P2W" (got "${text}")`,
    };
  }
  let ms = 0;
  for (let i = 0; i < UNIT_MS.length; i++) {
    const part = match[i + 1];
    if (part !== undefined) {
      // Beyond 15 digits every value is over the limit anyway; keep the arithmetic exact below it.
      ms += part.length > 15 ? Number.POSITIVE_INFINITY : Number(part) * (UNIT_MS[i] ?? 0);
    }
  }
  const fraction = match[6];
  if (fraction !== undefined) {
    ms += Number(fraction.padEnd(3, '0'));
  }
  if (ms <= 0) {
    return { ok: false, message: `must be longer than zero (got "${text}")` };
  }
  if (ms > LIMITS.maxDurationMs) {
    return { ok: false, message: `must be at most 365 days (got "${text}")` };
  }
  return { ok: true, ms };
}
