/**
 * Workflow definitions (API.md "Weave"): publish an immutable version (source text + sha256
 * digest), list workflows, read a workflow, its versions and one version's source. Publishing
 * takes `workflows:publish`; reading takes `workflows:read` or `workflows:publish`.
 */
import { Id, Instant, Name, PageQuery, Payload, page } from './common.js';
import { defineRoute } from './contract.js';
import type { Infer } from './schema.js';
import { array, boolean, integer, named, object, string } from './schema.js';

export const DIGEST_PATTERN = /^[0-9a-f]{64}$/;
/** Versions are numbered 1, 2, 3 … per workflow. */
export const MAX_VERSION = 2_147_483_647;

const Digest = string({
  pattern: DIGEST_PATTERN,
  description: 'sha256 (hex) of the source text as stored',
  examples: ['9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08'],
});
const Version = integer({ minimum: 1, maximum: MAX_VERSION, examples: [1] });

export const Workflow = named(
  'Workflow',
  object({
    name: Name,
    id: Id,
    latest_version: Version,
    created_at: Instant,
    updated_at: Instant,
  }),
);
export type Workflow = Infer<typeof Workflow>;

const versionMembers = {
  workflow: Name,
  version: Version,
  digest: Digest,
  schema_version: integer({ minimum: 1 }),
  step_count: integer({ minimum: 0, maximum: 128, description: 'static nodes, without $root' }),
  queues: array(Name, { description: 'the queues its TASK and POLL steps use, sorted' }),
  has_tasks: boolean({ description: 'whether a Start also needs tasks:submit' }),
  created_at: Instant,
} as const;

/** A version without its source (lists, publish answers). */
export const WorkflowVersionSummary = named('WorkflowVersionSummary', object(versionMembers));
export type WorkflowVersionSummary = Infer<typeof WorkflowVersionSummary>;

/** A version with its source exactly as stored (number text, key order). */
export const WorkflowVersion = named(
  'WorkflowVersion',
  object({ ...versionMembers, definition: Payload }),
);
export type WorkflowVersion = Infer<typeof WorkflowVersion>;

export const PublishRequest = named(
  'PublishRequest',
  object({
    definition: Payload,
  }),
);

const READ_SCOPES = ['workflows:read', 'workflows:publish'] as const;

export const publishWorkflow = defineRoute({
  id: 'publishWorkflow',
  method: 'POST',
  path: '/workflows',
  scope: 'workflows:publish',
  tag: 'Workflows',
  operation: 'workflow.publish',
  summary: 'Publish a definition as a new immutable version (the same source again: that version)',
  description:
    'The definition is compiled as `weave workflows validate` does; every problem is listed in ' +
    '`details.problems` (each with its JSON path under `$.definition`). Publishing a source ' +
    'whose digest this workflow already has returns that version with `created: false` and ' +
    'status 200. Publishing rights grant no instance rights.',
  body: PublishRequest,
  status: 201,
  otherStatuses: { 200: 'the same source was already published: that version' },
  answer: named(
    'PublishAnswer',
    object({
      workflow: Name,
      version: Version,
      digest: Digest,
      created: boolean({ description: 'false when this source was already published' }),
      summary: WorkflowVersionSummary,
    }),
  ),
  errors: ['payload_too_large'],
  example: {
    body: {
      definition: {
        schema_version: 1,
        name: 'order',
        input: {
          type: 'object',
          required: ['order_id'],
          properties: { order_id: { type: 'string' } },
        },
        steps: [
          { id: 'reserve', kind: 'TASK', queue: 'inventory', input: { order: '$.input.order_id' } },
        ],
      },
    },
  },
});

export const listWorkflows = defineRoute({
  id: 'listWorkflows',
  method: 'GET',
  path: '/workflows',
  scope: READ_SCOPES,
  tag: 'Workflows',
  summary: 'List workflows (by name order of creation)',
  query: PageQuery,
  status: 200,
  answer: page('WorkflowPage', Workflow),
  errors: [],
});

export const getWorkflow = defineRoute({
  id: 'getWorkflow',
  method: 'GET',
  path: '/workflows/{workflow}',
  scope: READ_SCOPES,
  tag: 'Workflows',
  summary: 'Get a workflow and a summary of its latest version',
  status: 200,
  answer: object({ workflow: Workflow, latest: WorkflowVersionSummary }),
  errors: ['not_found'],
});

export const listWorkflowVersions = defineRoute({
  id: 'listWorkflowVersions',
  method: 'GET',
  path: '/workflows/{workflow}/versions',
  scope: READ_SCOPES,
  tag: 'Workflows',
  summary: 'The versions of a workflow, newest first',
  query: PageQuery,
  status: 200,
  answer: page('WorkflowVersionPage', WorkflowVersionSummary),
  errors: ['not_found'],
});

export const getWorkflowVersion = defineRoute({
  id: 'getWorkflowVersion',
  method: 'GET',
  path: '/workflows/{workflow}/versions/{version}',
  scope: READ_SCOPES,
  tag: 'Workflows',
  summary: 'One version with its source as published (exact number text, key order)',
  status: 200,
  answer: object({ version: WorkflowVersion }),
  errors: ['not_found'],
});
