/**
 * Five-field cron expressions (minute hour day-of-month month day-of-week), pure: no clock, no
 * dependency. `*`, lists, ranges, steps and names (JAN, MON) as in Vixie cron, including its
 * day rule: when both day fields are restricted (neither starts with `*`), a day matches if
 * EITHER matches. Evaluation in an IANA zone is in `cron-zone.ts`.
 */
import { schedules } from '@weave/sdk/protocol';
import { WeaveError } from '../errors.js';

export interface CronSpec {
  readonly source: string;
  /** Allowed values per field, sorted ascending. */
  readonly minutes: readonly number[];
  readonly hours: readonly number[];
  readonly daysOfMonth: ReadonlySet<number>;
  readonly months: ReadonlySet<number>;
  /** 0 = Sunday; 7 is folded into 0. */
  readonly daysOfWeek: ReadonlySet<number>;
  readonly dayOfMonthRestricted: boolean;
  readonly dayOfWeekRestricted: boolean;
}

interface FieldRule {
  readonly name: string;
  readonly min: number;
  readonly max: number;
  readonly names?: readonly string[];
}

const FIELDS: readonly FieldRule[] = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day of month', min: 1, max: 31 },
  {
    name: 'month',
    min: 1,
    max: 12,
    names: ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'],
  },
  { name: 'day of week', min: 0, max: 7, names: ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'] },
];

const MACROS: Readonly<Record<string, string>> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};

/** Longest accepted expression: generous for lists, short enough for a VARCHAR(200) column. */
export const MAX_CRON_LENGTH = schedules.MAX_CRON_LENGTH;

/** Parses a cron expression; errors name the field (`$.cron field 3 (day of month): …`). */
export function parseCron(text: string, path = '$.cron'): CronSpec {
  if (text.length > MAX_CRON_LENGTH) {
    throw cronError({ path }, `must be at most ${MAX_CRON_LENGTH} characters`);
  }
  const expanded = MACROS[text.trim().toLowerCase()] ?? text;
  const parts = expanded.trim().split(/\s+/);
  if (parts.length !== 5) {
    throw cronError(
      { path },
      `must have 5 fields (minute hour day-of-month month day-of-week), got ${parts.length}`,
    );
  }
  const sets = parts.map((part, i) =>
    parseField(part, { path, field: i + 1, rule: FIELDS[i] as FieldRule }),
  );
  const [minutes, hours, dom, months, dow] = sets as [
    Set<number>,
    Set<number>,
    Set<number>,
    Set<number>,
    Set<number>,
  ];
  if (dow.delete(7)) {
    dow.add(0);
  }
  return {
    source: text,
    minutes: [...minutes].sort((a, b) => a - b),
    hours: [...hours].sort((a, b) => a - b),
    daysOfMonth: dom,
    months,
    daysOfWeek: dow,
    dayOfMonthRestricted: !(parts[2] ?? '').startsWith('*'),
    dayOfWeekRestricted: !(parts[4] ?? '').startsWith('*'),
  };
}

/** Where an error is: the JSON path of the expression and the 1-based field number. */
interface Place {
  readonly path: string;
  readonly field?: number;
  readonly rule?: FieldRule;
}

function cronError(place: Place, rule: string): WeaveError {
  const where =
    place.field === undefined
      ? place.path
      : `${place.path} field ${place.field} (${place.rule?.name ?? ''})`;
  return new WeaveError('invalid_argument', `${where} ${rule}`, {
    details: { path: place.path, ...(place.field === undefined ? {} : { field: place.field }) },
  });
}

function parseField(text: string, place: Place & { rule: FieldRule }): Set<number> {
  const { rule } = place;
  const out = new Set<number>();
  for (const item of text.split(',')) {
    const m = /^(\*|[A-Za-z0-9]+(?:-[A-Za-z0-9]+)?)(?:\/([0-9]+))?$/.exec(item);
    if (m === null) {
      throw cronError(place, `is not a list of values, ranges and steps (got "${item}")`);
    }
    const step = m[2] === undefined ? 1 : Number(m[2]);
    if (!(step >= 1 && step <= rule.max)) {
      throw cronError(place, `step must be from 1 to ${rule.max} (got "${item}")`);
    }
    const [low, high] = rangeOf(m[1] ?? '', m[2] !== undefined, place);
    for (let v = low; v <= high; v += step) {
      out.add(v);
    }
  }
  return out;
}

/** `*` → the whole range; `a` → [a, a] (or [a, max] with a step, Vixie's `a/n`); `a-b`. */
function rangeOf(
  text: string,
  stepped: boolean,
  place: Place & { rule: FieldRule },
): [number, number] {
  const { rule } = place;
  if (text === '*') {
    return [rule.min, rule.max];
  }
  const [lowText = '', highText] = text.split('-');
  const low = valueOf(lowText, place);
  const high = highText === undefined ? (stepped ? rule.max : low) : valueOf(highText, place);
  if (high < low) {
    throw cronError(place, `range ${text} runs backwards`);
  }
  return [low, high];
}

function valueOf(text: string, place: Place & { rule: FieldRule }): number {
  const { rule } = place;
  const named = rule.names?.indexOf(text.toUpperCase()) ?? -1;
  if (named >= 0) {
    return named + rule.min;
  }
  if (!/^[0-9]{1,2}$/.test(text)) {
    throw cronError(place, `"${text}" is not a number or a name`);
  }
  const n = Number(text);
  if (n < rule.min || n > rule.max) {
    throw cronError(place, `${n} is out of range ${rule.min}-${rule.max}`);
  }
  return n;
}

/** Whether a calendar day matches the day fields (the Vixie "either" rule). */
export function matchesDay(
  spec: CronSpec,
  date: { month: number; day: number; weekday: number },
): boolean {
  if (!spec.months.has(date.month)) {
    return false;
  }
  const dom = spec.daysOfMonth.has(date.day);
  const dow = spec.daysOfWeek.has(date.weekday);
  if (spec.dayOfMonthRestricted && spec.dayOfWeekRestricted) {
    return dom || dow;
  }
  return dom && dow;
}
