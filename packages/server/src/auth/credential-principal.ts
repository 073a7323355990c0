/**
 * The principal of a stored credential id, for work done later on its creator's behalf (a bulk
 * operation, docs/design/bulk-operations.md): the same checks as `authenticate` on the database
 * clock — revoked, expired, namespace disabled — without the key. Read again for every batch, so
 * a credential revoked or expired meanwhile stops the work.
 */
import { isScope } from '@weave/sdk/protocol';
import type { Scope } from '@weave/sdk/protocol';
import type { Tx } from '../store/with-tx.js';
import { toBool, toId } from '../store/values.js';
import type { Principal } from './principal.js';

export type CredentialState =
  | { readonly ok: true; readonly principal: Principal }
  | {
      readonly ok: false;
      readonly reason: 'unknown' | 'revoked' | 'expired' | 'namespace_disabled';
    };

export async function principalOfCredential(
  tx: Tx,
  namespaceId: string,
  credentialId: string,
): Promise<CredentialState> {
  const row = await tx.db
    .selectFrom('credentials')
    .innerJoin('namespaces', (join) =>
      join
        .onRef('namespaces.id', '=', 'credentials.namespace_id')
        .on('namespaces.id', '=', namespaceId),
    )
    .select([
      'credentials.id',
      'credentials.scopes',
      'credentials.queue_names',
      'credentials.expires_at',
      'credentials.revoked_at',
      'namespaces.name as namespace_name',
      'namespaces.disabled as namespace_disabled',
    ])
    .where('credentials.namespace_id', '=', namespaceId)
    .where('credentials.id', '=', credentialId)
    .executeTakeFirst();
  if (row === undefined) {
    return { ok: false, reason: 'unknown' };
  }
  if (row.revoked_at !== null) {
    return { ok: false, reason: 'revoked' };
  }
  if (row.expires_at !== null && BigInt(row.expires_at) <= tx.now) {
    return { ok: false, reason: 'expired' };
  }
  if (toBool(row.namespace_disabled)) {
    return { ok: false, reason: 'namespace_disabled' };
  }
  return {
    ok: true,
    principal: {
      credentialId: toId(row.id),
      namespaceId,
      namespaceName: row.namespace_name,
      scopes: new Set(row.scopes.split(' ').filter((s): s is Scope => isScope(s))),
      queueNames: row.queue_names === null ? null : new Set(row.queue_names.split(' ')),
    },
  };
}
