/** Queue administration (API.md "Administration"). */
import type { JsonValue } from '@weave/json';
import { admin } from '@weave/sdk/protocol';
import { requireQueue } from '../../auth/principal.js';
import { countQueueTasks } from '../../pulse/queue-counts.js';
import { createQueue, getQueue, listQueues, updateQueue } from '../../pulse/queues.js';
import type { QueuePatch } from '../../pulse/queues.js';
import { auditChange } from '../audit-change.js';
import { expectObject, readBoolean, readInteger, rejectUnknown, requireString } from '../fields.js';
import { pageBody, readPage } from '../paging.js';
import { queueView } from '../presenters.js';
import { route } from '../route.js';
import type { RouteContext } from '../route.js';

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
  return { body: { queue: queueView(queue) } };
}

function parseCreate(body: JsonValue | undefined) {
  const obj = expectObject(body);
  rejectUnknown(obj, ['name', 'application', 'capacity']);
  return {
    name: requireString(obj, 'name'),
    application: requireString(obj, 'application'),
    capacity: readInteger(obj, 'capacity', { min: 1, max: admin.MAX_LIMIT }) ?? DEFAULT_CAPACITY,
  };
}

function parseUpdate(body: JsonValue | undefined): QueuePatch {
  const obj = expectObject(body);
  rejectUnknown(obj, ['capacity', 'paused']);
  const capacity = readInteger(obj, 'capacity', { min: 1, max: admin.MAX_LIMIT });
  const paused = readBoolean(obj, 'paused');
  return {
    ...(capacity === undefined ? {} : { capacity }),
    ...(paused === undefined ? {} : { paused }),
  };
}

export const queueRoutes = [
  route(admin.createQueue, {
    parse: parseCreate,
    async handle(ctx, input) {
      requireQueue(ctx.principal, input.name);
      const queue = await createQueue(ctx.tx, ctx.principal.namespaceId, input);
      await auditChange(ctx, 'queue.create', { type: 'queue', id: input.name });
      return { body: { queue: queueView(queue) } };
    },
  }),
  route(admin.listQueues, {
    async handle(ctx) {
      const result = await listQueues(ctx.tx, ctx.principal.namespaceId, readPage(ctx.query));
      const items = result.items.filter((q) => ctx.principal.queueNames?.has(q.name) ?? true);
      return { body: pageBody(items.map(queueView), result.nextAfterId) };
    },
  }),
  route(admin.getQueue, {
    async handle(ctx) {
      const queue = await getQueue(ctx.tx, ctx.principal.namespaceId, queueParam(ctx));
      const counts = await countQueueTasks(ctx.tx, {
        namespaceId: ctx.principal.namespaceId,
        id: queue.id,
      });
      return { body: { queue: { ...queueView(queue), counts } } };
    },
  }),
  route(admin.updateQueue, {
    parse: parseUpdate,
    async handle(ctx, patch) {
      const name = queueParam(ctx);
      const queue = await updateQueue(ctx.tx, ctx.principal.namespaceId, name, patch);
      await auditChange(ctx, 'queue.update', { type: 'queue', id: name });
      return { body: { queue: queueView(queue) } };
    },
  }),
  route(admin.pauseQueue, { handle: (ctx) => setPaused(ctx, true) }),
  route(admin.resumeQueue, { handle: (ctx) => setPaused(ctx, false) }),
];
