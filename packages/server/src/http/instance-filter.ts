/**
 * The instance list's query parameters (API.md "Weave": `GET /instances?workflow=&version=&
 * status=&business_key=&created_after=&created_before=`) → the service's filter, each bad value a
 * 400 `invalid_argument` naming its parameter (`$.status`, …).
 */
import { NAME_PATTERN, instances, parseInstant, workflows } from '@weave/sdk/protocol';
import { invalidArgument } from '../errors.js';
import type { InstanceListFilter } from '../weave/instance/list-instances.js';
import { queryInteger } from './query-fields.js';

type Query = Readonly<Record<string, string | undefined>>;

/** One text value; a repeated parameter (an array at run time) is refused. */
function text(query: Query, key: string): string | undefined {
  const value: unknown = query[key];
  if (value === undefined) {
    return undefined;
  }
  if (typeof value !== 'string') {
    throw invalidArgument(key, 'must be given once');
  }
  return value;
}

function isInstanceStatus(value: string): value is instances.InstanceStatus {
  return (instances.INSTANCE_STATUSES as readonly string[]).includes(value);
}

function statuses(query: Query): instances.InstanceStatus[] | undefined {
  const list = text(query, 'status');
  if (list === undefined) {
    return undefined;
  }
  return list.split(',').map((status) => {
    if (!isInstanceStatus(status)) {
      throw invalidArgument(
        'status',
        `must be instance statuses separated by commas (${instances.INSTANCE_STATUSES.join(', ')}); got "${status}"`,
      );
    }
    return status;
  });
}

function instant(query: Query, key: string) {
  const value = text(query, key);
  if (value === undefined) {
    return undefined;
  }
  const micros = parseInstant(value);
  if (micros === undefined) {
    throw invalidArgument(key, 'must be an RFC 3339 instant such as 2026-11-29T20:30:11Z');
  }
  return micros;
}

export function parseInstanceFilter(query: Query): InstanceListFilter {
  const workflow = text(query, 'workflow');
  if (workflow !== undefined && !NAME_PATTERN.test(workflow)) {
    throw invalidArgument('workflow', 'must be a workflow name');
  }
  const version = queryInteger(query, 'version', { min: 1, max: workflows.MAX_VERSION });
  if (version !== undefined && workflow === undefined) {
    throw invalidArgument('version', 'needs workflow (a version number belongs to one workflow)');
  }
  const businessKey = text(query, 'business_key');
  if (businessKey !== undefined && [...businessKey].length > instances.MAX_BUSINESS_KEY) {
    throw invalidArgument(
      'business_key',
      `must be at most ${instances.MAX_BUSINESS_KEY} characters`,
    );
  }
  return {
    workflow,
    version,
    statuses: statuses(query),
    businessKey,
    createdAfter: instant(query, 'created_after'),
    createdBefore: instant(query, 'created_before'),
  };
}
