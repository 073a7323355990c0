/** Credential scopes (issue 2 §4). `admin` grants every other scope in its own namespace. */
export const SCOPES = [
  'admin',
  'tasks:submit',
  'tasks:read',
  'tasks:work',
  'tasks:review',
  'workflows:publish',
  'workflows:start',
  'workflows:read',
  'workflows:signal',
  'workflows:control',
  'results:read',
] as const;

export type Scope = (typeof SCOPES)[number];

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}

/** Names of namespaces, applications, queues, streams and workflows (API.md "Conventions"). */
export const NAME_PATTERN = /^[a-z0-9][a-z0-9_.-]{0,62}$/;
