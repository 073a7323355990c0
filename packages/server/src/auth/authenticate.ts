/**
 * Verifying a bearer key inside the request's transaction, on the database clock. Every
 * failure is the same `unauthenticated` answer: unknown, malformed, revoked and expired keys are
 * indistinguishable to the caller (API.md).
 */
import { isScope } from '@weave/sdk/protocol';
import type { Scope } from '@weave/sdk/protocol';
import { WeaveError } from '../errors.js';
import type { Tx } from '../store/with-tx.js';
import { toBool, toId } from '../store/values.js';
import { credentialCacheOf } from './credential-cache.js';
import { keyLookup, keyMatches } from './keys.js';
import type { Principal } from './principal.js';

/**
 * `details` go to the audit log only (the HTTP answer omits them for 401): the reason, the
 * key's public lookup part, and for a known credential its id and namespace.
 */
export function unauthenticated(reason: string, known: Record<string, string> = {}): WeaveError {
  return new WeaveError('unauthenticated', 'a valid API key is required', {
    details: { reason, ...known },
  });
}

/** `Authorization: Bearer <key>` → the key, or undefined. */
export function bearerKey(header: string | undefined): string | undefined {
  const m = header === undefined ? null : /^Bearer ([\x21-\x7e]{1,200})$/.exec(header);
  return m?.[1];
}

export async function authenticate(tx: Tx, key: string | undefined): Promise<Principal> {
  if (key === undefined) {
    throw unauthenticated('missing_key');
  }
  const lookup = keyLookup(key);
  if (lookup === undefined) {
    throw unauthenticated('malformed_key');
  }
  const row = await credentialRow(tx, lookup);
  if (row === undefined || !keyMatches(key, row.secret_hash)) {
    throw unauthenticated('unknown_key', { lookup });
  }
  const known = { lookup, credential_id: toId(row.id), namespace_id: toId(row.namespace_id) };
  if (row.revoked_at !== null) {
    throw unauthenticated('revoked', known);
  }
  if (row.expires_at !== null && BigInt(row.expires_at) <= tx.now) {
    throw unauthenticated('expired', known);
  }
  if (toBool(row.namespace_disabled)) {
    throw unauthenticated('namespace_disabled', known);
  }
  return {
    credentialId: toId(row.id),
    namespaceId: toId(row.namespace_id),
    namespaceName: row.namespace_name,
    scopes: new Set(row.scopes.split(' ').filter((s): s is Scope => isScope(s))),
    queueNames: row.queue_names === null ? null : new Set(row.queue_names.split(' ')),
  };
}

type CredentialRow = NonNullable<Awaited<ReturnType<typeof readCredentialRow>>>;

/** The credential row of a lookup, from the short cache (credential-cache.ts) or the table. */
async function credentialRow(tx: Tx, lookup: string): Promise<CredentialRow | undefined> {
  const cache = credentialCacheOf<CredentialRow>(tx);
  const cached = cache.get(lookup);
  if (cached !== undefined) {
    return cached;
  }
  const row = await readCredentialRow(tx, lookup);
  if (row !== undefined) {
    cache.set(lookup, row);
  }
  return row;
}

function readCredentialRow(tx: Tx, lookup: string) {
  return tx.db
    .selectFrom('credentials')
    .innerJoin('namespaces', 'namespaces.id', 'credentials.namespace_id')
    .select([
      'credentials.id',
      'credentials.namespace_id',
      'credentials.secret_hash',
      'credentials.scopes',
      'credentials.queue_names',
      'credentials.expires_at',
      'credentials.revoked_at',
      'namespaces.name as namespace_name',
      'namespaces.disabled as namespace_disabled',
    ])
    .where('credentials.lookup', '=', lookup)
    .executeTakeFirst();
}
