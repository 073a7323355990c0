/** Namespaces: the tenancy boundary. Created by `weave bootstrap` / `weave dev`. */
import { NAME_PATTERN } from '@weave/sdk/protocol';
import { invalidArgument } from '../errors.js';
import type { Tx } from '../store/with-tx.js';
import type { Micros } from '../store/values.js';
import { toId, toMicros } from '../store/values.js';

export interface Namespace {
  readonly id: string;
  readonly name: string;
  readonly createdAt: Micros;
}

export function checkName(path: string, name: string): void {
  if (!NAME_PATTERN.test(name)) {
    throw invalidArgument(path, `must match ${NAME_PATTERN.source} (got ${JSON.stringify(name)})`);
  }
}

export async function findNamespace(tx: Tx, name: string): Promise<Namespace | undefined> {
  const row = await tx.db
    .selectFrom('namespaces')
    .select(['id', 'name', 'created_at'])
    .where('name', '=', name)
    .executeTakeFirst();
  return row && { id: toId(row.id), name: row.name, createdAt: toMicros(row.created_at) };
}

/** Find or create: bootstrapping the same namespace twice is not an error. */
export async function ensureNamespace(tx: Tx, name: string): Promise<Namespace> {
  checkName('namespace', name);
  const existing = await findNamespace(tx, name);
  if (existing !== undefined) {
    return existing;
  }
  const result = await tx.db
    .insertInto('namespaces')
    .values({ name, created_at: tx.now })
    .executeTakeFirstOrThrow();
  return { id: toId(result.insertId ?? 0n), name, createdAt: tx.now };
}
