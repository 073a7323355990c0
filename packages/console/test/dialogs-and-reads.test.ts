/** The console's decisions that need no browser: the Retry dialog, the stream cursor, refusals. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parse } from '@weave/json';
import { WeaveApiError } from '@weave/sdk';
import { isFinalRefusal } from '../src/refusal.js';
import { retryDialog } from '../src/step-retry.js';
import { recentAfter } from '../src/stream-cursor.js';
import { EXACT_AMOUNT } from './support/workflows.js';

test('the Retry dialog of a timed-out SIGNAL has no input field and does not wait for one', () => {
  const dialog = retryDialog('SIGNAL', undefined);
  assert.equal(dialog.json, undefined);
  assert.equal(dialog.needsInput, false);
  assert.match(dialog.description, /signal again/);
});

test('the Retry dialog of a TASK or POLL offers the last input, numbers exact', () => {
  const input = parse(`{"amount": ${EXACT_AMOUNT}, "fail_payment": true}`);
  for (const kind of ['TASK', 'POLL']) {
    const dialog = retryDialog(kind, input);
    assert.equal(dialog.needsInput, true);
    assert.equal(dialog.json?.label, 'Input (JSON)');
    assert.ok(dialog.json?.initial.includes(EXACT_AMOUNT), dialog.json?.initial);
  }
  assert.equal(retryDialog('TASK', undefined).json?.initial, '{}');
});

test('recent events start at head - count, never before the earliest event retention kept', () => {
  assert.equal(recentAfter('100', '1', 20), '80');
  // Retention kept seqs 91–100: 80 would read 410 cursor_expired.
  assert.equal(recentAfter('100', '91', 20), '90');
  assert.equal(recentAfter('5', '1', 20), '0');
  // Everything trimmed: earliest is head + 1, the cursor the head (an empty page, not a 410).
  assert.equal(recentAfter('100', '101', 20), '100');
  // Seqs past 2^53 keep every digit.
  assert.equal(recentAfter('9007199254740993', '1', 20), '9007199254740973');
});

test('polling stops on a refusal that asking again cannot change, not on a retryable one', () => {
  const answer = (status: number, code: string) =>
    new WeaveApiError({ status, code, message: code });
  assert.equal(isFinalRefusal(answer(403, 'forbidden')), true);
  assert.equal(isFinalRefusal(answer(404, 'not_found')), true);
  assert.equal(isFinalRefusal(answer(429, 'quota_exceeded')), false);
  assert.equal(isFinalRefusal(answer(408, 'timeout')), false);
  assert.equal(isFinalRefusal(answer(503, 'unavailable')), false);
  assert.equal(isFinalRefusal(new Error('network down')), false);
});
