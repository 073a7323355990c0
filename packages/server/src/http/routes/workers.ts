/**
 * The worker protocol (API.md "Pulse", scope tasks:work): claim (long-poll, session mode: no
 * transaction is held while waiting), start, heartbeat, complete. The permit is checked by the
 * services on every call.
 */
import type { JsonObject, JsonValue } from '@weave/json';
import { formatInstant, workers } from '@weave/sdk/protocol';
import { requireQueue } from '../../auth/principal.js';
import { notFound } from '../../errors.js';
import { claimTasks } from '../../pulse/claim-tasks.js';
import { claimWithWait } from '../../pulse/claim-with-wait.js';
import { completeAttempt } from '../../pulse/complete-attempt.js';
import { completeBatch } from '../../pulse/complete-batch.js';
import { heartbeatAttempt } from '../../pulse/heartbeat-attempt.js';
import { getTask } from '../../pulse/list-tasks.js';
import { getQueue } from '../../pulse/queues.js';
import { startAttempt } from '../../pulse/start-attempt.js';
import { workerCallsOf } from '../../pulse/worker-calls.js';
import { SHARE_SHORT, route } from '../route.js';
import type { RouteContext } from '../route.js';
import { batchView, claimedTaskView, receiptView } from '../task-views.js';
import { parseBatch, parseClaim, parseComplete, parsePermit } from '../worker-fields.js';
import type { BatchBody } from '../worker-fields.js';

/** The attempt a call names, and for queue-limited credentials the queue right (one read). */
async function attemptRef(ctx: RouteContext, permit: string) {
  const ref = {
    namespaceId: ctx.principal.namespaceId,
    taskId: ctx.params.task ?? '',
    attemptId: ctx.params.attempt ?? '',
    permit,
  };
  if (ctx.principal.queueNames !== null) {
    requireQueue(ctx.principal, (await getTask(ctx.tx, ref.namespaceId, ref.taskId)).queueName);
  }
  return ref;
}

/** `claim.worker_id` of a batch body as sent, unchecked: a scheduling hint (worker-calls.ts). */
function workerIdHint(body: JsonValue | undefined): string | undefined {
  const member = (value: JsonValue | undefined, name: string): JsonValue | undefined =>
    value instanceof Map ? (value as JsonObject).get(name) : undefined;
  const id = member(member(body, 'claim'), 'worker_id');
  return typeof id === 'string' && id.length <= 200 ? id : undefined;
}

export const workerRoutes = [
  route(workers.claimTasks, {
    parse: parseClaim,
    async session(ctx, { waitMs, ...claim }) {
      const queueName = ctx.params.queue ?? '';
      requireQueue(ctx.principal, queueName);
      const request = { namespaceId: ctx.principal.namespaceId, queueName, ...claim };
      const env = { database: ctx.database, notifier: ctx.notifier, signal: ctx.signal };
      const outcome = await claimWithWait(env, request, waitMs);
      if (outcome.queueId === undefined) {
        throw notFound(`queue ${queueName}`, { path: '$.queue' });
      }
      return { body: { tasks: outcome.claimed.map(claimedTaskView) } };
    },
  }),
  route(workers.startAttempt, {
    shared: SHARE_SHORT,
    parse: parsePermit,
    async handle(ctx, permit) {
      return { body: receiptView(await startAttempt(ctx.tx, await attemptRef(ctx, permit))) };
    },
  }),
  route(workers.heartbeatAttempt, {
    shared: SHARE_SHORT,
    parse: parsePermit,
    async handle(ctx, permit) {
      const answer = await heartbeatAttempt(ctx.tx, await attemptRef(ctx, permit));
      return {
        body: {
          lease_expires_at: formatInstant(answer.leaseUntil),
          cancel_requested: answer.cancelRequested,
        },
      };
    },
  }),
  route(workers.completeAttempt, {
    shared: SHARE_SHORT,
    parse: parseComplete,
    async handle(ctx, { permit, completion }) {
      const receipt = await completeAttempt(ctx.tx, {
        ...(await attemptRef(ctx, permit)),
        completion,
        credentialId: ctx.principal.credentialId,
        requestId: ctx.requestId,
      });
      return { body: receiptView(receipt) };
    },
  }),
  route(workers.completeMany, {
    parse: parseBatch,
    async handle(ctx, batch) {
      const queueName = ctx.params.queue ?? '';
      requireQueue(ctx.principal, queueName);
      const queue = await getQueue(ctx.tx, ctx.principal.namespaceId, queueName);
      const common = { namespaceId: ctx.principal.namespaceId, queueId: queue.id };
      const actor = { credentialId: ctx.principal.credentialId, requestId: ctx.requestId };
      const results = (
        await completeBatch(
          ctx.tx,
          batch.items.map((item) => ({ ...item, ...common, ...actor })),
        )
      ).map((r) => ({ ...r, index: batch.items[r.index]?.index ?? r.index }));
      const claimed =
        batch.claim && (await claimTasks(ctx.tx, { ...common, queueName, ...batch.claim, queue }));
      return { body: batchView(batch, results, claimed?.claimed ?? []) };
    },
    // Without an Idempotency-Key (the SDK Worker's calls): shares a transaction and its commit
    // with the other worker calls on this node (pulse/worker-calls.ts), same answer.
    async grouped(ctx) {
      const queueName = ctx.params.queue ?? '';
      let batch: BatchBody | undefined;
      const outcome = await workerCallsOf(ctx.database).submit({
        caller: workerIdHint(ctx.unchecked),
        async admit(tx) {
          const { principal, input } = await ctx.admit<BatchBody>(tx);
          requireQueue(principal, queueName);
          batch = input;
          const actor = { credentialId: principal.credentialId, requestId: ctx.requestId };
          const { namespaceId } = principal;
          // A loop that pushes, not `.map`: a list of one elements kind in every tier, so the
          // group's functions meet one map (docs/design/hot-path.md §56–§57).
          const completions = [];
          for (const item of input.items) {
            completions.push({ ...item, namespaceId, ...actor });
          }
          return { namespaceId, queueName, completions, claim: input.claim };
        },
      });
      if (batch === undefined) {
        throw new Error('a grouped batch completion answered without its body');
      }
      return { body: batchView(batch, outcome.results, outcome.claimed) };
    },
  }),
];
