/** Credential administration: the key is in the creation response and nowhere else. */
import { NAME_PATTERN, SCOPES, isScope } from '@weave/sdk/protocol';
import type { Scope } from '@weave/sdk/protocol';
import { createCredential, listCredentials, revokeCredential } from '../../auth/credentials.js';
import { WeaveError } from '../../errors.js';
import { auditChange } from '../audit-change.js';
import {
  expectObject,
  readInstant,
  readStringArray,
  rejectUnknown,
  requireString,
} from '../fields.js';
import { credentialView } from '../presenters.js';
import type { Route } from '../route.js';

function readScopes(values: readonly string[]): Scope[] {
  return values.map((s, i) => {
    if (!isScope(s)) {
      throw new WeaveError(
        'invalid_argument',
        `$.scopes[${i}] must be one of ${SCOPES.join(', ')}`,
        {
          details: { path: `$.scopes[${i}]` },
        },
      );
    }
    return s;
  });
}

export const credentialRoutes: Route[] = [
  {
    method: 'POST',
    path: '/credentials',
    scope: 'admin',
    operation: 'credential.create',
    summary: 'Create a credential; the key is shown once, in this response',
    requestSchema: {
      type: 'object',
      required: ['name', 'scopes'],
      properties: {
        name: { type: 'string', maxLength: 191 },
        scopes: { type: 'array', items: { type: 'string', enum: [...SCOPES] } },
        queues: { type: 'array', items: { type: 'string', pattern: NAME_PATTERN.source } },
        expires_at: { type: 'string', format: 'date-time' },
      },
    },
    async handle(ctx) {
      const body = expectObject(ctx.body);
      rejectUnknown(body, ['name', 'scopes', 'queues', 'expires_at']);
      const name = requireString(body, 'name', { maxLength: 191 });
      const scopes = readScopes(
        readStringArray(body, 'scopes', { minItems: 1, maxItems: SCOPES.length }) ?? [],
      );
      if (scopes.length === 0) {
        throw new WeaveError('invalid_argument', '$.scopes is required', {
          details: { path: '$.scopes' },
        });
      }
      const queues =
        readStringArray(body, 'queues', { pattern: NAME_PATTERN, maxItems: 1000 }) ?? null;
      const expiresAt = readInstant(body, 'expires_at') ?? null;
      const { credential, key } = await createCredential(ctx.tx, ctx.principal.namespaceId, {
        name,
        scopes,
        queues,
        expiresAt,
      });
      await auditChange(ctx, 'credential.create', { type: 'credential', id: credential.id });
      const view = credentialView(credential);
      // A replay must not reveal the key again: receipts keep the body without it.
      return { status: 201, body: { credential: view, key }, replayBody: { credential: view } };
    },
  },
  {
    method: 'GET',
    path: '/credentials',
    scope: 'admin',
    summary: 'List credentials (never their keys)',
    async handle(ctx) {
      const items = await listCredentials(ctx.tx, ctx.principal.namespaceId);
      return { status: 200, body: { items: items.map(credentialView) } };
    },
  },
  {
    method: 'DELETE',
    path: '/credentials/:id',
    scope: 'admin',
    operation: 'credential.revoke',
    summary: 'Revoke a credential (refused at once by this node, by every node within 1 s)',
    async handle(ctx) {
      const credential = await revokeCredential(
        ctx.tx,
        ctx.principal.namespaceId,
        ctx.params.id ?? '',
      );
      await auditChange(ctx, 'credential.revoke', { type: 'credential', id: credential.id });
      return { status: 200, body: { credential: credentialView(credential) } };
    },
  },
];
