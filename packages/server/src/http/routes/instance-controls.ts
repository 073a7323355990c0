/**
 * `POST /instances/{id}/pause|resume|cancel` (API.md "Weave", docs/design/controls.md):
 * `workflows:control` (the contract) plus scope over every queue of the pinned version; the
 * answer is the instance after the control and whether it changed anything.
 */
import type { JsonValue } from '@weave/json';
import { ID_PATTERN, controls } from '@weave/sdk/protocol';
import { controlInstance } from '../../weave/control/control-instance.js';
import type { ControlAction } from '../../weave/control/control-instance.js';
import { readInstance } from '../../weave/instance/read-instance.js';
import { auditChange } from '../audit-change.js';
import { expectObject, readString, rejectUnknown } from '../fields.js';
import { instanceView } from '../instance-views.js';
import { route } from '../route.js';
import type { Route } from '../route.js';

function parseControl(body: JsonValue | undefined) {
  if (body === undefined) {
    return {};
  }
  const obj = expectObject(body);
  rejectUnknown(obj, ['expected_revision', 'reason']);
  const revision = readString(obj, 'expected_revision', { pattern: ID_PATTERN });
  return {
    expectedRevision: revision === undefined ? undefined : BigInt(revision),
    reason: readString(obj, 'reason', { maxLength: controls.MAX_CONTROL_REASON }),
  };
}

function controlRoute(
  // The three contracts have one shape (`controls.ts` builds them alike).
  contract: typeof controls.pauseInstance,
  action: ControlAction,
): Route {
  return route(contract, {
    parse: parseControl,
    async handle(ctx, request) {
      const instanceId = ctx.params.instance ?? '';
      const done = await controlInstance(ctx.tx, {
        ...request,
        principal: ctx.principal,
        instanceId,
        action,
      });
      if (done.changed) {
        await auditChange(ctx, `workflow.${action}`, { type: 'instance', id: instanceId });
        ctx.tx.afterCommit(() => {
          for (const queueId of done.queueIds) {
            ctx.notifier.notify(queueId, 1);
          }
        });
      }
      const read = await readInstance(ctx.tx, ctx.principal.namespaceId, instanceId);
      return { body: { instance: instanceView(read), changed: done.changed } };
    },
  });
}

export const instanceControlRoutes = [
  controlRoute(controls.pauseInstance, 'pause'),
  controlRoute(controls.resumeInstance, 'resume'),
  controlRoute(controls.cancelInstance, 'cancel'),
];
