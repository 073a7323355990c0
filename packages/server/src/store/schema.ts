/**
 * Glossary (DESIGN.md §7, seed term → table → code name). Use these names exactly.
 *   命名空间 namespace → namespaces → Namespace, auth/namespaces.ts
 *   应用 application → applications → Application, auth/applications.ts
 *   应用额度 application quota → application_quotas → Application.maxActiveTasks
 *   队列 queue → queues → Queue, pulse/queues.ts
 *   凭据 credential → credentials → Credential, auth/credentials.ts
 *   任务 task → tasks → Task, pulse/task-record.ts
 *   尝试 attempt → task_attempts → Attempt, pulse/task-record.ts
 *   执行许可 permit → task_attempts.permit_hash → pulse/permits.ts
 *   用量 usage → none: counted from tasks.status → pulse/admission.ts
 *   原始状态事件 task event → task_events → pulse/task-change.ts
 *   回执 receipt → receipts; task_attempts.receipt → store/receipts.ts; pulse/settle-task.ts
 *   审计 audit → audit_log → auth/audit.ts
 *   对外结果流 Orbit stream → orbit_streams, orbit_result_events → Stream, orbit/streams.ts
 *   对外订阅 subscription → orbit_subscriptions, orbit_deliveries → Subscription
 *   租约 lease → tasks.lease_until, task_attempts.lease_until → pulse/expire-leases.ts
 *   代次 generation → tasks.generation, task_attempts.generation → pulse/permits.ts
 *   核查 review → tasks.status NEEDS_REVIEW → pulse/review-task.ts
 *   效果不确定 effect uncertain → tasks.effect_uncertain → Task.effectUncertain
 *   结清 settle → none: the result transaction → pulse/settle-task.ts
 *   受理 admission → application_quotas.active_bound (locked), queues capacity → pulse/admission.ts
 *   截止 deadline → tasks.deadline_at → pulse/expire-leases.ts
 *   流程定义/版本 definition/version → weave_definitions, weave_definition_versions → weave/definitions/
 *   原文摘要 source digest → weave_definition_versions.digest → weave/definitions/publish-definition.ts
 *   实例 instance → weave_instances (+ weave_instance_bounds) → Instance, weave/model/rows.ts
 *   步骤 step → weave_steps (+ `$root`) → StepRow, weave/model/rows.ts
 *   激活 activation → weave_activations → Activation, weave/model/rows.ts
 *   门控 gate → weave_gates → Gate, weave/model/rows.ts
 *   轮次 poll round → weave_poll_rounds → PollRound, weave/model/rows.ts
 *   等待 wait → weave_waits → Wait, weave/model/rows.ts
 *   业务键 business key → weave_instances.business_key → Instance.businessKey
 *   关联 correlation key → weave_waits.correlation_key (exact bytes) → Wait.correlationKey
 *   内部结果事件 inbox event → weave_inbox → InboxEvent, weave/model/rows.ts
 *   冻结快照 frozen snapshot → weave_inbox.snapshot → InboxEvent.snapshot
 *   待续记录 pending advance → weave_pending_advances → PendingAdvance, weave/model/rows.ts
 *   检查点 checkpoint → weave_pending_advances.checkpoint → PendingAdvance.checkpoint
 *   控制版本 control version → weave_instances.control_version → Instance.controlVersion
 *   实例历史 history → weave_history → HistoryEvent, weave/model/rows.ts
 *   信号 signal → weave_signals → weave/signals/ (docs/design/signals.md; the in-process
 *     wake-ups are store/wake-ups.ts)
 *   批量操作 bulk operation → weave_instance_operations (+ weave_instance_operation_items) →
 *     weave/operations/ (docs/design/bulk-operations.md)
 *   ID区段 id block → id_blocks → IdBlocks, store/id-blocks.ts (MariaDB only)
 * Weave terms with no table yet (they come with issue 12, docs/design/runtime.md §1.11):
 * recovery.
 *
 * Row types of the tables, as Kysely sees them (snake_case, as stored).
 * Integers arrive as `number | bigint | string` depending on the driver; map them once with
 * `store/values.ts`. Instants are Unix microseconds of the database clock.
 */
import type { Generated } from 'kysely';

type Int = number | bigint | string;
type IdColumn = Generated<Int>;

export interface NamespacesTable {
  id: IdColumn;
  name: string;
  disabled: Generated<Int>;
  created_at: Int;
}

export interface ApplicationsTable {
  id: IdColumn;
  namespace_id: Int;
  name: string;
  disabled: Generated<Int>;
  revision: Generated<Int>;
  created_at: Int;
  updated_at: Int;
}

export interface ApplicationQuotasTable {
  application_id: Int;
  namespace_id: Int;
  max_active_tasks: Int;
  /** Upper bound of the application's active tasks (admission.ts). */
  active_bound: Generated<Int>;
  revision: Generated<Int>;
  updated_at: Int;
}

export interface QueuesTable {
  id: IdColumn;
  namespace_id: Int;
  application_id: Int;
  name: string;
  capacity: Int;
  paused: Generated<Int>;
  revision: Generated<Int>;
  created_at: Int;
  updated_at: Int;
}

export interface CredentialsTable {
  id: IdColumn;
  namespace_id: Int;
  name: string;
  lookup: string;
  secret_hash: Uint8Array;
  scopes: string;
  queue_names: string | null;
  expires_at: Int | null;
  revoked_at: Int | null;
  created_at: Int;
}

export interface AuditLogTable {
  id: IdColumn;
  namespace_id: Int | null;
  at: Int;
  credential_id: Int | null;
  action: string;
  outcome: string;
  code: string | null;
  object_type: string | null;
  object_id: string | null;
  request_id: string | null;
  details: string | null;
}

export interface ReceiptsTable {
  id: IdColumn;
  namespace_id: Int;
  operation: string;
  idempotency_key: string;
  request_digest: string;
  status_code: Int;
  response: string;
  created_at: Int;
}

export interface WeaveDefinitionsTable {
  id: IdColumn;
  namespace_id: Int;
  name: string;
  latest_version: Generated<Int>;
  created_at: Int;
  updated_at: Int;
}

export interface WeaveDefinitionVersionsTable {
  id: IdColumn;
  namespace_id: Int;
  definition_id: Int;
  version: Int;
  source: string;
  digest: string;
  schema_version: Int;
  step_count: Int;
  /** JSON array text of the referenced queue names, sorted. */
  queues: string;
  has_tasks: Int;
  created_by: Int | null;
  created_at: Int;
}

/** The next unreserved id of `tasks` and `task_attempts` (migration 0012; store/id-blocks.ts). */
export interface IdBlocksTable {
  name: string;
  next_id: Int;
}

export interface SchemaMigrationsTable {
  version: Int;
  name: string;
  checksum: string;
  state: string;
  applied_at: Int;
}

/** Pulse tasks (migration 0002; docs/design/pulse.md). */
export interface TasksTable {
  id: IdColumn;
  namespace_id: Int;
  application_id: Int;
  queue_id: Int;
  status: string;
  revision: Generated<Int>;
  input: string;
  result: string | null;
  error_code: string | null;
  error_message: string | null;
  idempotent: Int;
  priority: Int;
  trace_key: string | null;
  resource_key: string | null;
  deadline_at: Int;
  attempt_timeout_us: Int | null;
  retry_max_attempts: Int;
  retry_initial_interval_us: Int;
  retry_backoff_coefficient: string;
  retry_max_interval_us: Int;
  retry_non_retryable_codes: string;
  available_at: Int;
  attempt_count: Generated<Int>;
  charged_attempts: Generated<Int>;
  current_attempt_id: Int | null;
  generation: Generated<Int>;
  lease_owner: string | null;
  lease_until: Int | null;
  cancel_requested: Generated<Int>;
  effect_uncertain: Generated<Int>;
  owner_kind: string | null;
  owner_id: Int | null;
  result_stream_id: Int | null;
  created_at: Int;
  updated_at: Int;
  finished_at: Int | null;
}

export interface TaskAttemptsTable {
  id: IdColumn;
  namespace_id: Int;
  task_id: Int;
  attempt_number: Int;
  generation: Int;
  worker_id: string;
  permit_hash: Uint8Array;
  status: string;
  claimed_at: Int;
  started_at: Int | null;
  lease_until: Int;
  expires_at: Int;
  finished_at: Int | null;
  error_code: string | null;
  completion_digest: string | null;
  receipt: string | null;
}

export interface TaskEventsTable {
  id: IdColumn;
  namespace_id: Int;
  task_id: Int;
  revision: Int;
  type: string;
  status: string;
  attempt_id: Int | null;
  at: Int;
  details: string | null;
}

export interface TaskResourcesTable {
  namespace_id: Int;
  resource_key: string;
  task_id: Int;
  acquired_at: Int;
}

/** Pulse schedules (migration 0003; docs/design/pulse.md "Schedules"). */
export interface SchedulesTable {
  id: IdColumn;
  namespace_id: Int;
  name: string;
  queue_id: Int;
  cron: string;
  timezone: string;
  task_template: string;
  overlap: string;
  catch_up: string;
  paused: Generated<Int>;
  next_slot_at: Int | null;
  retry_at: Int | null;
  last_slot_at: Int | null;
  last_task_id: Int | null;
  last_error_code: string | null;
  revision: Generated<Int>;
  created_at: Int;
  updated_at: Int;
}

/** One row per (schedule, slot): the idempotency identity of a firing. */
export interface ScheduleFiringsTable {
  id: IdColumn;
  namespace_id: Int;
  schedule_id: Int;
  slot_at: Int;
  outcome: string;
  task_id: Int | null;
  error_code: string | null;
  created_at: Int;
}

export interface OrbitStreamsTable {
  id: IdColumn;
  namespace_id: Int;
  name: string;
  application_id: Int;
  is_default: Generated<Int>;
  next_seq: Generated<Int>;
  earliest_seq: Generated<Int>;
  retention_max_age_us: Int | null;
  retention_max_events: Int | null;
  revision: Generated<Int>;
  created_at: Int;
  updated_at: Int;
}

export interface OrbitResultEventsTable {
  stream_id: Int;
  seq: Int;
  namespace_id: Int;
  type: string;
  source_kind: string;
  source_id: Int;
  source_revision: Int;
  at: Int;
  body: string;
}

export interface OrbitSubscriptionsTable {
  id: IdColumn;
  namespace_id: Int;
  stream_id: Int;
  name: string;
  acked_seq: Generated<Int>;
  webhook_url: string | null;
  secret: string | null;
  previous_secret: string | null;
  previous_secret_until: Int | null;
  state: Generated<string>;
  consecutive_failures: Generated<Int>;
  next_attempt_at: Generated<Int>;
  lease_owner: string | null;
  lease_until: Int | null;
  failing_since: Int | null;
  last_error: string | null;
  revision: Generated<Int>;
  created_at: Int;
  updated_at: Int;
}

export interface OrbitDeliveriesTable {
  id: IdColumn;
  namespace_id: Int;
  subscription_id: Int;
  first_seq: Int;
  last_seq: Int;
  outcome: string;
  http_status: Int | null;
  error: string | null;
  duration_us: Int;
  at: Int;
}

/** Weave runtime (migration 0008; docs/design/runtime.md §1). The instance row is the per-instance mutex. */
export interface WeaveInstancesTable {
  id: IdColumn;
  namespace_id: Int;
  definition_id: Int;
  version_id: Int;
  version: Int;
  digest: string;
  application_id: Int;
  result_stream_id: Int | null;
  status: string;
  revision: Int;
  history_seq: Generated<Int>;
  paused: Generated<Int>;
  control_version: Generated<Int>;
  ending: string | null;
  ending_at: Int | null;
  business_key: string | null;
  input: string;
  output: string | null;
  error_code: string | null;
  error_message: string | null;
  error_step_id: string | null;
  deadline_at: Int;
  created_by: Int | null;
  created_at: Int;
  updated_at: Int;
  finished_at: Int | null;
}

/** Upper bound of a namespace's active instances (A4.3), locked by Start only. */
export interface WeaveInstanceBoundsTable {
  namespace_id: Int;
  active_bound: Int;
  updated_at: Int;
}

export interface WeaveGatesTable {
  id: IdColumn;
  namespace_id: Int;
  instance_id: Int;
  state: string;
  control_version: Generated<Int>;
  reason: string | null;
  created_at: Int;
  updated_at: Int;
}

/** One row per static step plus `$root`: the engine's snapshot (docs/design/engine.md). */
export interface WeaveStepsTable {
  id: IdColumn;
  namespace_id: Int;
  instance_id: Int;
  step_id: string;
  kind: string;
  position: Int;
  status: string;
  revision: Generated<Int>;
  output: string | null;
  case_index: Int | null;
  completed_by: string | null;
  cancel_requested: Generated<Int>;
  current_activation_id: Int | null;
  activation_count: Generated<Int>;
  error_code: string | null;
  error_message: string | null;
  started_at: Int | null;
  finished_at: Int | null;
  updated_at: Int;
}

export interface WeaveActivationsTable {
  id: IdColumn;
  namespace_id: Int;
  instance_id: Int;
  step_row_id: Int;
  step_id: string;
  number: Int;
  kind: string;
  status: string;
  task_id: Int | null;
  input: string | null;
  last_task_revision: Generated<Int>;
  poll_interval_us: Int | null;
  poll_max_rounds: Int | null;
  poll_used_rounds: Int | null;
  poll_deadline_at: Int | null;
  poll_task_timeout_us: Int | null;
  current_round_id: Int | null;
  created_at: Int;
  finished_at: Int | null;
}

export interface WeaveWaitsTable {
  id: IdColumn;
  namespace_id: Int;
  instance_id: Int;
  activation_id: Int;
  step_row_id: Int;
  purpose: string;
  signal_name: string | null;
  payload_version: Int | null;
  /** Exact bytes (VARBINARY / BLOB). */
  correlation_key: Uint8Array | null;
  due_at: Int;
  state: string;
  created_at: Int;
  closed_at: Int | null;
}

export interface WeavePollRoundsTable {
  id: IdColumn;
  namespace_id: Int;
  instance_id: Int;
  activation_id: Int;
  number: Int;
  state: string;
  due_at: Int;
  task_id: Int | null;
  classification: string | null;
  created_at: Int;
  finished_at: Int | null;
}

/** Durable task results for the consumer (E2.1–E2.7). */
export interface WeaveInboxTable {
  id: IdColumn;
  namespace_id: Int;
  instance_id: Int;
  event_id: string;
  type: string;
  source_task_id: Int | null;
  source_activation_id: Int | null;
  source_revision: Int | null;
  source_round_id: Int | null;
  source_step_revision: Int | null;
  /** The frozen `schema_version = 1` snapshot text. */
  snapshot: string | null;
  state: string;
  outcome: string | null;
  available_at: Int;
  lease_owner: string | null;
  lease_until: Int | null;
  generation: Generated<Int>;
  failures: Generated<Int>;
  error_code: string | null;
  created_at: Int;
  processed_at: Int | null;
}

/** At most one per instance: the bounded-advance checkpoint (A3.2, E3.11). */
export interface WeavePendingAdvancesTable {
  id: IdColumn;
  namespace_id: Int;
  instance_id: Int;
  root_step_row_id: Int;
  root_step_revision: Int;
  checkpoint: string;
  state: string;
  available_at: Int;
  lease_owner: string | null;
  lease_until: Int | null;
  generation: Generated<Int>;
  created_at: Int;
}

export interface WeaveHistoryTable {
  id: IdColumn;
  namespace_id: Int;
  instance_id: Int;
  seq: Int;
  instance_revision: Int;
  type: string;
  step_id: string | null;
  activation_id: Int | null;
  task_id: Int | null;
  round_id: Int | null;
  inbox_id: Int | null;
  at: Int;
  details: string | null;
}

export interface WeaveSignalsTable {
  id: IdColumn;
  namespace_id: Int;
  name: string;
  /** Exact bytes (VARBINARY / BLOB); NULL for a direct signal. */
  correlation_key: Uint8Array | null;
  instance_id: Int | null;
  payload: string;
  payload_version: Int;
  state: string;
  matched_count: Int;
  admitted_at: Int;
  expires_at: Int | null;
  consumed_wait_id: Int | null;
  created_by: Int | null;
  created_at: Int;
  updated_at: Int;
}

export interface WeaveInstanceOperationsTable {
  id: IdColumn;
  namespace_id: Int;
  action: string;
  /** The instance-list filter as JSON text (weave/operations/operation-filter.ts). */
  filter: string;
  reason: string | null;
  status: string;
  created_before: Int;
  /** `<created_at>.<id>` of the last instance processed (newest first). */
  cursor_key: string | null;
  matched_count: Generated<Int>;
  done_count: Generated<Int>;
  failed_count: Generated<Int>;
  skipped_count: Generated<Int>;
  lease_owner: string | null;
  lease_until: Int | null;
  generation: Generated<Int>;
  created_by: Int;
  error_code: string | null;
  error_message: string | null;
  created_at: Int;
  updated_at: Int;
  finished_at: Int | null;
}

export interface WeaveInstanceOperationItemsTable {
  id: IdColumn;
  namespace_id: Int;
  operation_id: Int;
  instance_id: Int;
  outcome: string;
  error_code: string | null;
  error_message: string | null;
  created_at: Int;
}

export interface Schema {
  namespaces: NamespacesTable;
  applications: ApplicationsTable;
  application_quotas: ApplicationQuotasTable;
  queues: QueuesTable;
  credentials: CredentialsTable;
  audit_log: AuditLogTable;
  receipts: ReceiptsTable;
  schema_migrations: SchemaMigrationsTable;
  tasks: TasksTable;
  task_attempts: TaskAttemptsTable;
  task_events: TaskEventsTable;
  task_resources: TaskResourcesTable;
  schedules: SchedulesTable;
  schedule_firings: ScheduleFiringsTable;
  orbit_streams: OrbitStreamsTable;
  orbit_result_events: OrbitResultEventsTable;
  orbit_subscriptions: OrbitSubscriptionsTable;
  orbit_deliveries: OrbitDeliveriesTable;
  weave_definitions: WeaveDefinitionsTable;
  weave_definition_versions: WeaveDefinitionVersionsTable;
  weave_instances: WeaveInstancesTable;
  weave_instance_bounds: WeaveInstanceBoundsTable;
  weave_gates: WeaveGatesTable;
  weave_steps: WeaveStepsTable;
  weave_activations: WeaveActivationsTable;
  weave_waits: WeaveWaitsTable;
  weave_poll_rounds: WeavePollRoundsTable;
  weave_inbox: WeaveInboxTable;
  weave_pending_advances: WeavePendingAdvancesTable;
  weave_history: WeaveHistoryTable;
  weave_signals: WeaveSignalsTable;
  weave_instance_operations: WeaveInstanceOperationsTable;
  weave_instance_operation_items: WeaveInstanceOperationItemsTable;
  id_blocks: IdBlocksTable;
}
