/** Domain objects → wire JSON (snake_case, decimal-string ids, RFC 3339 instants). */
import { formatInstant } from '@weave/sdk/protocol';
import type { Micros, admin } from '@weave/sdk/protocol';
import type { Application } from '../auth/applications.js';
import type { Credential } from '../auth/credentials.js';
import type { Queue } from '../pulse/queues.js';

function instantOrNull(micros: Micros | null): string | null {
  return micros === null ? null : formatInstant(micros);
}

export function applicationView(app: Application): admin.Application {
  return {
    name: app.name,
    id: app.id,
    disabled: app.disabled,
    revision: app.revision,
    quota: { max_active_tasks: app.maxActiveTasks },
    created_at: formatInstant(app.createdAt),
    updated_at: formatInstant(app.updatedAt),
  };
}

export function queueView(queue: Queue): admin.Queue {
  return {
    name: queue.name,
    id: queue.id,
    application: queue.application,
    capacity: queue.capacity,
    paused: queue.paused,
    revision: queue.revision,
    created_at: formatInstant(queue.createdAt),
    updated_at: formatInstant(queue.updatedAt),
  };
}

export function credentialView(credential: Credential): admin.Credential {
  return {
    id: credential.id,
    name: credential.name,
    scopes: credential.scopes,
    queues: credential.queues,
    expires_at: instantOrNull(credential.expiresAt),
    revoked_at: instantOrNull(credential.revokedAt),
    created_at: formatInstant(credential.createdAt),
  };
}
