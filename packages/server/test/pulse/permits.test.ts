/**
 * Permits and API keys are hashed with the one-shot `crypto.hash` and permits drawn from a pool
 * of random bytes (docs/design/hot-path.md §12): the stored hashes must stay byte for byte what
 * they were (rows written before still match), and no two permits may share bytes.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { generateKey, hashKey, keyMatches } from '../../src/auth/keys.js';
import { createPermit, hashPermit, requireOwnPermit } from '../../src/pulse/permits.js';

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest();

test('a permit hash is the SHA-256 of its token, as stored before', () => {
  for (const token of ['abc', 'Zm9vYmFy-_', '漢字 and é']) {
    assert.deepEqual(hashPermit(token), sha256(token));
  }
});

test('an API key hash is the SHA-256 of the whole key, as stored before', () => {
  const { key, secretHash } = generateKey();
  assert.deepEqual(secretHash, sha256(key));
  assert.deepEqual(hashKey(key), sha256(key));
  assert.equal(keyMatches(key, sha256(key)), true);
  const other = key.slice(0, -1) + (key.endsWith('A') ? 'B' : 'A');
  assert.equal(keyMatches(other, sha256(key)), false);
});

test('permits across several pool refills are 256-bit, distinct and hashed', () => {
  const seen = new Set<string>();
  const bytes = new Set<string>();
  for (let i = 0; i < 1_000; i++) {
    const { token, hash } = createPermit();
    assert.match(token, /^[A-Za-z0-9_-]{43}$/);
    assert.equal(Buffer.from(token, 'base64url').length, 32);
    assert.deepEqual(hash, sha256(token));
    seen.add(token);
    // No 8-byte window of one permit reappears in another: no pool byte is handed out twice.
    const raw = Buffer.from(token, 'base64url');
    for (let at = 0; at + 8 <= raw.length; at += 8) {
      const part = raw.subarray(at, at + 8).toString('hex');
      assert.equal(bytes.has(part), false, `bytes ${part} handed out twice`);
      bytes.add(part);
    }
  }
  assert.equal(seen.size, 1_000);
});

test('a permit checks against its own hash only', () => {
  const a = createPermit();
  const b = createPermit();
  const task = { id: 't1' } as Parameters<typeof requireOwnPermit>[0];
  const attempt = { taskId: 't1', permitHash: a.hash } as unknown as Parameters<
    typeof requireOwnPermit
  >[1];
  assert.equal(requireOwnPermit(task, attempt, a.token), attempt);
  assert.throws(() => requireOwnPermit(task, attempt, b.token), /permit is not current/);
});
