/**
 * A short-lived cache of credential rows by their public lookup part, per open database, so a
 * busy worker's every call does not read its key again (one round trip of about ten per
 * completion batch). Only what the row says is cached; every request still checks the secret's
 * hash, the expiry (database clock), revocation and the namespace against it.
 *
 * Staleness is bounded: an entry lives `CREDENTIAL_CACHE_MS`. A revocation through this node
 * clears the cache when it commits, so it is refused at once here; on other nodes (and after a
 * namespace is disabled from the CLI) within that time. Unknown keys are never cached.
 */
import type { WakeUps } from '../store/wake-ups.js';
import type { Tx } from '../store/with-tx.js';

/** How long a credential row is trusted without reading it again. */
export const CREDENTIAL_CACHE_MS = 1_000;
const MAX_ENTRIES = 10_000;

interface Entry<R> {
  readonly row: R;
  readonly until: number;
}

export class CredentialCache<R> {
  readonly #entries = new Map<string, Entry<R>>();

  get(lookup: string): R | undefined {
    const entry = this.#entries.get(lookup);
    if (entry === undefined) {
      return undefined;
    }
    if (entry.until <= performance.now()) {
      this.#entries.delete(lookup);
      return undefined;
    }
    return entry.row;
  }

  set(lookup: string, row: R): void {
    if (this.#entries.size >= MAX_ENTRIES) {
      this.#entries.clear();
    }
    this.#entries.set(lookup, { row, until: performance.now() + CREDENTIAL_CACHE_MS });
  }

  clear(): void {
    this.#entries.clear();
  }
}

/** One cache per open database: its `WakeUps` is the per-database object every `tx` carries. */
const caches = new WeakMap<WakeUps, CredentialCache<unknown>>();

export function credentialCacheOf<R>(tx: Tx): CredentialCache<R> {
  let cache = caches.get(tx.wakeUps);
  if (cache === undefined) {
    cache = new CredentialCache<unknown>();
    caches.set(tx.wakeUps, cache);
  }
  return cache as CredentialCache<R>;
}
