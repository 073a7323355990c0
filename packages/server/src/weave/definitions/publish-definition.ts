/**
 * Publishing a workflow definition (issue 11 Deliver 1): compile it as `weave workflows
 * validate` does, then store an immutable version — the compact exact-JSON source text (key
 * order and number text as sent) and its sha256 digest. The same source again returns the
 * version that already holds it.
 *
 * Lock order: the definition row (`weave_definitions`, FOR UPDATE) serialises the publishes of
 * one workflow, so version numbers are contiguous and one digest gets one version. A first
 * publish that races another first publish of the same name loses at the unique name index
 * (inside a savepoint) and then locks the winner's row.
 */
import { createHash } from 'node:crypto';
import { stringify, utf8ByteLength } from '@weave/json';
import type { JsonValue } from '@weave/json';
import { LIMITS, compile } from '@weave/engine';
import type { Problem } from '@weave/engine';
import { WeaveError } from '../../errors.js';
import type { Tx } from '../../store/with-tx.js';
import type { Definition, DefinitionVersion } from './definition-record.js';
import { definitionQuery, toDefinition, toVersion, versionQuery } from './definition-record.js';

export interface PublishInput {
  readonly namespaceId: string;
  readonly credentialId: string | null;
  /** The `definition` member of the request, exact JSON. */
  readonly definition: JsonValue;
}

export interface Published {
  readonly version: DefinitionVersion;
  /** False when this source was already published (the existing version is returned). */
  readonly created: boolean;
}

/** Problem paths are relative to the definition; the request has it under `$.definition`. */
function underDefinition(path: string): string {
  return `$.definition${path.slice(1)}`;
}

function refuse(problems: readonly Problem[]): never {
  const [first] = problems;
  const count = problems.length === 1 ? 'a problem' : `${problems.length} problems`;
  throw new WeaveError(
    'invalid_argument',
    `the definition has ${count}: ${first === undefined ? '' : first.message}`,
    {
      details: {
        path: underDefinition(first?.path ?? '$'),
        problems: problems.map((p) => ({
          path: underDefinition(p.path),
          code: p.code,
          message: p.message,
        })),
      },
    },
  );
}

export async function publishDefinition(tx: Tx, input: PublishInput): Promise<Published> {
  const source = stringify(input.definition);
  if (utf8ByteLength(source) > LIMITS.maxDefinitionBytes) {
    throw new WeaveError('payload_too_large', 'the definition is over its limit', {
      details: { path: '$.definition', limit: LIMITS.maxDefinitionBytes },
    });
  }
  const compiled = compile(input.definition);
  if (!compiled.ok) {
    refuse(compiled.problems);
  }
  const { program } = compiled;
  const definition = await lockDefinition(tx, input.namespaceId, program.name);
  const digest = createHash('sha256').update(source, 'utf8').digest('hex');
  const existing = await versionQuery(tx, input.namespaceId)
    .where('v.definition_id', '=', definition.id)
    .where('v.digest', '=', digest)
    .executeTakeFirst();
  if (existing !== undefined) {
    return { version: toVersion(existing), created: false };
  }
  const version = definition.latestVersion + 1;
  const queues = program.queues();
  await tx.db
    .insertInto('weave_definition_versions')
    .values({
      namespace_id: input.namespaceId,
      definition_id: definition.id,
      version,
      source,
      digest,
      schema_version: 1,
      step_count: program.stepCount,
      queues: stringify(queues),
      has_tasks: queues.length > 0 ? 1 : 0,
      created_by: input.credentialId,
      created_at: tx.now,
    })
    .execute();
  await tx.db
    .updateTable('weave_definitions')
    .set({ latest_version: version, updated_at: tx.now })
    .where('namespace_id', '=', input.namespaceId)
    .where('id', '=', definition.id)
    .execute();
  const stored = await versionQuery(tx, input.namespaceId)
    .where('v.definition_id', '=', definition.id)
    .where('v.version', '=', version)
    .executeTakeFirstOrThrow();
  return { version: toVersion(stored), created: true };
}

/** The definition row of `name`, locked; created (version 0) on the first publish. */
async function lockDefinition(tx: Tx, namespaceId: string, name: string): Promise<Definition> {
  const locked = () =>
    tx.dialect
      .forUpdate(definitionQuery(tx, namespaceId).where('d.name', '=', name))
      .executeTakeFirst();
  const found = await locked();
  if (found !== undefined) {
    return toDefinition(found);
  }
  try {
    await tx.savepoint(async () => {
      await tx.db
        .insertInto('weave_definitions')
        .values({ namespace_id: namespaceId, name, created_at: tx.now, updated_at: tx.now })
        .execute();
    });
  } catch (e: unknown) {
    // Another first publish of this name committed in between: lock its row instead.
    if (!tx.dialect.isUniqueViolation(e)) {
      throw e;
    }
  }
  const row = await locked();
  if (row === undefined) {
    throw new WeaveError('internal', `workflow ${name} was neither found nor created`);
  }
  return toDefinition(row);
}
