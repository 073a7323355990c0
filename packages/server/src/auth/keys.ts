/**
 * API keys: `wv_<lookup>_<secret>`. The lookup part finds the row; only the SHA-256 of the whole
 * key is stored, and it is compared in constant time. A key has 256 bits of secret, so a plain
 * hash (no slow KDF) is the right tool: there is nothing to brute-force.
 */
import { hash, randomBytes, timingSafeEqual } from 'node:crypto';

const KEY_PATTERN = /^wv_([0-9a-f]{16})_([A-Za-z0-9_-]{43})$/;

export interface NewKey {
  readonly key: string;
  readonly lookup: string;
  readonly secretHash: Buffer;
}

export function generateKey(): NewKey {
  const lookup = randomBytes(8).toString('hex');
  const key = `wv_${lookup}_${randomBytes(32).toString('base64url')}`;
  return { key, lookup, secretHash: hashKey(key) };
}

/** A key given in full (the one `weave dev` keeps in its data folder), or undefined if malformed. */
export function toNewKey(key: string): NewKey | undefined {
  const lookup = keyLookup(key);
  return lookup === undefined ? undefined : { key, lookup, secretHash: hashKey(key) };
}

export function hashKey(key: string): Buffer {
  return hash('sha256', key, 'buffer');
}

/** The lookup part of a well-formed key, or undefined. Never returns or logs the secret. */
export function keyLookup(key: string): string | undefined {
  return KEY_PATTERN.exec(key)?.[1];
}

export function keyMatches(key: string, storedHash: Uint8Array): boolean {
  const presented = hashKey(key);
  return storedHash.length === presented.length && timingSafeEqual(presented, storedHash);
}
