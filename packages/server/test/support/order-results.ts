/**
 * Checks what `node examples/start-orders.mjs` printed: its result lines (`ORD-…  instance N
 * STATUS  {json}`, read from the Orbit stream) for the four orders, each SUCCEEDED with the
 * outputs the example's handlers give, every amount with its exact text.
 */
import assert from 'node:assert/strict';
import { isJsonObject, parse, stringify } from '@weave/json';
import type { JsonValue } from '@weave/json';

/** The amounts start-orders.mjs sends, as written, by the order's number. */
const AMOUNTS = [
  '25.50',
  '1000.000000000000000001',
  '12345678901234567890.000000000000000001',
  '42.00',
];
/** Orders 2 and 3 are over 1000 (exactly) and wait for the approval signal. */
const APPROVED_BY_SIGNAL = new Set([2, 3]);

function member(value: JsonValue | undefined, ...path: string[]): JsonValue | undefined {
  let v = value;
  for (const key of path) {
    v = v !== undefined && isJsonObject(v) ? v.get(key) : undefined;
  }
  return v;
}

/** Exact text of a member (numbers keep their text through @weave/json). */
function text(value: JsonValue | undefined, ...path: string[]): string {
  return stringify(member(value, ...path) ?? null);
}

export function checkOrderResults(stdout: string): void {
  assert.match(stdout, /^4 of 4 orders SUCCEEDED$/m, stdout);
  const results = stdout.split('\n\nresults from stream dev:\n')[1] ?? '';
  const lines = [...results.matchAll(/^ORD-\S+-(\d) {2}instance (\d+) {2}(\w+) {2}(\{.*\})$/gm)];
  assert.equal(lines.length, 4, stdout);
  for (const [, n, , status, json] of lines) {
    const number = Number(n);
    const output = parse(json ?? '');
    const amount = AMOUNTS[number - 1] ?? '';
    assert.equal(status, 'SUCCEEDED', json);
    assert.equal(text(output, 'amount'), amount, 'the instance output keeps the exact amount');
    assert.equal(text(output, 'payment', 'charged'), amount, 'so does the payment');
    assert.match(text(output, 'reservation'), /^"R-ORD-/);
    assert.equal(
      text(output, 'approval', 'by'),
      APPROVED_BY_SIGNAL.has(number) ? '"ann@example.com"' : '"auto"',
      `order ${number}: the BRANCH on the exact amount`,
    );
    assert.equal(text(output, 'delivery', 'status'), '"DELIVERED"');
    if (number === 3) {
      assert.equal(text(output, 'delivery', 'by'), '"carrier webhook"', 'the POLL final signal');
    }
  }
  assert.match(stdout, /ORD-\S+-4: instance\.failed \{"code":"card_declined"/, 'order 4 failed');
  assert.match(stdout, /ORD-\S+-4: retried step charge with \{.*"fail_payment":false\}/);
}
