/** Workflow definitions → wire JSON (API.md "Weave"). A version's source is embedded as stored. */
import { formatInstant } from '@weave/sdk/protocol';
import type { workflows } from '@weave/sdk/protocol';
import type {
  Definition,
  DefinitionVersion,
  DefinitionVersionWithSource,
} from '../weave/definitions/definition-record.js';

export function workflowView(definition: Definition): workflows.Workflow {
  return {
    name: definition.name,
    id: definition.id,
    latest_version: definition.latestVersion,
    created_at: formatInstant(definition.createdAt),
    updated_at: formatInstant(definition.updatedAt),
  };
}

export function versionSummaryView(version: DefinitionVersion): workflows.WorkflowVersionSummary {
  return {
    workflow: version.workflow,
    version: version.version,
    digest: version.digest,
    schema_version: version.schemaVersion,
    step_count: version.stepCount,
    queues: version.queues,
    has_tasks: version.hasTasks,
    created_at: formatInstant(version.createdAt),
  };
}

export function versionView(version: DefinitionVersionWithSource): workflows.WorkflowVersion {
  return { ...versionSummaryView(version), definition: { kind: 'raw', text: version.source } };
}
