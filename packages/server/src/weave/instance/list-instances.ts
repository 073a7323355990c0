/**
 * The instance list (issue 12 Deliver 4, runtime.md §6 "List"), read from `weave_instances`
 * itself (no second index). Newest first: ordered by `created_at` then `id`, both descending,
 * with a keyset on that pair. Both are fixed at Start, so a walk returns every instance that
 * existed when it began exactly once, whatever is started meanwhile (a new one may or may not
 * appear — its `created_at` is its transaction's DB time, which can be older than the cursor —
 * but never twice). Each filter has an index that starts with `namespace_id` and ends with
 * `(created_at, id)` (migration 0010), so a page is one index range read with no sort; several
 * statuses are one such read per status, merged. A status filter is evaluated when each page is
 * read: an instance that changes status during a walk may leave or enter it.
 *
 * Rights (A3.6): a credential limited to some queues sees only instances whose pinned version
 * uses no other queue; the readable versions are read first and the list is limited to them.
 */
import { parse } from '@weave/json';
import { WeaveError } from '../../errors.js';
import type { Page } from '../../store/pages.js';
import { emptyPage, readNewestFirstPage } from '../../store/pages.js';
import type { Micros } from '../../store/values.js';
import { toBool, toId, toInt, toMicros, toMicrosOrNull } from '../../store/values.js';
import type { Tx } from '../../store/with-tx.js';
import type { InstanceStatus } from '../model/states.js';
import { INSTANCE_STATUSES, toState } from '../model/states.js';
import { inNamespaces } from '../../store/namespace-filter.js';

export interface InstanceListFilter {
  /** The workflow (definition) name. */
  readonly workflow?: string | undefined;
  /** A version number of `workflow`. */
  readonly version?: number | undefined;
  /** Any of these statuses (none: every status). */
  readonly statuses?: readonly InstanceStatus[] | undefined;
  /** Exact bytes. */
  readonly businessKey?: string | undefined;
  /** Created strictly after / before these instants. */
  readonly createdAfter?: Micros | undefined;
  readonly createdBefore?: Micros | undefined;
}

export interface InstanceListRequest {
  readonly namespaceId: string;
  readonly filter: InstanceListFilter;
  /** Queue names the caller may use; null = every queue of the namespace. */
  readonly readableQueues: ReadonlySet<string> | null;
  /** The key of the previous page's last item (`instanceListKey`), or undefined. */
  readonly afterKey: string | undefined;
  readonly size: number;
}

export interface InstanceSummary {
  readonly id: string;
  readonly workflow: string;
  readonly version: number;
  readonly status: InstanceStatus;
  readonly revision: bigint;
  readonly businessKey: string | null;
  readonly paused: boolean;
  readonly deadlineAt: Micros;
  readonly createdAt: Micros;
  readonly finishedAt: Micros | null;
}

/** The keyset text of a page token: `<created_at>.<id>` (store/pages.ts). */
export { NEWEST_FIRST_KEY as INSTANCE_LIST_KEY } from '../../store/pages.js';

const SUMMARY_COLUMNS = [
  'id',
  'definition_id',
  'version',
  'status',
  'revision',
  'business_key',
  'paused',
  'deadline_at',
  'created_at',
  'finished_at',
] as const;

interface Scope {
  readonly definitionId: string | undefined;
  /** The versions the caller may read; undefined = no limit. */
  readonly versionIds: readonly string[] | undefined;
}

export async function listInstances(
  tx: Tx,
  request: InstanceListRequest,
): Promise<Page<InstanceSummary>> {
  const scope = await resolveScope(tx, request);
  if (scope === undefined) {
    return emptyPage();
  }
  const statuses = request.filter.statuses ?? [];
  const ranges = statuses.length === 0 ? [undefined] : [...new Set(statuses)];
  const page = await readNewestFirstPage(
    ranges.map((status) => rangeQuery(tx, { request, scope, status })),
    { afterId: request.afterKey, size: request.size },
    {
      atColumn: 'created_at',
      idColumn: 'id',
      atOf: (row) => toMicros(row.created_at),
      idOf: (row) => toId(row.id),
    },
  );
  const names = await workflowNames(tx, request.namespaceId, page.items);
  return { ...page, items: page.items.map((row) => toSummary(row, names)) };
}

/** The workflow's definition and the readable versions; undefined when nothing can match. */
async function resolveScope(tx: Tx, request: InstanceListRequest): Promise<Scope | undefined> {
  const { namespaceId, filter } = request;
  let definitionId: string | undefined;
  if (filter.workflow !== undefined) {
    const definition = await tx.db
      .selectFrom('weave_definitions')
      .select('id')
      .where('namespace_id', '=', namespaceId)
      .where('name', '=', filter.workflow)
      .executeTakeFirst();
    if (definition === undefined) {
      return undefined;
    }
    definitionId = toId(definition.id);
  }
  const readable = request.readableQueues;
  if (readable === null) {
    return { definitionId, versionIds: undefined };
  }
  let versions = tx.db
    .selectFrom('weave_definition_versions')
    .select(['id', 'queues'])
    .where('namespace_id', '=', namespaceId);
  if (definitionId !== undefined) {
    versions = versions.where('definition_id', '=', definitionId);
  }
  if (filter.version !== undefined) {
    versions = versions.where('version', '=', filter.version);
  }
  const versionIds = (await versions.execute())
    .filter((v) => queuesOf(v.queues).every((queue) => readable.has(queue)))
    .map((v) => toId(v.id));
  return versionIds.length === 0 ? undefined : { definitionId, versionIds };
}

function queuesOf(text: string): string[] {
  const queues = parse(text);
  return Array.isArray(queues) ? queues.filter((q): q is string => typeof q === 'string') : [];
}

interface RangeRead {
  readonly request: InstanceListRequest;
  readonly scope: Scope;
  readonly status: InstanceStatus | undefined;
}

/** One index range of the list (the filters; the keyset, order and limit come from readNewestFirstPage). */
function rangeQuery(tx: Tx, { request, scope, status }: RangeRead) {
  const { namespaceId, filter } = request;
  let query = tx.db
    .selectFrom('weave_instances')
    .select(SUMMARY_COLUMNS)
    .where('namespace_id', '=', namespaceId);
  if (scope.definitionId !== undefined) {
    query = query.where('definition_id', '=', scope.definitionId);
  }
  if (filter.version !== undefined) {
    query = query.where('version', '=', filter.version);
  }
  if (status !== undefined) {
    query = query.where('status', '=', status);
  }
  if (filter.businessKey !== undefined) {
    query = query.where('business_key', '=', filter.businessKey);
  }
  if (filter.createdAfter !== undefined) {
    query = query.where('created_at', '>', filter.createdAfter);
  }
  if (filter.createdBefore !== undefined) {
    query = query.where('created_at', '<', filter.createdBefore);
  }
  if (scope.versionIds !== undefined) {
    query = query.where('version_id', 'in', scope.versionIds);
  }
  return query;
}

type SummaryRow = Awaited<ReturnType<ReturnType<typeof rangeQuery>['execute']>>[number];

async function workflowNames(
  tx: Tx,
  namespaceId: string,
  rows: readonly SummaryRow[],
): Promise<Map<string, string>> {
  const ids = [...new Set(rows.map((row) => toId(row.definition_id)))];
  if (ids.length === 0) {
    return new Map();
  }
  const definitions = await tx.db
    .selectFrom('weave_definitions')
    .select(['id', 'name'])
    .where('id', 'in', ids)
    .where(inNamespaces([namespaceId]))
    .execute();
  return new Map(definitions.map((d) => [toId(d.id), d.name]));
}

function toSummary(row: SummaryRow, names: ReadonlyMap<string, string>): InstanceSummary {
  const workflow = names.get(toId(row.definition_id));
  if (workflow === undefined) {
    throw new WeaveError('internal', `instance ${toId(row.id)} has lost its workflow definition`);
  }
  return {
    id: toId(row.id),
    workflow,
    version: toInt(row.version),
    status: toState(INSTANCE_STATUSES, row.status, 'weave_instances.status'),
    revision: BigInt(row.revision),
    businessKey: row.business_key,
    paused: toBool(row.paused),
    deadlineAt: toMicros(row.deadline_at),
    createdAt: toMicros(row.created_at),
    finishedAt: toMicrosOrNull(row.finished_at),
  };
}
