/** Queue administration (API.md "Administration"). */
import { NAME_PATTERN } from '@weave/sdk/protocol';
import { createQueue, getQueue, listQueues, updateQueue } from '../../pulse/queues.js';
import type { QueuePatch } from '../../pulse/queues.js';
import { countQueueTasks } from '../../pulse/queue-counts.js';
import { requireQueue } from '../../auth/principal.js';
import { auditChange } from '../audit-change.js';
import { expectObject, readBoolean, readInteger, rejectUnknown, requireString } from '../fields.js';
import { readPage, pageToken } from '../paging.js';
import { queueView } from '../presenters.js';
import type { Route, RouteContext } from '../route.js';

const MAX_CAPACITY = 1_000_000_000;
const DEFAULT_CAPACITY = 100_000;

function queueParam(ctx: RouteContext): string {
  const name = ctx.params.queue ?? '';
  requireQueue(ctx.principal, name);
  return name;
}

async function setPaused(ctx: RouteContext, paused: boolean) {
  const name = queueParam(ctx);
  const queue = await updateQueue(ctx.tx, ctx.principal.namespaceId, name, { paused });
  await auditChange(ctx, paused ? 'queue.pause' : 'queue.resume', { type: 'queue', id: name });
  return { status: 200, body: { queue: queueView(queue) } };
}

export const queueRoutes: Route[] = [
  {
    method: 'POST',
    path: '/queues',
    scope: 'admin',
    operation: 'queue.create',
    summary: 'Create a queue owned by an application',
    requestSchema: {
      type: 'object',
      required: ['name', 'application'],
      properties: {
        name: { type: 'string', pattern: NAME_PATTERN.source },
        application: { type: 'string' },
        capacity: { type: 'integer', minimum: 1, description: 'max pending tasks' },
      },
    },
    async handle(ctx) {
      const body = expectObject(ctx.body);
      rejectUnknown(body, ['name', 'application', 'capacity']);
      const name = requireString(body, 'name');
      requireQueue(ctx.principal, name);
      const input = {
        name,
        application: requireString(body, 'application'),
        capacity: readInteger(body, 'capacity', { min: 1, max: MAX_CAPACITY }) ?? DEFAULT_CAPACITY,
      };
      const queue = await createQueue(ctx.tx, ctx.principal.namespaceId, input);
      await auditChange(ctx, 'queue.create', { type: 'queue', id: name });
      return { status: 201, body: { queue: queueView(queue) } };
    },
  },
  {
    method: 'GET',
    path: '/queues',
    scope: 'admin',
    summary: 'List queues',
    queryParams: ['page_size', 'page_token'],
    async handle(ctx) {
      const page = readPage(ctx.query);
      const result = await listQueues(ctx.tx, ctx.principal.namespaceId, page);
      const items = result.items.filter((q) => ctx.principal.queueNames?.has(q.name) ?? true);
      return {
        status: 200,
        body: { items: items.map(queueView), next_page_token: pageToken(result.nextAfterId) },
      };
    },
  },
  {
    method: 'GET',
    path: '/queues/:queue',
    scope: 'admin',
    summary: 'Get a queue, with its tasks counted by status',
    async handle(ctx) {
      const queue = await getQueue(ctx.tx, ctx.principal.namespaceId, queueParam(ctx));
      const counts = await countQueueTasks(ctx.tx, queue.id);
      return { status: 200, body: { queue: { ...queueView(queue), counts } } };
    },
  },
  {
    method: 'PATCH',
    path: '/queues/:queue',
    scope: 'admin',
    operation: 'queue.update',
    summary: 'Change a queue capacity or pause state',
    requestSchema: {
      type: 'object',
      properties: { capacity: { type: 'integer', minimum: 1 }, paused: { type: 'boolean' } },
    },
    async handle(ctx) {
      const name = queueParam(ctx);
      const body = expectObject(ctx.body);
      rejectUnknown(body, ['capacity', 'paused']);
      const capacity = readInteger(body, 'capacity', { min: 1, max: MAX_CAPACITY });
      const paused = readBoolean(body, 'paused');
      const patch: QueuePatch = {
        ...(capacity === undefined ? {} : { capacity }),
        ...(paused === undefined ? {} : { paused }),
      };
      const queue = await updateQueue(ctx.tx, ctx.principal.namespaceId, name, patch);
      await auditChange(ctx, 'queue.update', { type: 'queue', id: name });
      return { status: 200, body: { queue: queueView(queue) } };
    },
  },
  {
    method: 'POST',
    path: '/queues/:queue/pause',
    scope: 'admin',
    operation: 'queue.pause',
    summary: 'Pause a queue: no claims or starts; submissions are still accepted',
    handle: (ctx) => setPaused(ctx, true),
  },
  {
    method: 'POST',
    path: '/queues/:queue/resume',
    scope: 'admin',
    operation: 'queue.resume',
    summary: 'Resume a paused queue',
    handle: (ctx) => setPaused(ctx, false),
  },
];
