/** Wakes, after the request's commit, one long-poll per task left to claim (one queue id each). */
import type { RouteContext } from './route.js';

export function wakeClaims(
  ctx: Pick<RouteContext, 'tx' | 'notifier'>,
  queueIds: readonly string[],
) {
  if (queueIds.length > 0) {
    ctx.tx.afterCommit(() => {
      for (const queueId of queueIds) {
        ctx.notifier.notify(queueId, 1);
      }
    });
  }
}
