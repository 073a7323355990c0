/**
 * Workflow instances (API.md "Weave"): Start (`workflows:start`, one transaction: seed 002 §1)
 * and Get (`workflows:read` plus scope over every queue of the pinned version, A3.6). A Start
 * replay answers the view frozen at admission once the current rights and the pinned version
 * are checked again (A1.4, A3.5).
 */
import { isJsonObject, parse } from '@weave/json';
import type { JsonValue } from '@weave/json';
import { NAME_PATTERN, instances, workflows } from '@weave/sdk/protocol';
import { requireScope } from '../../auth/principal.js';
import { WeaveError, invalidArgument } from '../../errors.js';
import { readInstance, requireInstanceQueues } from '../../weave/instance/read-instance.js';
import { startInstance } from '../../weave/instance/start-instance.js';
import { auditChange } from '../audit-change.js';
import { expectObject, readInteger, readString, rejectUnknown } from '../fields.js';
import { instanceView } from '../instance-views.js';
import { route } from '../route.js';
import type { RouteContext } from '../route.js';

function parseStart(body: JsonValue | undefined) {
  const obj = expectObject(body);
  rejectUnknown(obj, ['version', 'input', 'business_key', 'result_stream', 'application']);
  const input = obj.get('input');
  if (input === undefined) {
    throw invalidArgument('$.input', 'is required (the instance input, JSON)');
  }
  return {
    version: readInteger(obj, 'version', { min: 1, max: workflows.MAX_VERSION }),
    input,
    businessKey: readString(obj, 'business_key'),
    resultStream: readString(obj, 'result_stream', { pattern: NAME_PATTERN }),
    application: readString(obj, 'application', { pattern: NAME_PATTERN }),
  };
}

/** A1.4: a replay still needs today's rights over the instance and its pinned version. */
async function checkStartReplay(ctx: RouteContext, storedBody: string): Promise<void> {
  const stored = parse(storedBody);
  const instance = isJsonObject(stored) ? stored.get('instance') : undefined;
  const id = isJsonObject(instance) ? instance.get('id') : undefined;
  if (typeof id !== 'string') {
    throw new WeaveError('internal', 'a Start receipt holds no instance id');
  }
  const read = await readInstance(ctx.tx, ctx.principal.namespaceId, id);
  // The pinned version has business tasks exactly when it uses queues (has_tasks, A1.3).
  if (read.queues.length > 0) {
    requireScope(ctx.principal, 'tasks:submit');
  }
  requireInstanceQueues(ctx.principal, read);
}

export const instanceRoutes = [
  route(instances.startInstance, {
    parse: parseStart,
    checkReplay: checkStartReplay,
    async handle(ctx, start) {
      const { instanceId } = await startInstance(ctx.tx, {
        ...start,
        principal: ctx.principal,
        workflow: ctx.params.workflow ?? '',
        maxActiveInstances: ctx.settings.maxActiveInstances,
      });
      await auditChange(ctx, 'workflow.start', { type: 'instance', id: instanceId });
      const read = await readInstance(ctx.tx, ctx.principal.namespaceId, instanceId);
      return { body: { instance: instanceView(read) } };
    },
  }),
  route(instances.getInstance, {
    async handle(ctx) {
      const read = await readInstance(ctx.tx, ctx.principal.namespaceId, ctx.params.instance ?? '');
      requireInstanceQueues(ctx.principal, read);
      return { body: { instance: instanceView(read) } };
    },
  }),
];
