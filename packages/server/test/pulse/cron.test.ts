/**
 * The pure cron module: parsing (errors name the field), the day-of-month / day-of-week "either"
 * rule, names and steps, leap days, and slots across DST transitions in real IANA zones.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseCron } from '../../src/pulse/cron.js';
import { checkTimeZone, nextSlotAfter } from '../../src/pulse/cron-zone.js';

const micros = (iso: string) => BigInt(Date.parse(iso)) * 1000n;
const iso = (us: bigint | undefined) =>
  us === undefined ? undefined : new Date(Number(us / 1000n)).toISOString();

interface SlotCase {
  readonly name: string;
  readonly cron: string;
  readonly zone: string;
  readonly after: string;
  /** The expected slots in order (UTC). */
  readonly next: readonly (string | undefined)[];
}

const SLOT_CASES: readonly SlotCase[] = [
  {
    name: 'steps from a wildcard',
    cron: '*/15 * * * *',
    zone: 'UTC',
    after: '2026-01-01T00:07:00Z',
    next: ['2026-01-01T00:15:00.000Z', '2026-01-01T00:30:00.000Z'],
  },
  {
    name: 'a slot exactly at the start instant is not "after" it',
    cron: '0 * * * *',
    zone: 'UTC',
    after: '2026-01-01T05:00:00Z',
    next: ['2026-01-01T06:00:00.000Z'],
  },
  {
    name: 'weekday names and ranges skip the weekend',
    cron: '0 9 * * MON-FRI',
    zone: 'UTC',
    after: '2026-01-03T10:00:00Z',
    next: ['2026-01-05T09:00:00.000Z', '2026-01-06T09:00:00.000Z'],
  },
  {
    name: 'both day fields restricted: either matches (Friday 2 Jan, then the 13th)',
    cron: '0 0 13 * FRI',
    zone: 'UTC',
    after: '2026-01-01T00:00:00Z',
    next: ['2026-01-02T00:00:00.000Z', '2026-01-09T00:00:00.000Z', '2026-01-13T00:00:00.000Z'],
  },
  {
    name: 'day of week 7 is Sunday; month names and lists',
    cron: '0 0 * JAN,jul 7',
    zone: 'UTC',
    after: '2026-06-01T00:00:00Z',
    next: ['2026-07-05T00:00:00.000Z'],
  },
  {
    name: 'leap day: the next 29 February is in 2028',
    cron: '0 0 29 2 *',
    zone: 'UTC',
    after: '2026-03-01T00:00:00Z',
    next: ['2028-02-29T00:00:00.000Z', '2032-02-29T00:00:00.000Z'],
  },
  {
    name: 'leap day across a century year that is not leap (2100)',
    cron: '0 0 29 2 *',
    zone: 'UTC',
    after: '2096-03-01T00:00:00Z',
    next: ['2104-02-29T00:00:00.000Z'],
  },
  {
    name: 'an expression without any slot (30 February) has no next slot',
    cron: '0 0 30 2 *',
    zone: 'UTC',
    after: '2026-01-01T00:00:00Z',
    next: [undefined],
  },
  {
    name: 'a half-hour offset zone (Asia/Kolkata, +05:30)',
    cron: '0 12 * * *',
    zone: 'Asia/Kolkata',
    after: '2026-01-01T00:00:00Z',
    next: ['2026-01-01T06:30:00.000Z'],
  },
  {
    name: 'New York spring forward: 02:30 does not exist on 8 March and is skipped',
    cron: '30 2 * * *',
    zone: 'America/New_York',
    after: '2026-03-07T12:00:00Z',
    next: ['2026-03-09T06:30:00.000Z'],
  },
  {
    name: 'New York fall back: 01:30 exists twice on 1 November and fires once (EDT)',
    cron: '30 1 * * *',
    zone: 'America/New_York',
    after: '2026-10-31T12:00:00Z',
    next: ['2026-11-01T05:30:00.000Z', '2026-11-02T06:30:00.000Z'],
  },
  {
    name: 'New York fall back: an hourly schedule does not repeat the 01:00 hour',
    cron: '0 * * * *',
    zone: 'America/New_York',
    after: '2026-11-01T04:30:00Z',
    next: ['2026-11-01T05:00:00.000Z', '2026-11-01T07:00:00.000Z', '2026-11-01T08:00:00.000Z'],
  },
  {
    name: 'Berlin spring forward: 02:30 on 29 March is skipped',
    cron: '30 2 * * *',
    zone: 'Europe/Berlin',
    after: '2026-03-28T12:00:00Z',
    next: ['2026-03-30T00:30:00.000Z'],
  },
  {
    name: 'Berlin fall back: 02:30 on 25 October fires once, at CEST',
    cron: '30 2 * * *',
    zone: 'Europe/Berlin',
    after: '2026-10-24T12:00:00Z',
    next: ['2026-10-25T00:30:00.000Z', '2026-10-26T01:30:00.000Z'],
  },
  {
    name: '@daily in Berlin is local midnight',
    cron: '@daily',
    zone: 'Europe/Berlin',
    after: '2026-07-01T12:00:00Z',
    next: ['2026-07-01T22:00:00.000Z'],
  },
];

describe('cron slots', () => {
  for (const c of SLOT_CASES) {
    test(c.name, () => {
      const spec = parseCron(c.cron);
      let at = micros(c.after);
      const got: (string | undefined)[] = [];
      for (let i = 0; i < c.next.length; i++) {
        const next = nextSlotAfter(spec, c.zone, at);
        got.push(iso(next));
        at = next ?? at;
      }
      assert.deepEqual(got, c.next);
    });
  }
});

const BAD_CRONS: readonly { cron: string; field?: number }[] = [
  { cron: '61 * * * *', field: 1 },
  { cron: '* 24 * * *', field: 2 },
  { cron: '* * 32 * *', field: 3 },
  { cron: '* * 0 * *', field: 3 },
  { cron: '* * * FOO *', field: 4 },
  { cron: '* * * * 8', field: 5 },
  { cron: '5-1 * * * *', field: 1 },
  { cron: '*/0 * * * *', field: 1 },
  { cron: '1,,2 * * * *', field: 1 },
  { cron: '* * * *' },
  { cron: '* * * * * *' },
  { cron: '' },
];

describe('cron parsing errors', () => {
  for (const c of BAD_CRONS) {
    test(`"${c.cron}" is refused${c.field === undefined ? '' : ` naming field ${c.field}`}`, () => {
      assert.throws(
        () => parseCron(c.cron),
        (e: { code?: string; message?: string; details?: Record<string, unknown> }) => {
          assert.equal(e.code, 'invalid_argument');
          assert.equal(e.details?.path, '$.cron');
          if (c.field !== undefined) {
            assert.equal(e.details?.field, c.field);
            assert.match(e.message ?? '', new RegExp(`field ${c.field}`));
          }
          return true;
        },
      );
    });
  }

  test('time zones are checked against the runtime IANA database', () => {
    for (const zone of ['UTC', 'Europe/Berlin', 'America/New_York', 'Asia/Kolkata']) {
      checkTimeZone(zone);
    }
    for (const zone of ['Mars/Olympus', '', 'Europe/Berlin; DROP', '+02:00x']) {
      assert.throws(() => checkTimeZone(zone), {
        code: 'invalid_argument',
        details: { path: '$.timezone' },
      });
    }
  });
});
