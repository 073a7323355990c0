/**
 * The version a Start pins and what it needs (seed 002 §1 step 3, A1.3): the immutable source,
 * its compiled Program, the queues its TASK and POLL steps use (each must exist under its name),
 * and the application that owns the instance (runtime.md §1.1 "owning application").
 */
import { parse } from '@weave/json';
import { compile } from '@weave/engine';
import type { Program } from '@weave/engine';
import { WeaveError, invalidArgument, notFound } from '../../errors.js';
import { toBool, toId } from '../../store/values.js';
import type { Tx } from '../../store/with-tx.js';
import type { DefinitionVersionWithSource } from '../definitions/definition-record.js';
import { getDefinition, getVersion } from '../definitions/read-definitions.js';
import type { RoundQueue } from '../runtime/activate-work.js';
import { readVersionQueues } from '../runtime/version-queues.js';
import { inNamespaces } from '../../store/namespace-filter.js';

export interface PinnedVersion {
  readonly version: DefinitionVersionWithSource;
  readonly program: Program;
  /** The queues of the version by name. */
  readonly queues: ReadonlyMap<string, RoundQueue>;
}

export async function readPinnedVersion(
  tx: Tx,
  namespaceId: string,
  pin: { readonly workflow: string; readonly version?: number | undefined },
): Promise<PinnedVersion> {
  const number =
    pin.version ?? (await getDefinition(tx, namespaceId, pin.workflow)).definition.latestVersion;
  const version = await getVersion(tx, namespaceId, pin.workflow, number);
  const compiled = compile(parse(version.source));
  if (!compiled.ok) {
    // The source compiled when it was published; a change of the compiler that refuses it now
    // is a bug to fix, not the caller's fault.
    throw new WeaveError('internal', `version ${number} of ${pin.workflow} no longer compiles`);
  }
  return {
    version,
    program: compiled.program,
    queues: await readVersionQueues(tx, namespaceId, version.queues),
  };
}

export interface OwningApplication {
  readonly id: string;
  readonly name: string;
}

/**
 * The application whose quota, default stream and disabled flag the instance answers to: the one
 * named, else the one owning every queue of the version, else the namespace's only application.
 * Anything else must be named: guessing would bill the wrong quota (runtime.md §1.1).
 */
export async function owningApplication(
  tx: Tx,
  namespaceId: string,
  pinned: PinnedVersion,
  named: string | undefined,
): Promise<OwningApplication> {
  const queueApps = new Set([...pinned.queues.values()].map((q) => q.applicationId));
  let query = tx.db.selectFrom('applications').select(['id', 'name', 'disabled']);
  if (named !== undefined) {
    query = query.where('namespace_id', '=', namespaceId).where('name', '=', named);
  } else if (queueApps.size > 0) {
    query = query.where('id', 'in', [...queueApps]).where(inNamespaces([namespaceId]));
  } else {
    query = query.where('namespace_id', '=', namespaceId);
  }
  const rows = await query.limit(2).execute();
  const [row] = rows;
  if (named !== undefined && row === undefined) {
    throw notFound(`application ${named}`, { path: '$.application' });
  }
  if (row === undefined || rows.length > 1) {
    throw invalidArgument(
      '$.application',
      'is required: the workflow uses queues of several applications, or none and the namespace has several',
    );
  }
  if (toBool(row.disabled)) {
    throw new WeaveError('invalid_state', `application ${row.name} is disabled`, {
      details: { path: '$.application' },
    });
  }
  return { id: toId(row.id), name: row.name };
}
