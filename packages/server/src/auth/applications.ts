/**
 * Applications own queues and an application quota (max active tasks shared by all of its
 * queues). The quota row is what admission locks exclusively (seed 002 §1 step 1). An
 * application is created together with its default Orbit stream; that composition sits one layer
 * up, in orbit/create-application.ts, since auth never imports orbit (ARCHITECTURE.md).
 */
import { alreadyExists, notFound } from '../errors.js';
import type { ExistenceCheckHooks } from '../store/unique-insert.js';
import { insertUnique } from '../store/unique-insert.js';
import type { Tx } from '../store/with-tx.js';
import type { Micros } from '../store/values.js';
import { toBool, toId, toInt, toMicros } from '../store/values.js';
import { checkName } from './namespaces.js';

export interface Application {
  readonly id: string;
  readonly name: string;
  readonly disabled: boolean;
  readonly revision: string;
  readonly maxActiveTasks: number;
  readonly createdAt: Micros;
  readonly updatedAt: Micros;
}

export interface ApplicationInput {
  readonly name: string;
  readonly maxActiveTasks: number;
  readonly hooks?: ExistenceCheckHooks;
}

/** The application row and its quota row, without the default stream (see the module doc). */
export async function insertApplication(
  tx: Tx,
  namespaceId: string,
  input: ApplicationInput,
): Promise<Application> {
  checkName('$.name', input.name);
  const taken = `application ${input.name} already exists`;
  if (await findApplication(tx, namespaceId, input.name)) {
    throw alreadyExists(taken);
  }
  await input.hooks?.afterExistenceCheck?.();
  const insert = tx.db.insertInto('applications').values({
    namespace_id: namespaceId,
    name: input.name,
    created_at: tx.now,
    updated_at: tx.now,
  });
  const inserted = await insertUnique(tx, taken, () => insert.executeTakeFirstOrThrow());
  const id = toId(inserted.insertId ?? 0n);
  await tx.db
    .insertInto('application_quotas')
    .values({
      application_id: id,
      namespace_id: namespaceId,
      max_active_tasks: input.maxActiveTasks,
      // Exact: a new application has no task (pulse/admission.ts; the column's default, unknown,
      // would make its first admission count, and one left to the commit run twice).
      active_bound: 0,
      updated_at: tx.now,
    })
    .execute();
  return {
    id,
    name: input.name,
    disabled: false,
    revision: '1',
    maxActiveTasks: input.maxActiveTasks,
    createdAt: tx.now,
    updatedAt: tx.now,
  };
}

export async function findApplication(
  tx: Tx,
  namespaceId: string,
  name: string,
): Promise<Application | undefined> {
  const row = await tx.db
    .selectFrom('applications as a')
    .innerJoin('application_quotas as q', 'q.application_id', 'a.id')
    .select(['a.id', 'a.name', 'a.disabled', 'a.revision', 'a.created_at', 'a.updated_at'])
    .select('q.max_active_tasks')
    .where('a.namespace_id', '=', namespaceId)
    .where('q.namespace_id', '=', namespaceId)
    .where('a.name', '=', name)
    .executeTakeFirst();
  return (
    row && {
      id: toId(row.id),
      name: row.name,
      disabled: toBool(row.disabled),
      revision: toId(row.revision),
      maxActiveTasks: toInt(row.max_active_tasks),
      createdAt: toMicros(row.created_at),
      updatedAt: toMicros(row.updated_at),
    }
  );
}

export async function getApplication(
  tx: Tx,
  namespaceId: string,
  name: string,
): Promise<Application> {
  const app = await findApplication(tx, namespaceId, name);
  if (app === undefined) {
    throw notFound(`application ${name}`, { path: 'application' });
  }
  return app;
}

export interface ApplicationPatch {
  readonly maxActiveTasks?: number;
  readonly disabled?: boolean;
}

/** Quota first, then the application: the lock order of DESIGN.md §3. */
export async function updateApplication(
  tx: Tx,
  namespaceId: string,
  name: string,
  patch: ApplicationPatch,
): Promise<Application> {
  const app = await getApplication(tx, namespaceId, name);
  if (patch.maxActiveTasks !== undefined) {
    await tx.db
      .updateTable('application_quotas')
      .set((eb) => ({
        max_active_tasks: patch.maxActiveTasks ?? 0,
        revision: eb('revision', '+', 1),
        updated_at: tx.now,
      }))
      .where('application_id', '=', app.id)
      .where('namespace_id', '=', namespaceId)
      .execute();
  }
  await tx.db
    .updateTable('applications')
    .set((eb) => ({
      ...(patch.disabled === undefined ? {} : { disabled: patch.disabled ? 1 : 0 }),
      revision: eb('revision', '+', 1),
      updated_at: tx.now,
    }))
    .where('id', '=', app.id)
    .where('namespace_id', '=', namespaceId)
    .execute();
  return getApplication(tx, namespaceId, name);
}
