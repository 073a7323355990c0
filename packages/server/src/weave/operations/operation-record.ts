/**
 * A bulk instance operation as the layers above see it (docs/design/bulk-operations.md), mapped
 * once from its `weave_instance_operations` row.
 */
import type { Selectable } from 'kysely';
import { operations } from '@weave/sdk/protocol';
import type { WeaveInstanceOperationsTable } from '../../store/schema.js';
import type { Micros } from '../../store/values.js';
import { toId, toInt, toMicros, toMicrosOrNull } from '../../store/values.js';
import type { InstanceListFilter } from '../instance/list-instances.js';
import { toState } from '../model/states.js';
import { toFilter } from './operation-filter.js';

export const { OPERATION_ACTIONS, OPERATION_STATUSES } = operations;
export type OperationAction = operations.OperationAction;
export type OperationStatus = operations.OperationStatus;

/** What one instance's transaction recorded in its item row. */
export const ITEM_OUTCOMES = ['CHANGED', 'UNCHANGED', 'SKIPPED', 'FAILED'] as const;
export type ItemOutcome = (typeof ITEM_OUTCOMES)[number];

export interface InstanceOperation {
  readonly id: string;
  readonly namespaceId: string;
  readonly action: OperationAction;
  readonly status: OperationStatus;
  readonly filter: InstanceListFilter;
  readonly reason: string | null;
  /** The walk's upper bound (exclusive): min(filter.createdBefore, creation DB time). */
  readonly bound: Micros;
  /** `<created_at>.<id>` of the last instance processed; null before the first. */
  readonly cursorKey: string | null;
  readonly matched: number;
  readonly done: number;
  readonly failed: number;
  readonly skipped: number;
  readonly leaseOwner: string | null;
  readonly leaseUntil: Micros | null;
  readonly generation: bigint;
  readonly createdBy: string;
  readonly error: { readonly code: string; readonly message: string } | null;
  readonly createdAt: Micros;
  readonly updatedAt: Micros;
  readonly finishedAt: Micros | null;
}

export type OperationRow = Selectable<WeaveInstanceOperationsTable>;

export function toOperation(row: OperationRow): InstanceOperation {
  const table = 'weave_instance_operations';
  return {
    id: toId(row.id),
    namespaceId: toId(row.namespace_id),
    action: toState(OPERATION_ACTIONS, row.action, `${table}.action`),
    status: toState(OPERATION_STATUSES, row.status, `${table}.status`),
    filter: toFilter(row.filter),
    reason: row.reason,
    bound: toMicros(row.created_before),
    cursorKey: row.cursor_key,
    matched: toInt(row.matched_count),
    done: toInt(row.done_count),
    failed: toInt(row.failed_count),
    skipped: toInt(row.skipped_count),
    leaseOwner: row.lease_owner,
    leaseUntil: toMicrosOrNull(row.lease_until),
    generation: BigInt(row.generation),
    createdBy: toId(row.created_by),
    error:
      row.error_code === null ? null : { code: row.error_code, message: row.error_message ?? '' },
    createdAt: toMicros(row.created_at),
    updatedAt: toMicros(row.updated_at),
    finishedAt: toMicrosOrNull(row.finished_at),
  };
}
