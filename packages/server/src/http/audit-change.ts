/** Every change made through the API leaves an audit row, in the same transaction. */
import { writeAudit } from '../auth/audit.js';
import type { RouteContext } from './route.js';

export function auditChange(
  ctx: RouteContext,
  action: string,
  object: { type: string; id: string },
): Promise<void> {
  return writeAudit(ctx.tx, {
    namespaceId: ctx.principal.namespaceId,
    credentialId: ctx.principal.credentialId,
    action,
    outcome: 'ok',
    objectType: object.type,
    objectId: object.id,
    requestId: ctx.requestId,
  });
}
