/**
 * The instance list's query parameters (API.md "Weave": `GET /instances?workflow=&version=&
 * status=&business_key=&created_after=&created_before=`) → the service's filter, each bad value a
 * 400 `invalid_argument` naming its parameter (`$.status`, …). A bulk operation's body filter
 * (`POST /instance-operations`) is read by the same code, its members named under `$.filter`.
 */
import { NAME_PATTERN, instances, parseInstant, workflows } from '@weave/sdk/protocol';
import { invalidArgument } from '../errors.js';
import type { InstanceListFilter } from '../weave/instance/list-instances.js';
import { queryInteger } from './query-fields.js';

type Query = Readonly<Record<string, string | undefined>>;

/** The parameters, and where they came from: the query string (`''`) or a body member (`$.filter`). */
interface Source {
  readonly query: Query;
  readonly path: string;
}

function pathOf(source: Source, key: string): string {
  return source.path === '' ? key : `${source.path}.${key}`;
}

/** One text value; a repeated parameter (an array at run time) is refused. */
function text(source: Source, key: string): string | undefined {
  const value: unknown = source.query[key];
  if (value === undefined) {
    return undefined;
  }
  if (typeof value !== 'string') {
    throw invalidArgument(pathOf(source, key), 'must be given once');
  }
  return value;
}

function isInstanceStatus(value: string): value is instances.InstanceStatus {
  return (instances.INSTANCE_STATUSES as readonly string[]).includes(value);
}

function statuses(source: Source): instances.InstanceStatus[] | undefined {
  const list = text(source, 'status');
  if (list === undefined) {
    return undefined;
  }
  return list.split(',').map((status) => {
    if (!isInstanceStatus(status)) {
      throw invalidArgument(
        pathOf(source, 'status'),
        `must be instance statuses separated by commas (${instances.INSTANCE_STATUSES.join(', ')}); got "${status}"`,
      );
    }
    return status;
  });
}

function instant(source: Source, key: string) {
  const value = text(source, key);
  if (value === undefined) {
    return undefined;
  }
  const micros = parseInstant(value);
  if (micros === undefined) {
    throw invalidArgument(
      pathOf(source, key),
      'must be an RFC 3339 instant such as 2026-11-29T20:30:11Z',
    );
  }
  return micros;
}

/**
 * `path`: where the parameters are named in errors — `''` for the query string (`$.status`), or
 * the body member they came from (`$.filter` → `$.filter.status`).
 */
export function parseInstanceFilter(query: Query, path = ''): InstanceListFilter {
  const source = { query, path };
  const workflow = text(source, 'workflow');
  if (workflow !== undefined && !NAME_PATTERN.test(workflow)) {
    throw invalidArgument(pathOf(source, 'workflow'), 'must be a workflow name');
  }
  const version = queryInteger(query, 'version', {
    min: 1,
    max: workflows.MAX_VERSION,
    path: pathOf(source, 'version'),
  });
  if (version !== undefined && workflow === undefined) {
    throw invalidArgument(
      pathOf(source, 'version'),
      'needs workflow (a version number belongs to one workflow)',
    );
  }
  const businessKey = text(source, 'business_key');
  if (businessKey !== undefined && [...businessKey].length > instances.MAX_BUSINESS_KEY) {
    throw invalidArgument(
      pathOf(source, 'business_key'),
      `must be at most ${instances.MAX_BUSINESS_KEY} characters`,
    );
  }
  return {
    workflow,
    version,
    statuses: statuses(source),
    businessKey,
    createdAfter: instant(source, 'created_after'),
    createdBefore: instant(source, 'created_before'),
  };
}
