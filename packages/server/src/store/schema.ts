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
 * Weave terms with no table yet (the runtime's tables come with it, docs/design/runtime.md):
 * instance, step, activation, gate, poll round, wait, signal (workflow signals; the in-process
 * wake-ups are store/wake-ups.ts), business key, correlation key, inbox event, frozen snapshot,
 * pending advance, checkpoint, recovery, control version.
 *
 * Row types of the foundation tables, as Kysely sees them (snake_case, as stored).
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
}
