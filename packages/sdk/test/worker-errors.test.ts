/**
 * What a thrown value is reported as (`toTaskError`, worker-errors.ts): always a `{code,
 * message}` the server accepts (code `[A-Za-z0-9_.:-]{1,64}`, message at most 4,000 code points
 * of well-formed text), so that a failure is never refused and the task never left unfailed.
 * Found by review: a NonRetryableError's code was sent unchecked and its message uncut, and the
 * retryable path's cut could split a surrogate pair.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { stringify } from '@weave/json';
import { NonRetryableError, toTaskError } from '../src/worker-errors.js';

/** Whether `text` survives a UTF-8 round trip, which a lone surrogate does not. */
function wellFormed(text: string): boolean {
  return new TextDecoder().decode(new TextEncoder().encode(text)) === text;
}

test('a NonRetryableError with a code the server refuses is sent as non_retryable, the code kept in the message', () => {
  const error = new NonRetryableError('the card was declined', { code: 'Card Declined!' });
  assert.deepEqual(toTaskError(error), {
    code: 'non_retryable',
    message: '[invalid code Card Declined!] the card was declined',
    retryable: false,
  });
});

test('a retryable error with a code that is not one is sent as handler_error, the code kept in the message', () => {
  const error = Object.assign(new Error('deadlock'), { code: 1213 });
  assert.deepEqual(toTaskError(error), {
    code: 'handler_error',
    message: '[invalid code 1213] deadlock',
    retryable: true,
  });
});

test('valid codes are sent as given', () => {
  assert.deepEqual(toTaskError(new NonRetryableError('closed', { code: 'account_closed' })), {
    code: 'account_closed',
    message: 'closed',
    retryable: false,
  });
  const reset = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
  assert.equal(toTaskError(reset).code, 'ECONNRESET');
  assert.equal(toTaskError(new Error('no code')).code, 'handler_error');
});

test('a message over 4000 code points is cut there on both paths, never inside a surrogate pair', () => {
  const long = 'a' + '😀'.repeat(5_000);
  for (const error of [new Error(long), new NonRetryableError(long, { code: 'too_long' })]) {
    const { message } = toTaskError(error);
    assert.equal([...message].length, 4_000);
    assert.ok(wellFormed(message), 'no half of a pair at the cut');
    assert.ok(message.startsWith('a😀'));
    stringify({ message }); // writable as JSON
  }
});

test('a lone surrogate in a message becomes U+FFFD', () => {
  const { message } = toTaskError(new Error('bad \uDC00 text \uD800'));
  assert.equal(message, 'bad \uFFFD text \uFFFD');
});

test('a NonRetryableError from another copy of the SDK (same name, another class) is final', () => {
  class CopiedNonRetryableError extends Error {
    readonly code = 'account_closed';
    constructor(message: string) {
      super(message);
      this.name = 'NonRetryableError';
    }
  }
  assert.deepEqual(toTaskError(new CopiedNonRetryableError('closed')), {
    code: 'account_closed',
    message: 'closed',
    retryable: false,
  });
});

test('a thrown value that is not an Error is shown as text, even one that cannot be converted', () => {
  assert.deepEqual(toTaskError('plain text'), {
    code: 'handler_error',
    message: 'plain text',
    retryable: true,
  });
  assert.equal(
    toTaskError(Object.create(null)).message,
    'a thrown value that cannot be shown as text',
  );
});
