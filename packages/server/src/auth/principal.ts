/** Who is calling: a verified credential, bound to exactly one namespace. */
import type { Scope } from '@weave/sdk/protocol';
import { WeaveError } from '../errors.js';

export interface Principal {
  readonly credentialId: string;
  readonly namespaceId: string;
  readonly namespaceName: string;
  readonly scopes: ReadonlySet<Scope>;
  /** Queue names this credential may use; `null` means every queue of the namespace. */
  readonly queueNames: ReadonlySet<string> | null;
}

export function hasScope(principal: Principal, scope: Scope): boolean {
  return principal.scopes.has(scope) || principal.scopes.has('admin');
}

export function canUseQueue(principal: Principal, queueName: string): boolean {
  return principal.queueNames === null || principal.queueNames.has(queueName);
}

export function requireScope(principal: Principal, scope: Scope): void {
  if (!hasScope(principal, scope)) {
    throw new WeaveError('permission_denied', `the credential lacks the scope ${scope}`, {
      details: { scope },
    });
  }
}

/** At least one of the scopes (routes a reader or a publisher may call). */
export function requireAnyScope(principal: Principal, scopes: readonly Scope[]): void {
  const [first] = scopes;
  if (first !== undefined && !scopes.some((scope) => hasScope(principal, scope))) {
    throw new WeaveError(
      'permission_denied',
      `the credential lacks the scope ${scopes.join(' or ')}`,
      {
        details: { scope: scopes.length === 1 ? first : [...scopes] },
      },
    );
  }
}

export function requireQueue(principal: Principal, queueName: string): void {
  if (!canUseQueue(principal, queueName)) {
    throw new WeaveError('permission_denied', `the credential may not use queue ${queueName}`, {
      details: { queue: queueName },
    });
  }
}
