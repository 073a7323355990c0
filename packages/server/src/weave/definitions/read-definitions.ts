/** Reading workflow definitions: list, one workflow, its versions (newest first), one version. */
import { notFound } from '../../errors.js';
import type { Page, PageRequest } from '../../store/pages.js';
import { readPage } from '../../store/pages.js';
import type { Tx } from '../../store/with-tx.js';
import type {
  Definition,
  DefinitionVersion,
  DefinitionVersionWithSource,
} from './definition-record.js';
import { definitionQuery, toDefinition, toVersion, versionQuery } from './definition-record.js';

export function listDefinitions(
  tx: Tx,
  namespaceId: string,
  page: PageRequest,
): Promise<Page<Definition>> {
  return readPage(definitionQuery(tx, namespaceId), page, {
    column: 'd.id',
    toItem: toDefinition,
    idOf: (d) => d.id,
  });
}

export async function getDefinition(tx: Tx, namespaceId: string, name: string) {
  const row = await definitionQuery(tx, namespaceId).where('d.name', '=', name).executeTakeFirst();
  if (row === undefined) {
    throw notFound(`workflow ${name}`, { path: '$.workflow' });
  }
  const definition = toDefinition(row);
  const latest = await versionQuery(tx, namespaceId)
    .where('v.definition_id', '=', definition.id)
    .where('v.version', '=', definition.latestVersion)
    .executeTakeFirstOrThrow();
  return { definition, latest: toVersion(latest) };
}

export async function listVersions(
  tx: Tx,
  namespaceId: string,
  name: string,
  page: PageRequest,
): Promise<Page<DefinitionVersion>> {
  const { definition } = await getDefinition(tx, namespaceId, name);
  return readPage(
    versionQuery(tx, namespaceId).where('v.definition_id', '=', definition.id),
    page,
    {
      column: 'v.id',
      toItem: toVersion,
      idOf: (v) => v.id,
      descending: true,
    },
  );
}

export async function getVersion(
  tx: Tx,
  namespaceId: string,
  name: string,
  version: number,
): Promise<DefinitionVersionWithSource> {
  const row = await versionQuery(tx, namespaceId)
    .select('v.source')
    .where('d.name', '=', name)
    .where('v.version', '=', version)
    .executeTakeFirst();
  if (row === undefined) {
    throw notFound(`version ${version} of workflow ${name}`, { path: '$.version' });
  }
  return { ...toVersion(row), source: row.source };
}
