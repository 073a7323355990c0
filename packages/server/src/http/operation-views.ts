/** Bulk operations on the wire (`operations.Operation`): counters, bound, no cursor. */
import { formatInstant } from '@weave/sdk/protocol';
import type { operations } from '@weave/sdk/protocol';
import type { InstanceOperation } from '../weave/operations/operation-record.js';

export function operationView(op: InstanceOperation): operations.Operation {
  const f = op.filter;
  return {
    id: op.id,
    action: op.action,
    status: op.status,
    filter: {
      ...(f.workflow === undefined ? {} : { workflow: f.workflow }),
      ...(f.version === undefined ? {} : { version: f.version }),
      ...(f.statuses === undefined ? {} : { status: [...f.statuses] }),
      ...(f.businessKey === undefined ? {} : { business_key: f.businessKey }),
      ...(f.createdAfter === undefined ? {} : { created_after: formatInstant(f.createdAfter) }),
      ...(f.createdBefore === undefined ? {} : { created_before: formatInstant(f.createdBefore) }),
    },
    ...(op.reason === null ? {} : { reason: op.reason }),
    bound: formatInstant(op.bound),
    matched: op.matched,
    done: op.done,
    failed: op.failed,
    skipped: op.skipped,
    ...(op.error === null ? {} : { error: op.error }),
    created_at: formatInstant(op.createdAt),
    updated_at: formatInstant(op.updatedAt),
    ...(op.finishedAt === null ? {} : { finished_at: formatInstant(op.finishedAt) }),
  };
}
