/**
 * Instants on the wire (API.md "Conventions"): microseconds ↔ RFC 3339 UTC with six fraction
 * digits. `formatInstant` keeps the formatted whole seconds it saw last; the answers must not
 * depend on what it saw before.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatInstant, parseInstant } from '../src/protocol/instants.js';

/** The format spelled out without the cache, as `Date` gives it for the whole milliseconds. */
function reference(micros: bigint): string {
  const sub = ((micros % 1_000_000n) + 1_000_000n) % 1_000_000n;
  const iso = new Date(Number((micros - sub) / 1000n)).toISOString();
  return `${iso.slice(0, 19)}.${sub.toString().padStart(6, '0')}Z`;
}

test('instants format with six fraction digits, the same value the same text', () => {
  const now = 1_796_294_751_674_413n;
  assert.equal(formatInstant(now), '2026-12-03T10:45:51.674413Z');
  assert.equal(formatInstant(now + 30_000_000n), '2026-12-03T10:46:21.674413Z');
  assert.equal(formatInstant(now), '2026-12-03T10:45:51.674413Z');
  assert.equal(formatInstant(1_796_294_751_000_000n), '2026-12-03T10:45:51.000000Z');
  assert.equal(formatInstant(0n), '1970-01-01T00:00:00.000000Z');
});

test('instants before 1970 keep the second below them, the fraction counting up', () => {
  assert.equal(formatInstant(-1n), '1969-12-31T23:59:59.999999Z');
  assert.equal(formatInstant(-1_000_001n), '1969-12-31T23:59:58.999999Z');
  assert.equal(parseInstant(formatInstant(-1_000_001n)), -1_000_001n);
});

test('many distinct seconds in turn (past the cache) format as without it and parse back', () => {
  let micros = 1_700_000_000_123_456n;
  for (let i = 0; i < 200; i++) {
    micros += BigInt(i % 3 === 0 ? 999_999 : 86_400_000_001 * (i % 5));
    const text = formatInstant(micros);
    assert.equal(text, reference(micros));
    assert.equal(parseInstant(text), micros);
  }
});
