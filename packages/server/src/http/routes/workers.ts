/**
 * The worker protocol (API.md "Pulse", scope tasks:work): claim (long-poll, session mode: no
 * transaction is held while waiting), start, heartbeat, complete. The permit is checked by the
 * services on every call.
 */
import { requireQueue } from '../../auth/principal.js';
import { notFound } from '../../errors.js';
import { claimWithWait, MAX_WAIT_MS } from '../../pulse/claim-with-wait.js';
import { completeBatch, MAX_BATCH_COMPLETIONS } from '../../pulse/complete-batch.js';
import { claimTasks } from '../../pulse/claim-tasks.js';
import { getQueue } from '../../pulse/queues.js';
import { MAX_CLAIM_TASKS } from '../../pulse/claim-tasks.js';
import { completeAttempt } from '../../pulse/complete-attempt.js';
import { heartbeatAttempt } from '../../pulse/heartbeat-attempt.js';
import { getTask } from '../../pulse/list-tasks.js';
import { startAttempt } from '../../pulse/start-attempt.js';
import { formatInstant } from '../../store/values.js';
import { expectObject, readBoolean, readInteger, rejectUnknown, requireString } from '../fields.js';
import type { Route, RouteContext } from '../route.js';
import { parseBatch, parseCompletion, parsePermit } from '../task-fields.js';
import { batchView } from '../task-views.js';
import { claimedTaskView, receiptView } from '../task-views.js';

const WORKER_ID_PATTERN = /^[\x21-\x7e]{1,200}$/;

/** Permit plus, for queue-limited credentials, the queue right (one extra read only for them). */
async function permitRef(ctx: RouteContext, allowed: readonly string[] = []) {
  const body = parsePermit(ctx.body, allowed);
  const ref = {
    namespaceId: ctx.principal.namespaceId,
    taskId: ctx.params.task ?? '',
    attemptId: ctx.params.attempt ?? '',
    permit: requireString(body, 'permit'),
  };
  if (ctx.principal.queueNames !== null) {
    requireQueue(ctx.principal, (await getTask(ctx.tx, ref.namespaceId, ref.taskId)).queueName);
  }
  return { body, ref };
}

export const workerRoutes: Route[] = [
  {
    method: 'POST',
    path: '/queues/:queue/claims',
    scope: 'tasks:work',
    summary:
      'Claim up to max_tasks tasks, waiting up to wait_ms for one to arrive; with start: true the ' +
      'claimed attempts are started in the same transaction (no start call; a lost answer leaves ' +
      'started attempts, whose effect counts as uncertain when their lease ends)',
    requestSchema: { type: 'object', required: ['worker_id'] },
    async session(ctx) {
      const queueName = ctx.params.queue ?? '';
      requireQueue(ctx.principal, queueName);
      const body = expectObject(ctx.body);
      rejectUnknown(body, ['worker_id', 'max_tasks', 'wait_ms', 'start']);
      const request = {
        namespaceId: ctx.principal.namespaceId,
        queueName,
        workerId: requireString(body, 'worker_id', { pattern: WORKER_ID_PATTERN }),
        maxTasks: readInteger(body, 'max_tasks', { min: 1, max: MAX_CLAIM_TASKS }) ?? 1,
        start: readBoolean(body, 'start') ?? false,
      };
      const waitMs = readInteger(body, 'wait_ms', { min: 0, max: MAX_WAIT_MS }) ?? 0;
      const env = { database: ctx.database, notifier: ctx.notifier, signal: ctx.signal };
      const outcome = await claimWithWait(env, request, waitMs);
      if (outcome.queueId === undefined) {
        throw notFound(`queue ${queueName}`, { path: 'queue' });
      }
      return { status: 200, body: { tasks: outcome.claimed.map(claimedTaskView) } };
    },
  },
  {
    method: 'POST',
    path: '/tasks/:task/attempts/:attempt/start',
    scope: 'tasks:work',
    summary: 'Declare that side effects begin (a paused queue refuses)',
    async handle(ctx) {
      const { ref } = await permitRef(ctx);
      const receipt = await startAttempt(ctx.tx, ref);
      return { status: 200, body: receiptView(receipt) };
    },
  },
  {
    method: 'POST',
    path: '/tasks/:task/attempts/:attempt/heartbeat',
    scope: 'tasks:work',
    summary: 'Extend the lease (never past the deadline); reports cancel_requested',
    async handle(ctx) {
      const { ref } = await permitRef(ctx);
      const answer = await heartbeatAttempt(ctx.tx, ref);
      return {
        status: 200,
        body: {
          lease_expires_at: formatInstant(answer.leaseUntil),
          cancel_requested: answer.cancelRequested,
        },
      };
    },
  },
  {
    method: 'POST',
    path: '/tasks/:task/attempts/:attempt/complete',
    scope: 'tasks:work',
    summary: 'Report succeeded, failed or needs_review; a re-sent identical completion replays',
    requestSchema: { type: 'object', required: ['permit', 'outcome'] },
    async handle(ctx) {
      const { body, ref } = await permitRef(ctx, ['outcome', 'result', 'error']);
      const receipt = await completeAttempt(ctx.tx, {
        ...ref,
        completion: parseCompletion(body),
        credentialId: ctx.principal.credentialId,
        requestId: ctx.requestId,
      });
      return { status: 200, body: receiptView(receipt) };
    },
  },
  {
    method: 'POST',
    path: '/queues/:queue/completions',
    scope: 'tasks:work',
    summary:
      'Many completions in one call (each whole or nothing), optionally claiming more ' +
      '(claim.start: true starts them in the same transaction, as on claims)',
    requestSchema: { type: 'object', properties: { completions: { type: 'array' } } },
    async handle(ctx) {
      const queueName = ctx.params.queue ?? '';
      requireQueue(ctx.principal, queueName);
      const queue = await getQueue(ctx.tx, ctx.principal.namespaceId, queueName);
      const batch = parseBatch(ctx.body, MAX_BATCH_COMPLETIONS);
      const common = { namespaceId: ctx.principal.namespaceId, queueId: queue.id };
      const actor = { credentialId: ctx.principal.credentialId, requestId: ctx.requestId };
      const results = await completeBatch(
        ctx.tx,
        batch.items.map((item) => ({ ...item, ...common, ...actor })),
      );
      const claimed =
        batch.claim && (await claimTasks(ctx.tx, { ...common, queueName, ...batch.claim, queue }));
      return { status: 200, body: batchView(batch, results, claimed?.claimed ?? []) };
    },
  },
];
