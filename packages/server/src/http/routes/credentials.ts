/** Credential administration: the key is in the creation answer and nowhere else. */
import type { JsonValue } from '@weave/json';
import { NAME_PATTERN, SCOPES, admin, isScope } from '@weave/sdk/protocol';
import type { Scope } from '@weave/sdk/protocol';
import { createCredential, listCredentials, revokeCredential } from '../../auth/credentials.js';
import { invalidArgument } from '../../errors.js';
import { auditChange } from '../audit-change.js';
import {
  expectObject,
  readInstant,
  readStringArray,
  rejectUnknown,
  requireString,
} from '../fields.js';
import { credentialView } from '../presenters.js';
import { route } from '../route.js';

function readScopes(values: readonly string[]): Scope[] {
  return values.map((s, i) => {
    if (!isScope(s)) {
      throw invalidArgument(`$.scopes[${i}]`, `must be one of ${SCOPES.join(', ')}`);
    }
    return s;
  });
}

function parseCreate(body: JsonValue | undefined) {
  const obj = expectObject(body);
  rejectUnknown(obj, ['name', 'scopes', 'queues', 'expires_at']);
  const name = requireString(obj, 'name', { maxLength: admin.MAX_CREDENTIAL_NAME });
  if (name === '') {
    throw invalidArgument('$.name', 'must not be empty');
  }
  const scopes = readScopes(
    readStringArray(obj, 'scopes', { minItems: 1, maxItems: SCOPES.length }) ?? [],
  );
  if (scopes.length === 0) {
    throw invalidArgument('$.scopes', 'is required');
  }
  return {
    name,
    scopes,
    queues: readStringArray(obj, 'queues', { pattern: NAME_PATTERN, maxItems: 1000 }) ?? null,
    expiresAt: readInstant(obj, 'expires_at') ?? null,
  };
}

export const credentialRoutes = [
  route(admin.createCredential, {
    parse: parseCreate,
    async handle(ctx, input) {
      const namespaceId = ctx.principal.namespaceId;
      const { credential, key } = await createCredential(ctx.tx, namespaceId, input);
      await auditChange(ctx, 'credential.create', { type: 'credential', id: credential.id });
      const view = credentialView(credential);
      // A replay must not reveal the key again: receipts keep the body without it.
      return { body: { credential: view, key }, replayBody: { credential: view } };
    },
  }),
  route(admin.listCredentials, {
    async handle(ctx) {
      const items = await listCredentials(ctx.tx, ctx.principal.namespaceId);
      return { body: { items: items.map(credentialView) } };
    },
  }),
  route(admin.revokeCredential, {
    async handle(ctx) {
      const id = ctx.params.id ?? '';
      const credential = await revokeCredential(ctx.tx, ctx.principal.namespaceId, id);
      await auditChange(ctx, 'credential.revoke', { type: 'credential', id: credential.id });
      return { body: { credential: credentialView(credential) } };
    },
  }),
];
