/**
 * Bulk instance operations (API.md "Weave" Bulk, docs/design/bulk-operations.md):
 * `POST /instance-operations` creates the durable operation in one transaction (202; an
 * `Idempotency-Key` replays the first answer — the contract's `operation`), the server nodes'
 * runners do the work; `GET /instance-operations[/{id}]` reads its progress. Scope
 * `workflows:control`. The filter is the instance list's (http/instance-filter.ts), as a body
 * member: each bad value a 400 naming `$.filter.<member>`.
 */
import type { JsonObject, JsonValue } from '@weave/json';
import { isJsonNumber } from '@weave/json';
import { operations } from '@weave/sdk/protocol';
import { invalidArgument } from '../../errors.js';
import type { InstanceListFilter } from '../../weave/instance/list-instances.js';
import { createOperation } from '../../weave/operations/create-operation.js';
import type { OperationAction } from '../../weave/operations/operation-record.js';
import { listOperations, readOperation } from '../../weave/operations/read-operations.js';
import { auditChange } from '../audit-change.js';
import { expectObject, readString, rejectUnknown, requireString } from '../fields.js';
import { parseInstanceFilter } from '../instance-filter.js';
import { operationView } from '../operation-views.js';
import { pageBody, readPage } from '../paging.js';
import { route } from '../route.js';

const FILTER_MEMBERS = [
  'workflow',
  'version',
  'status',
  'business_key',
  'created_after',
  'created_before',
] as const;

function isAction(value: string): value is OperationAction {
  return (operations.OPERATION_ACTIONS as readonly string[]).includes(value);
}

/** A body member as the query-string text the list filter reads (`version` 2 → "2"). */
function asQueryText(filter: JsonObject, key: string): string | undefined {
  const value = filter.get(key);
  const path = `$.filter.${key}`;
  if (value === undefined || typeof value === 'string') {
    return value;
  }
  if (key === 'version' && isJsonNumber(value)) {
    return value.text;
  }
  if (key === 'status' && Array.isArray(value)) {
    const items = value as readonly JsonValue[];
    if (items.length > 0 && items.every((s) => typeof s === 'string')) {
      return items.join(',');
    }
    throw invalidArgument(path, 'must be a non-empty array of instance statuses');
  }
  throw invalidArgument(
    path,
    key === 'version'
      ? 'must be an integer'
      : key === 'status'
        ? 'must be statuses'
        : 'must be a string',
  );
}

function parseFilter(value: JsonValue | undefined): InstanceListFilter {
  if (value === undefined) {
    throw invalidArgument('$.filter', 'is required (`{}` matches every instance)');
  }
  const filter = expectObject(value, '$.filter');
  rejectUnknown(filter, FILTER_MEMBERS, '$.filter');
  const query = Object.fromEntries(FILTER_MEMBERS.map((key) => [key, asQueryText(filter, key)]));
  return parseInstanceFilter(query, '$.filter');
}

function parseCreate(body: JsonValue | undefined) {
  const obj = expectObject(body);
  rejectUnknown(obj, ['action', 'filter', 'reason']);
  const action = requireString(obj, 'action');
  if (!isAction(action)) {
    throw invalidArgument('$.action', `must be one of ${operations.OPERATION_ACTIONS.join(', ')}`);
  }
  return {
    action,
    filter: parseFilter(obj.get('filter')),
    reason: readString(obj, 'reason', { maxLength: operations.MAX_OPERATION_REASON }),
  };
}

export const instanceOperationRoutes = [
  route(operations.createOperation, {
    parse: parseCreate,
    async handle(ctx, request) {
      const id = await createOperation(ctx.tx, { ...request, principal: ctx.principal });
      await auditChange(ctx, 'instance_operation.create', { type: 'instance_operation', id });
      const operation = await readOperation(ctx.tx, ctx.principal.namespaceId, id);
      return { body: { operation: operationView(operation) } };
    },
  }),
  route(operations.getOperation, {
    async handle(ctx) {
      const id = ctx.params.operation ?? '';
      const operation = await readOperation(ctx.tx, ctx.principal.namespaceId, id);
      return { body: { operation: operationView(operation) } };
    },
  }),
  route(operations.listOperations, {
    async handle(ctx) {
      const page = readPage(ctx.query);
      const read = await listOperations(ctx.tx, ctx.principal.namespaceId, page);
      return { body: pageBody(read.items.map(operationView), read.nextAfterId) };
    },
  }),
];
