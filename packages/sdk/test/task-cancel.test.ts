/**
 * A task's cancellation (`LazyAbort`, worker.ts): the handler's `ctx.signal` is made when read,
 * and an abort that came first (a heartbeat answered `cancel_requested`, a lost permit) shows on
 * it all the same.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LazyAbort } from '../src/task-cancel.js';

test('a signal read after the abort is already aborted, with the abort’s reason', () => {
  const cancel = new LazyAbort();
  const reason = new Error('cancellation requested');
  cancel.abort(reason);
  assert.equal(cancel.signal.aborted, true);
  assert.equal(cancel.signal.reason, reason);
});

test('a signal read before the abort fires its listeners when the abort comes', () => {
  const cancel = new LazyAbort();
  const { signal } = cancel;
  let heard: unknown;
  signal.addEventListener('abort', () => {
    heard = signal.reason as unknown;
  });
  assert.equal(signal.aborted, false);
  const reason = new Error('permit_stale');
  cancel.abort(reason);
  assert.equal(heard, reason);
  assert.equal(cancel.signal, signal, 'the same signal every time');
});

test('the first abort’s reason is kept; a later one changes nothing', () => {
  const cancel = new LazyAbort();
  const first = new Error('first');
  cancel.abort(first);
  cancel.abort(new Error('second'));
  assert.equal(cancel.signal.reason, first);
});

test('never aborted, the signal stays quiet', () => {
  assert.equal(new LazyAbort().signal.aborted, false);
});
