/**
 * Workflow definitions (API.md "Weave"): publish (`workflows:publish`), list and read
 * (`workflows:read` or `workflows:publish`). Publishing rights grant no instance rights.
 */
import type { JsonValue } from '@weave/json';
import { workflows } from '@weave/sdk/protocol';
import { invalidArgument } from '../../errors.js';
import { publishDefinition } from '../../weave/definitions/publish-definition.js';
import {
  getDefinition,
  getVersion,
  listDefinitions,
  listVersions,
} from '../../weave/definitions/read-definitions.js';
import { auditChange } from '../audit-change.js';
import { expectObject, rejectUnknown } from '../fields.js';
import { pageBody, readPage } from '../paging.js';
import { route } from '../route.js';
import type { RouteContext } from '../route.js';
import { versionSummaryView, versionView, workflowView } from '../workflow-views.js';

function parsePublish(body: JsonValue | undefined): JsonValue {
  const obj = expectObject(body);
  rejectUnknown(obj, ['definition']);
  const definition = obj.get('definition');
  if (definition === undefined) {
    throw invalidArgument('$.definition', 'is required (the workflow definition, JSON)');
  }
  return definition;
}

function versionParam(ctx: RouteContext): number {
  const text = ctx.params.version ?? '';
  if (!/^[1-9][0-9]{0,9}$/.test(text) || Number(text) > workflows.MAX_VERSION) {
    throw invalidArgument('$.version', 'must be a version number (1, 2, …)');
  }
  return Number(text);
}

export const workflowRoutes = [
  route(workflows.publishWorkflow, {
    parse: parsePublish,
    async handle(ctx, definition) {
      const { version, created } = await publishDefinition(ctx.tx, {
        namespaceId: ctx.principal.namespaceId,
        credentialId: ctx.principal.credentialId,
        definition,
      });
      if (created) {
        await auditChange(ctx, 'workflow.publish', { type: 'workflow_version', id: version.id });
      }
      return {
        status: created ? 201 : 200,
        body: {
          workflow: version.workflow,
          version: version.version,
          digest: version.digest,
          created,
          summary: versionSummaryView(version),
        },
      };
    },
  }),
  route(workflows.listWorkflows, {
    async handle(ctx) {
      const result = await listDefinitions(ctx.tx, ctx.principal.namespaceId, readPage(ctx.query));
      return { body: pageBody(result.items.map(workflowView), result.nextAfterId) };
    },
  }),
  route(workflows.getWorkflow, {
    async handle(ctx) {
      const name = ctx.params.workflow ?? '';
      const { definition, latest } = await getDefinition(ctx.tx, ctx.principal.namespaceId, name);
      return { body: { workflow: workflowView(definition), latest: versionSummaryView(latest) } };
    },
  }),
  route(workflows.listWorkflowVersions, {
    async handle(ctx) {
      const name = ctx.params.workflow ?? '';
      const page = readPage(ctx.query);
      const result = await listVersions(ctx.tx, ctx.principal.namespaceId, name, page);
      return { body: pageBody(result.items.map(versionSummaryView), result.nextAfterId) };
    },
  }),
  route(workflows.getWorkflowVersion, {
    async handle(ctx) {
      const name = ctx.params.workflow ?? '';
      const version = await getVersion(ctx.tx, ctx.principal.namespaceId, name, versionParam(ctx));
      return { body: { version: versionView(version) } };
    },
  }),
];
