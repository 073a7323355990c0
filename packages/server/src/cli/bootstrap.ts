/**
 * `weave bootstrap` / `weave dev`: a namespace, optionally an application with queues, and one
 * credential, in one transaction. Re-running with the same names reuses what exists and issues
 * a new key. It composes auth, pulse and orbit, so it lives at the top layer, with the CLI.
 */
import type { Scope } from '@weave/sdk/protocol';
import { findApplication } from '../auth/applications.js';
import { writeAudit } from '../auth/audit.js';
import { authenticate } from '../auth/authenticate.js';
import { createCredential, isLookupTaken } from '../auth/credentials.js';
import { toNewKey } from '../auth/keys.js';
import { ensureNamespace } from '../auth/namespaces.js';
import { createApplication } from '../orbit/create-application.js';
import { createQueue, findQueue } from '../pulse/queues.js';
import type { Database } from '../store/database.js';
import { withTx } from '../store/with-tx.js';
import type { Tx } from '../store/with-tx.js';

export interface BootstrapInput {
  readonly namespace: string;
  readonly application?: string;
  readonly queues: readonly string[];
  readonly scopes: readonly Scope[];
  readonly credentialName: string;
  readonly maxActiveTasks?: number;
  /**
   * A key to keep (`weave dev`'s saved key): reused when it is live in the namespace with every
   * scope asked for, re-created as is when the database has no such credential (a fresh
   * database), else replaced by a new key (revoked, expired, other namespace).
   */
  readonly key?: string;
}

export interface BootstrapResult {
  readonly namespace: string;
  readonly credentialId: string;
  readonly key: string;
  /** True when `input.key` was live and is returned as is (no credential was created). */
  readonly reused: boolean;
}

const DEFAULT_MAX_ACTIVE_TASKS = 10_000;
const DEFAULT_QUEUE_CAPACITY = 100_000;

export function bootstrap(database: Database, input: BootstrapInput): Promise<BootstrapResult> {
  return withTx(database, async (tx) => {
    const ns = await ensureNamespace(tx, input.namespace);
    if (input.application !== undefined) {
      const appName = input.application;
      if ((await findApplication(tx, ns.id, appName)) === undefined) {
        await createApplication(tx, ns.id, {
          name: appName,
          maxActiveTasks: input.maxActiveTasks ?? DEFAULT_MAX_ACTIVE_TASKS,
        });
      }
      for (const queue of input.queues) {
        if ((await findQueue(tx, ns.id, queue)) === undefined) {
          await createQueue(tx, ns.id, {
            name: queue,
            application: appName,
            capacity: DEFAULT_QUEUE_CAPACITY,
          });
        }
      }
    }
    if (input.key !== undefined && (await isLive(tx, input.key, ns.id, input.scopes))) {
      return { namespace: ns.name, credentialId: '', key: input.key, reused: true };
    }
    const kept = input.key === undefined ? undefined : toNewKey(input.key);
    const given = kept !== undefined && !(await isLookupTaken(tx, kept.lookup)) ? kept : undefined;
    const { credential, key } = await createCredential(
      tx,
      ns.id,
      { name: input.credentialName, scopes: input.scopes, queues: null, expiresAt: null },
      ...(given === undefined ? [] : [given]),
    );
    await writeAudit(tx, {
      namespaceId: ns.id,
      credentialId: null,
      action: 'credential.create',
      outcome: 'ok',
      objectType: 'credential',
      objectId: credential.id,
      details: '{"via":"bootstrap"}',
    });
    return { namespace: ns.name, credentialId: credential.id, key, reused: false };
  });
}

/** The key authenticates, in this namespace, with every scope asked for. */
async function isLive(
  tx: Tx,
  key: string,
  namespaceId: string,
  scopes: readonly Scope[],
): Promise<boolean> {
  const principal = await authenticate(tx, key).catch((e: unknown) => {
    if ((e as { code?: unknown }).code === 'unauthenticated') {
      return undefined;
    }
    throw e;
  });
  return (
    principal !== undefined &&
    principal.namespaceId === namespaceId &&
    scopes.every((scope) => principal.scopes.has(scope))
  );
}
