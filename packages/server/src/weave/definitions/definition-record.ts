/**
 * Workflow definitions and their immutable versions as stored (`weave_definitions`,
 * `weave_definition_versions`), mapped once to the types the services and views use.
 */
import { parse } from '@weave/json';
import type { Tx } from '../../store/with-tx.js';
import type { Micros } from '../../store/values.js';
import { toBool, toId, toInt, toMicros } from '../../store/values.js';

export interface Definition {
  readonly id: string;
  readonly name: string;
  readonly latestVersion: number;
  readonly createdAt: Micros;
  readonly updatedAt: Micros;
}

export interface DefinitionVersion {
  readonly id: string;
  readonly definitionId: string;
  readonly workflow: string;
  readonly version: number;
  readonly digest: string;
  readonly schemaVersion: number;
  readonly stepCount: number;
  readonly queues: readonly string[];
  readonly hasTasks: boolean;
  readonly createdAt: Micros;
}

/** A version with its source text exactly as published. */
export interface DefinitionVersionWithSource extends DefinitionVersion {
  readonly source: string;
}

export function definitionQuery(tx: Tx, namespaceId: string) {
  return tx.db
    .selectFrom('weave_definitions as d')
    .select(['d.id', 'd.name', 'd.latest_version', 'd.created_at', 'd.updated_at'])
    .where('d.namespace_id', '=', namespaceId);
}

type DefinitionRow = Awaited<
  ReturnType<ReturnType<typeof definitionQuery>['executeTakeFirstOrThrow']>
>;

export function toDefinition(row: DefinitionRow): Definition {
  return {
    id: toId(row.id),
    name: row.name,
    latestVersion: toInt(row.latest_version),
    createdAt: toMicros(row.created_at),
    updatedAt: toMicros(row.updated_at),
  };
}

/** Versions of a namespace joined with their workflow's name (both filtered by namespace). */
export function versionQuery(tx: Tx, namespaceId: string) {
  return tx.db
    .selectFrom('weave_definition_versions as v')
    .innerJoin('weave_definitions as d', (join) =>
      join.onRef('d.id', '=', 'v.definition_id').on('d.namespace_id', '=', namespaceId),
    )
    .select([
      'v.id',
      'v.definition_id',
      'd.name',
      'v.version',
      'v.digest',
      'v.schema_version',
      'v.step_count',
      'v.queues',
      'v.has_tasks',
      'v.created_at',
    ])
    .where('v.namespace_id', '=', namespaceId);
}

type VersionRow = Awaited<ReturnType<ReturnType<typeof versionQuery>['executeTakeFirstOrThrow']>>;

export function toVersion(row: VersionRow): DefinitionVersion {
  const queues = parse(row.queues);
  return {
    id: toId(row.id),
    definitionId: toId(row.definition_id),
    workflow: row.name,
    version: toInt(row.version),
    digest: row.digest,
    schemaVersion: toInt(row.schema_version),
    stepCount: toInt(row.step_count),
    queues: Array.isArray(queues) ? queues.filter((q): q is string => typeof q === 'string') : [],
    hasTasks: toBool(row.has_tasks),
    createdAt: toMicros(row.created_at),
  };
}
