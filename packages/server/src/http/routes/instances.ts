/**
 * Workflow instances (API.md "Weave"): Start (`workflows:start`, one transaction: seed 002 §1),
 * and the reads — Get, Steps, step detail, history — each `workflows:read` plus scope over every
 * queue of the pinned version (A3.6), the pinned version verified first (A3.4). The list shows
 * only instances the caller could read that way (list-instances.ts). A Start
 * replay answers the view frozen at admission once the current rights and the pinned version
 * are checked again (A1.4, A3.5).
 */
import { isJsonObject, parse } from '@weave/json';
import type { JsonValue } from '@weave/json';
import { NAME_PATTERN, instances, workflows } from '@weave/sdk/protocol';
import { requireScope } from '../../auth/principal.js';
import { WeaveError, invalidArgument } from '../../errors.js';
import { readHistory } from '../../weave/instance/history-view.js';
import { INSTANCE_LIST_KEY, listInstances } from '../../weave/instance/list-instances.js';
import { readInstance, requireInstanceQueues } from '../../weave/instance/read-instance.js';
import type { InstanceWithVersion } from '../../weave/instance/read-instance.js';
import { readStepDetail } from '../../weave/instance/step-detail.js';
import { readSteps } from '../../weave/instance/steps-view.js';
import { startInstance } from '../../weave/instance/start-instance.js';
import { auditChange } from '../audit-change.js';
import { expectObject, readInteger, readString, rejectUnknown } from '../fields.js';
import { parseInstanceFilter } from '../instance-filter.js';
import {
  historyView,
  instanceSummaryView,
  instanceView,
  stepDetailView,
  stepsView,
} from '../instance-views.js';
import { pageBody, readPage } from '../paging.js';
import { queryBigInt, queryInteger } from '../query-fields.js';
import { SHARE_LONG, route } from '../route.js';
import { wakeClaims } from '../wake-claims.js';
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

/** The instance with its pinned version verified, and the caller's right to read it. */
async function readableInstance(ctx: RouteContext): Promise<InstanceWithVersion> {
  const read = await readInstance(ctx.tx, ctx.principal.namespaceId, ctx.params.instance ?? '');
  requireInstanceQueues(ctx.principal, read);
  return read;
}

/** The instance list's page token: `(created_at, id)` of the last item (list-instances.ts). */
const LIST_TOKEN = { prefix: 'at', pattern: INSTANCE_LIST_KEY };

export const instanceRoutes = [
  route(instances.startInstance, {
    parse: parseStart,
    checkReplay: checkStartReplay,
    shared: SHARE_LONG,
    async handle(ctx, start) {
      const { instanceId, queueIds } = await startInstance(ctx.tx, {
        ...start,
        principal: ctx.principal,
        workflow: ctx.params.workflow ?? '',
        maxActiveInstances: ctx.settings.maxActiveInstances,
      });
      // The first tasks' long-polls are woken after the commit. Not handed off in this
      // transaction (pulse/claim-hand-off.ts): a Start holds its application's quota row until
      // it commits, and the claim's work inside that hold cost S3 more than it saved S2
      // (docs/design/hot-path.md §10).
      wakeClaims(ctx, queueIds);
      await auditChange(ctx, 'workflow.start', { type: 'instance', id: instanceId });
      const read = await readInstance(ctx.tx, ctx.principal.namespaceId, instanceId);
      return { body: { instance: instanceView(read) } };
    },
  }),
  route(instances.listInstances, {
    async handle(ctx) {
      const filter = parseInstanceFilter(ctx.query);
      const page = readPage(ctx.query, LIST_TOKEN);
      const read = await listInstances(ctx.tx, {
        namespaceId: ctx.principal.namespaceId,
        filter,
        readableQueues: ctx.principal.queueNames,
        afterKey: page.afterId,
        size: page.size,
      });
      return { body: pageBody(read.items.map(instanceSummaryView), read.nextAfterId, LIST_TOKEN) };
    },
  }),
  route(instances.getInstance, {
    async handle(ctx) {
      return { body: { instance: instanceView(await readableInstance(ctx)) } };
    },
  }),
  route(instances.listInstanceSteps, {
    async handle(ctx) {
      const { instance } = await readableInstance(ctx);
      return { body: stepsView(await readSteps(ctx.tx, instance.namespaceId, instance.id)) };
    },
  }),
  route(instances.getInstanceStep, {
    async handle(ctx) {
      const { instance } = await readableInstance(ctx);
      const read = await readStepDetail(
        ctx.tx,
        instance.namespaceId,
        instance.id,
        ctx.params.step ?? '',
      );
      return { body: stepDetailView(read) };
    },
  }),
  route(instances.listInstanceHistory, {
    async handle(ctx) {
      const after = queryBigInt(ctx.query, 'after') ?? 0n;
      const limit =
        queryInteger(ctx.query, 'limit', { min: 1, max: instances.MAX_HISTORY_LIMIT }) ??
        instances.DEFAULT_HISTORY_LIMIT;
      const { instance } = await readableInstance(ctx);
      const read = await readHistory(
        ctx.tx,
        { namespaceId: instance.namespaceId, instanceId: instance.id },
        { after, limit },
      );
      return { body: historyView(read) };
    },
  }),
];
