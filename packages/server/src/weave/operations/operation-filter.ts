/**
 * A bulk operation's filter is the instance list's filter (`InstanceListFilter`, parsed by
 * http/instance-filter.ts), stored as JSON text on the operation row and read back for every
 * batch: `{"workflow", "version", "status": [...], "business_key", "created_after",
 * "created_before"}` with instants as decimal microseconds. Only what was given is written.
 */
import { isJsonArray, isJsonObject, parse, stringify } from '@weave/json';
import type { JsonValue } from '@weave/json';
import { WeaveError } from '../../errors.js';
import type { InstanceListFilter } from '../instance/list-instances.js';
import { INSTANCE_STATUSES, toState } from '../model/states.js';

export function toFilterText(filter: InstanceListFilter): string {
  return stringify({
    ...(filter.workflow === undefined ? {} : { workflow: filter.workflow }),
    ...(filter.version === undefined ? {} : { version: filter.version }),
    ...(filter.statuses === undefined ? {} : { status: [...filter.statuses] }),
    ...(filter.businessKey === undefined ? {} : { business_key: filter.businessKey }),
    ...(filter.createdAfter === undefined ? {} : { created_after: filter.createdAfter.toString() }),
    ...(filter.createdBefore === undefined
      ? {}
      : { created_before: filter.createdBefore.toString() }),
  });
}

function broken(text: string): WeaveError {
  return new WeaveError('internal', `an operation filter is not one this server wrote: ${text}`);
}

export function toFilter(text: string): InstanceListFilter {
  const value = parse(text);
  if (!isJsonObject(value)) {
    throw broken(text);
  }
  const textOf = (key: string): string | undefined => {
    const member: JsonValue | undefined = value.get(key);
    if (member !== undefined && typeof member !== 'string') {
      throw broken(text);
    }
    return member;
  };
  const version = value.get('version');
  const status = value.get('status');
  const after = textOf('created_after');
  const before = textOf('created_before');
  return {
    workflow: textOf('workflow'),
    version: version === undefined ? undefined : Number(stringify(version)),
    statuses:
      status === undefined
        ? undefined
        : (isJsonArray(status) ? status : []).map((s) =>
            toState(
              INSTANCE_STATUSES,
              typeof s === 'string' ? s : '',
              'weave_instance_operations.filter',
            ),
          ),
    businessKey: textOf('business_key'),
    createdAfter: after === undefined ? undefined : BigInt(after),
    createdBefore: before === undefined ? undefined : BigInt(before),
  };
}
