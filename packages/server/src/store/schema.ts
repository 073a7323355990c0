/**
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

export interface SchemaMigrationsTable {
  version: Int;
  name: string;
  checksum: string;
  state: string;
  applied_at: Int;
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
}
