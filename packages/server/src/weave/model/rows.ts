/**
 * Glossary of the Weave runtime model (DESIGN.md §7; tables: docs/design/runtime.md §1):
 *   实例 instance → weave_instances → Instance (the row is the per-instance mutex)
 *   门控 gate → weave_gates → Gate (OPEN lets new work start, E4.4)
 *   步骤 step → weave_steps, one per static step plus `$root` → StepRow ↔ the engine's StepState
 *     (snapshot-rows.ts)
 *   激活 activation → weave_activations → Activation (owns its tasks: tasks.owner_id; a TASK's
 *     is its task_id)
 *   等待 wait → weave_waits → Wait (TIMER, SIGNAL, POLL final signal or deadline)
 *   轮次 poll round → weave_poll_rounds → PollRound (names its POLL query task, owned by the
 *     activation)
 *   内部结果事件 inbox event → weave_inbox → InboxEvent; its 冻结快照 frozen snapshot is the
 *     `snapshot` text
 *   待续记录 pending advance → weave_pending_advances → PendingAdvance, with its 检查点 checkpoint
 *   实例历史 history → weave_history → HistoryEvent
 *
 * Rows are mapped once, here (STYLE.md §3): ids become decimal strings, instants and durations
 * bigint microseconds, revisions bigint, flags booleans, states their unions; payload columns stay
 * the exact text `@weave/json` wrote (parsed only where a value is needed: snapshot-rows.ts).
 * Pure: no I/O, no clock.
 */
import type { Selectable } from 'kysely';
import type { Schema } from '../../store/schema.js';
import type { Micros } from '../../store/values.js';
import { toBool, toId, toIdOrNull, toInt, toMicros, toMicrosOrNull } from '../../store/values.js';
import type { PollCompletion, SnapshotStepKind, StepStatus } from '@weave/engine';
import { POLL_COMPLETIONS, STEP_KINDS, STEP_STATUSES } from '@weave/engine';
import type {
  ActivationStatus,
  GateState,
  InboxEventType,
  InboxOutcome,
  InboxState,
  InstanceEnding,
  InstanceStatus,
  PendingAdvanceState,
  PollRoundState,
  WaitPurpose,
  WaitState,
} from './states.js';
import {
  ACTIVATION_STATUSES,
  GATE_STATES,
  INBOX_EVENT_TYPES,
  INBOX_OUTCOMES,
  INBOX_STATES,
  INSTANCE_ENDINGS,
  INSTANCE_STATUSES,
  PENDING_ADVANCE_STATES,
  POLL_ROUND_STATES,
  WAIT_PURPOSES,
  WAIT_STATES,
  toState,
} from './states.js';

/** A row of a table as Kysely selects it (snake_case driver values). */
export type WeaveRow<T extends keyof Schema> = Selectable<Schema[T]>;

const STEP_ROW_KINDS: readonly SnapshotStepKind[] = [...STEP_KINDS, 'ROOT'];

export interface Instance {
  readonly id: string;
  readonly namespaceId: string;
  readonly definitionId: string;
  readonly versionId: string;
  readonly version: number;
  readonly digest: string;
  readonly applicationId: string;
  /** null = the owning application's default stream. */
  readonly resultStreamId: string | null;
  readonly status: InstanceStatus;
  readonly revision: bigint;
  readonly historySeq: bigint;
  readonly paused: boolean;
  readonly controlVersion: bigint;
  readonly ending: InstanceEnding | null;
  readonly endingAt: Micros | null;
  readonly businessKey: string | null;
  /** JSON text as validated at Start. */
  readonly input: string;
  /** JSON text, when SUCCEEDED. */
  readonly output: string | null;
  readonly errorCode: string | null;
  readonly errorMessage: string | null;
  readonly errorStepId: string | null;
  readonly deadlineAt: Micros;
  readonly createdBy: string | null;
  readonly createdAt: Micros;
  readonly updatedAt: Micros;
  readonly finishedAt: Micros | null;
}

export function toInstance(row: WeaveRow<'weave_instances'>): Instance {
  return {
    id: toId(row.id),
    namespaceId: toId(row.namespace_id),
    definitionId: toId(row.definition_id),
    versionId: toId(row.version_id),
    version: toInt(row.version),
    digest: row.digest,
    applicationId: toId(row.application_id),
    resultStreamId: toIdOrNull(row.result_stream_id),
    status: toState(INSTANCE_STATUSES, row.status, 'weave_instances.status'),
    revision: BigInt(row.revision),
    historySeq: BigInt(row.history_seq),
    paused: toBool(row.paused),
    controlVersion: BigInt(row.control_version),
    ending:
      row.ending === null ? null : toState(INSTANCE_ENDINGS, row.ending, 'weave_instances.ending'),
    endingAt: toMicrosOrNull(row.ending_at),
    businessKey: row.business_key,
    input: row.input,
    output: row.output,
    errorCode: row.error_code,
    errorMessage: row.error_message,
    errorStepId: row.error_step_id,
    deadlineAt: toMicros(row.deadline_at),
    createdBy: toIdOrNull(row.created_by),
    createdAt: toMicros(row.created_at),
    updatedAt: toMicros(row.updated_at),
    finishedAt: toMicrosOrNull(row.finished_at),
  };
}

export interface Gate {
  readonly id: string;
  readonly instanceId: string;
  readonly state: GateState;
  readonly controlVersion: bigint;
  readonly reason: string | null;
  readonly updatedAt: Micros;
}

export function toGate(row: WeaveRow<'weave_gates'>): Gate {
  return {
    id: toId(row.id),
    instanceId: toId(row.instance_id),
    state: toState(GATE_STATES, row.state, 'weave_gates.state'),
    controlVersion: BigInt(row.control_version),
    reason: row.reason,
    updatedAt: toMicros(row.updated_at),
  };
}

/** A `weave_steps` row; `$root` is one too (kind ROOT, position 0). */
export interface StepRow {
  readonly id: string;
  readonly instanceId: string;
  readonly stepId: string;
  readonly kind: SnapshotStepKind;
  /** Document order; `$root` = 0. */
  readonly position: number;
  readonly status: StepStatus;
  readonly revision: bigint;
  /** JSON text, exactly when SUCCEEDED. */
  readonly output: string | null;
  readonly caseIndex: number | null;
  readonly completedBy: PollCompletion | null;
  readonly cancelRequested: boolean;
  readonly currentActivationId: string | null;
  readonly activationCount: number;
  readonly errorCode: string | null;
  readonly errorMessage: string | null;
  readonly startedAt: Micros | null;
  readonly finishedAt: Micros | null;
  readonly updatedAt: Micros;
}

export function toStepRow(row: WeaveRow<'weave_steps'>): StepRow {
  return {
    id: toId(row.id),
    instanceId: toId(row.instance_id),
    stepId: row.step_id,
    kind: toState(STEP_ROW_KINDS, row.kind, 'weave_steps.kind'),
    position: toInt(row.position),
    status: toState(STEP_STATUSES, row.status, 'weave_steps.status'),
    revision: BigInt(row.revision),
    output: row.output,
    caseIndex: row.case_index === null ? null : toInt(row.case_index),
    completedBy:
      row.completed_by === null
        ? null
        : toState(POLL_COMPLETIONS, row.completed_by, 'weave_steps.completed_by'),
    cancelRequested: toBool(row.cancel_requested),
    currentActivationId: toIdOrNull(row.current_activation_id),
    activationCount: toInt(row.activation_count),
    errorCode: row.error_code,
    errorMessage: row.error_message,
    startedAt: toMicrosOrNull(row.started_at),
    finishedAt: toMicrosOrNull(row.finished_at),
    updatedAt: toMicros(row.updated_at),
  };
}

/** POLL state of an activation (A2.6, E4.5): rounds are counted here, never by attempts. */
export interface PollState {
  readonly intervalUs: Micros;
  readonly maxRounds: number;
  readonly usedRounds: number;
  readonly deadlineAt: Micros;
  readonly taskTimeoutUs: Micros | null;
  readonly currentRoundId: string | null;
}

export interface Activation {
  readonly id: string;
  readonly instanceId: string;
  readonly stepRowId: string;
  readonly stepId: string;
  readonly number: number;
  readonly kind: SnapshotStepKind;
  readonly status: ActivationStatus;
  /** TASK only (A2.7). */
  readonly taskId: string | null;
  /** TASK/POLL resolved input, JSON text. */
  readonly input: string | null;
  readonly lastTaskRevision: bigint;
  /** POLL only. */
  readonly poll: PollState | null;
  readonly createdAt: Micros;
  readonly finishedAt: Micros | null;
}

export function toActivation(row: WeaveRow<'weave_activations'>): Activation {
  return {
    id: toId(row.id),
    instanceId: toId(row.instance_id),
    stepRowId: toId(row.step_row_id),
    stepId: row.step_id,
    number: toInt(row.number),
    kind: toState(STEP_ROW_KINDS, row.kind, 'weave_activations.kind'),
    status: toState(ACTIVATION_STATUSES, row.status, 'weave_activations.status'),
    taskId: toIdOrNull(row.task_id),
    input: row.input,
    lastTaskRevision: BigInt(row.last_task_revision),
    poll: toPollState(row),
    createdAt: toMicros(row.created_at),
    finishedAt: toMicrosOrNull(row.finished_at),
  };
}

function toPollState(row: WeaveRow<'weave_activations'>): PollState | null {
  const { poll_interval_us, poll_max_rounds, poll_used_rounds, poll_deadline_at } = row;
  if (row.kind !== 'POLL') {
    return null;
  }
  if (
    poll_interval_us === null ||
    poll_max_rounds === null ||
    poll_used_rounds === null ||
    poll_deadline_at === null
  ) {
    throw new RangeError(`weave_activations ${toId(row.id)}: a POLL activation without its state`);
  }
  return {
    intervalUs: toMicros(poll_interval_us),
    maxRounds: toInt(poll_max_rounds),
    usedRounds: toInt(poll_used_rounds),
    deadlineAt: toMicros(poll_deadline_at),
    taskTimeoutUs: toMicrosOrNull(row.poll_task_timeout_us),
    currentRoundId: toIdOrNull(row.current_round_id),
  };
}

export interface Wait {
  readonly id: string;
  readonly instanceId: string;
  readonly activationId: string;
  readonly stepRowId: string;
  readonly purpose: WaitPurpose;
  /** NULL for TIMER / POLL_DEADLINE; a SIGNAL/POLL_SIGNAL without one is never matched (A4.6). */
  readonly signalName: string | null;
  readonly payloadVersion: number | null;
  /** Exact bytes (A4.4). */
  readonly correlationKey: Uint8Array | null;
  readonly dueAt: Micros;
  readonly state: WaitState;
  readonly createdAt: Micros;
  readonly closedAt: Micros | null;
}

export function toWait(row: WeaveRow<'weave_waits'>): Wait {
  return {
    id: toId(row.id),
    instanceId: toId(row.instance_id),
    activationId: toId(row.activation_id),
    stepRowId: toId(row.step_row_id),
    purpose: toState(WAIT_PURPOSES, row.purpose, 'weave_waits.purpose'),
    signalName: row.signal_name,
    payloadVersion: row.payload_version === null ? null : toInt(row.payload_version),
    correlationKey: row.correlation_key === null ? null : Uint8Array.from(row.correlation_key),
    dueAt: toMicros(row.due_at),
    state: toState(WAIT_STATES, row.state, 'weave_waits.state'),
    createdAt: toMicros(row.created_at),
    closedAt: toMicrosOrNull(row.closed_at),
  };
}

export interface PollRound {
  readonly id: string;
  readonly instanceId: string;
  readonly activationId: string;
  readonly number: number;
  readonly state: PollRoundState;
  readonly dueAt: Micros;
  readonly taskId: string | null;
  readonly classification: string | null;
  readonly createdAt: Micros;
  readonly finishedAt: Micros | null;
}

export function toPollRound(row: WeaveRow<'weave_poll_rounds'>): PollRound {
  return {
    id: toId(row.id),
    instanceId: toId(row.instance_id),
    activationId: toId(row.activation_id),
    number: toInt(row.number),
    state: toState(POLL_ROUND_STATES, row.state, 'weave_poll_rounds.state'),
    dueAt: toMicros(row.due_at),
    taskId: toIdOrNull(row.task_id),
    classification: row.classification,
    createdAt: toMicros(row.created_at),
    finishedAt: toMicrosOrNull(row.finished_at),
  };
}

/**
 * A `weave_inbox` row. The source fields stay nullable here: a row missing one is never executed
 * but QUARANTINED (E2.4), and only the consumer's checks may decide that.
 */
export interface InboxEvent {
  /** 内部结果事件ID */
  readonly id: string;
  /** 所属命名空间ID（由本行固定） */
  readonly namespaceId: string;
  /** 目标流程实例ID（由本行固定） */
  readonly instanceId: string;
  /** 事件标识 task.<任务ID>.<任务版本>；命名空间内唯一 */
  readonly eventId: string;
  /**
   * 事件类型，按存储原样保留: an unknown type is the consumer's SNAPSHOT_INVALID, not a mapping
   * error.
   */
  readonly type: string;
  /** 已知的事件类型（task.succeeded/failed/cancelled/needs_review），未知为 null */
  readonly knownType: InboxEventType | null;
  /** 来源任务ID（E2.1） */
  readonly sourceTaskId: string | null;
  /** 来源激活ID：事件发生时的流程激活（任务的 owner_id） */
  readonly sourceActivationId: string | null;
  /** 来源任务的状态版本，大于0 */
  readonly sourceRevision: bigint | null;
  /** 归属检查找到的 POLL 轮次ID */
  readonly sourceRoundId: string | null;
  /** 生产方读到的步骤版本（仅供追踪） */
  readonly sourceStepRevision: bigint | null;
  /** 冻结的结果快照JSON文本（schema_version = 1），不解析、原样保留 */
  readonly snapshot: string | null;
  /** 处理状态：PENDING/PROCESSED/QUARANTINED */
  readonly state: InboxState;
  /** PROCESSED 时的结论：APPLIED/STALE */
  readonly outcome: InboxOutcome | null;
  /** 扫描最早可领取时间（Unix微秒） */
  readonly availableAt: Micros;
  /** 租约持有者（节点ID） */
  readonly leaseOwner: string | null;
  /** 租约到期时间（Unix微秒） */
  readonly leaseUntil: Micros | null;
  /** 代次：每次移交租约加一；隔离时保留 */
  readonly generation: bigint;
  /** 消费失败次数 */
  readonly failures: number;
  /** 隔离原因或最近一次消费失败的错误码 */
  readonly errorCode: string | null;
  /** 写入时间（Unix微秒） */
  readonly createdAt: Micros;
  /** 消费或隔离的时间（Unix微秒） */
  readonly processedAt: Micros | null;
}

export function toInboxEvent(row: WeaveRow<'weave_inbox'>): InboxEvent {
  const known = (INBOX_EVENT_TYPES as readonly string[]).includes(row.type);
  return {
    id: toId(row.id),
    namespaceId: toId(row.namespace_id),
    instanceId: toId(row.instance_id),
    eventId: row.event_id,
    type: row.type,
    knownType: known ? (row.type as InboxEventType) : null,
    sourceTaskId: toIdOrNull(row.source_task_id),
    sourceActivationId: toIdOrNull(row.source_activation_id),
    sourceRevision: row.source_revision === null ? null : BigInt(row.source_revision),
    sourceRoundId: toIdOrNull(row.source_round_id),
    sourceStepRevision: row.source_step_revision === null ? null : BigInt(row.source_step_revision),
    snapshot: row.snapshot,
    state: toState(INBOX_STATES, row.state, 'weave_inbox.state'),
    outcome:
      row.outcome === null ? null : toState(INBOX_OUTCOMES, row.outcome, 'weave_inbox.outcome'),
    availableAt: toMicros(row.available_at),
    leaseOwner: row.lease_owner,
    leaseUntil: toMicrosOrNull(row.lease_until),
    generation: BigInt(row.generation),
    failures: toInt(row.failures),
    errorCode: row.error_code,
    createdAt: toMicros(row.created_at),
    processedAt: toMicrosOrNull(row.processed_at),
  };
}

export interface PendingAdvance {
  readonly id: string;
  readonly instanceId: string;
  readonly rootStepRowId: string;
  readonly rootStepRevision: bigint;
  /** `{"schema_version":1,…}` text; it holds no snapshot (runtime.md §1.9). */
  readonly checkpoint: string;
  readonly state: PendingAdvanceState;
  readonly availableAt: Micros;
  readonly leaseOwner: string | null;
  readonly leaseUntil: Micros | null;
  readonly generation: bigint;
  readonly createdAt: Micros;
}

export function toPendingAdvance(row: WeaveRow<'weave_pending_advances'>): PendingAdvance {
  return {
    id: toId(row.id),
    instanceId: toId(row.instance_id),
    rootStepRowId: toId(row.root_step_row_id),
    rootStepRevision: BigInt(row.root_step_revision),
    checkpoint: row.checkpoint,
    state: toState(PENDING_ADVANCE_STATES, row.state, 'weave_pending_advances.state'),
    availableAt: toMicros(row.available_at),
    leaseOwner: row.lease_owner,
    leaseUntil: toMicrosOrNull(row.lease_until),
    generation: BigInt(row.generation),
    createdAt: toMicros(row.created_at),
  };
}

export interface HistoryEvent {
  readonly id: string;
  readonly instanceId: string;
  readonly seq: bigint;
  readonly instanceRevision: bigint;
  readonly type: string;
  readonly stepId: string | null;
  readonly activationId: string | null;
  readonly taskId: string | null;
  readonly roundId: string | null;
  readonly inboxId: string | null;
  readonly at: Micros;
  /** Small JSON text (instance.* events: the output or error, exact). */
  readonly details: string | null;
}

export function toHistoryEvent(row: WeaveRow<'weave_history'>): HistoryEvent {
  return {
    id: toId(row.id),
    instanceId: toId(row.instance_id),
    seq: BigInt(row.seq),
    instanceRevision: BigInt(row.instance_revision),
    type: row.type,
    stepId: row.step_id,
    activationId: toIdOrNull(row.activation_id),
    taskId: toIdOrNull(row.task_id),
    roundId: toIdOrNull(row.round_id),
    inboxId: toIdOrNull(row.inbox_id),
    at: toMicros(row.at),
    details: row.details,
  };
}
