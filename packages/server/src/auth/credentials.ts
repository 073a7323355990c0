/** Credentials: created by an admin (or bootstrap), shown once, revocable, optionally expiring. */
import type { Scope } from '@weave/sdk/protocol';
import { notFound } from '../errors.js';
import type { Tx } from '../store/with-tx.js';
import { credentialCacheOf } from './credential-cache.js';
import type { Micros } from '../store/values.js';
import { toId, toMicros, toMicrosOrNull } from '../store/values.js';
import { generateKey } from './keys.js';
import type { NewKey } from './keys.js';

export interface Credential {
  readonly id: string;
  readonly name: string;
  readonly scopes: readonly Scope[];
  readonly queues: readonly string[] | null;
  readonly expiresAt: Micros | null;
  readonly revokedAt: Micros | null;
  readonly createdAt: Micros;
}

export interface CredentialInput {
  readonly name: string;
  readonly scopes: readonly Scope[];
  readonly queues: readonly string[] | null;
  readonly expiresAt: Micros | null;
}

/**
 * Returns the key in clear exactly once; only its hash is stored. `given`: a key made earlier
 * (`weave dev` re-creating its kept key in a fresh database); by default a new random one.
 */
export async function createCredential(
  tx: Tx,
  namespaceId: string,
  input: CredentialInput,
  given: NewKey = generateKey(),
): Promise<{ credential: Credential; key: string }> {
  const { key, lookup, secretHash } = given;
  const scopes = [...new Set(input.scopes)];
  const queues = input.queues === null ? null : [...new Set(input.queues)];
  const inserted = await tx.db
    .insertInto('credentials')
    .values({
      namespace_id: namespaceId,
      name: input.name,
      lookup,
      secret_hash: secretHash,
      scopes: scopes.join(' '),
      queue_names: queues === null ? null : queues.join(' '),
      expires_at: input.expiresAt,
      created_at: tx.now,
    })
    .executeTakeFirstOrThrow();
  const credential: Credential = {
    id: toId(inserted.insertId ?? 0n),
    name: input.name,
    scopes,
    queues,
    expiresAt: input.expiresAt,
    revokedAt: null,
    createdAt: tx.now,
  };
  return { credential, key };
}

/** Whether a credential (live or revoked) already has this lookup part (`uq_credentials_lookup`). */
export async function isLookupTaken(tx: Tx, lookup: string): Promise<boolean> {
  const row = await tx.db
    .selectFrom('credentials')
    .select('id')
    .where('lookup', '=', lookup)
    .executeTakeFirst();
  return row !== undefined;
}

const CREDENTIAL_COLUMNS = [
  'id',
  'name',
  'scopes',
  'queue_names',
  'expires_at',
  'revoked_at',
  'created_at',
] as const;

type CredentialRow = {
  id: string | number | bigint;
  name: string;
  scopes: string;
  queue_names: string | null;
  expires_at: string | number | bigint | null;
  revoked_at: string | number | bigint | null;
  created_at: string | number | bigint;
};

function toCredential(row: CredentialRow): Credential {
  return {
    id: toId(row.id),
    name: row.name,
    scopes: row.scopes.split(' ').filter((s) => s !== '') as Scope[],
    queues: row.queue_names === null ? null : row.queue_names.split(' '),
    expiresAt: toMicrosOrNull(row.expires_at),
    revokedAt: toMicrosOrNull(row.revoked_at),
    createdAt: toMicros(row.created_at),
  };
}

export async function listCredentials(tx: Tx, namespaceId: string): Promise<Credential[]> {
  const rows = await tx.db
    .selectFrom('credentials')
    .select(CREDENTIAL_COLUMNS)
    .where('namespace_id', '=', namespaceId)
    .orderBy('id')
    .execute();
  return rows.map(toCredential);
}

/** Revoking twice is fine: the first revocation time stays. */
export async function revokeCredential(
  tx: Tx,
  namespaceId: string,
  id: string,
): Promise<Credential> {
  if (!/^[1-9][0-9]{0,18}$/.test(id)) {
    throw notFound(`credential ${id}`, { path: 'id' });
  }
  const row = await tx.dialect
    .forUpdate(
      tx.db
        .selectFrom('credentials')
        .select(CREDENTIAL_COLUMNS)
        .where('namespace_id', '=', namespaceId)
        .where('id', '=', id),
    )
    .executeTakeFirst();
  if (row === undefined) {
    throw notFound(`credential ${id}`, { path: 'id' });
  }
  if (row.revoked_at === null) {
    await tx.db
      .updateTable('credentials')
      .set({ revoked_at: tx.now })
      .where('id', '=', id)
      .where('namespace_id', '=', namespaceId)
      .execute();
    // Refused at once on this node; on others within CREDENTIAL_CACHE_MS.
    tx.afterCommit(() => credentialCacheOf(tx).clear());
    return { ...toCredential(row), revokedAt: tx.now };
  }
  return toCredential(row);
}
