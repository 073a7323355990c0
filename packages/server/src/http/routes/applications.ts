/** Administration of applications and their quotas (API.md "Administration"). */
import { getApplication, updateApplication } from '../../auth/applications.js';
import { createApplication } from '../../orbit/create-application.js';
import { auditChange } from '../audit-change.js';
import { NAME_PATTERN } from '@weave/sdk/protocol';
import { expectObject, readBoolean, readInteger, rejectUnknown, requireString } from '../fields.js';
import { applicationView } from '../presenters.js';
import type { Route, RouteContext } from '../route.js';

const MAX_QUOTA = 1_000_000_000;

function readQuota(ctx: RouteContext, required: boolean): number | undefined {
  const body = expectObject(ctx.body);
  const quotaValue = body.get('quota');
  if (quotaValue === undefined && !required) {
    return undefined;
  }
  const quota = expectObject(quotaValue, '$.quota');
  rejectUnknown(quota, ['max_active_tasks'], '$.quota');
  const max = readInteger(quota, 'max_active_tasks', { path: '$.quota', min: 1, max: MAX_QUOTA });
  return max ?? (required ? 10_000 : undefined);
}

export const applicationRoutes: Route[] = [
  {
    method: 'POST',
    path: '/applications',
    scope: 'admin',
    operation: 'application.create',
    summary: 'Create an application with its quota',
    requestSchema: {
      type: 'object',
      required: ['name'],
      properties: {
        name: { type: 'string', pattern: NAME_PATTERN.source },
        quota: {
          type: 'object',
          properties: { max_active_tasks: { type: 'integer', minimum: 1 } },
        },
      },
    },
    async handle(ctx) {
      const body = expectObject(ctx.body);
      rejectUnknown(body, ['name', 'quota']);
      const name = requireString(body, 'name');
      const maxActiveTasks = readQuota(ctx, true) ?? 10_000;
      const app = await createApplication(ctx.tx, ctx.principal.namespaceId, {
        name,
        maxActiveTasks,
      });
      await auditChange(ctx, 'application.create', { type: 'application', id: name });
      return { status: 201, body: { application: applicationView(app) } };
    },
  },
  {
    method: 'GET',
    path: '/applications/:application',
    scope: 'admin',
    summary: 'Get an application and its quota',
    async handle(ctx) {
      const app = await getApplication(
        ctx.tx,
        ctx.principal.namespaceId,
        ctx.params.application ?? '',
      );
      return { status: 200, body: { application: applicationView(app) } };
    },
  },
  {
    method: 'PATCH',
    path: '/applications/:application',
    scope: 'admin',
    operation: 'application.update',
    summary: 'Change an application quota or disable it',
    requestSchema: {
      type: 'object',
      properties: {
        quota: {
          type: 'object',
          properties: { max_active_tasks: { type: 'integer', minimum: 1 } },
        },
        disabled: { type: 'boolean' },
      },
    },
    async handle(ctx) {
      const body = expectObject(ctx.body);
      rejectUnknown(body, ['quota', 'disabled']);
      const maxActiveTasks = readQuota(ctx, false);
      const disabled = readBoolean(body, 'disabled');
      const name = ctx.params.application ?? '';
      const app = await updateApplication(ctx.tx, ctx.principal.namespaceId, name, {
        ...(maxActiveTasks === undefined ? {} : { maxActiveTasks }),
        ...(disabled === undefined ? {} : { disabled }),
      });
      await auditChange(ctx, 'application.update', { type: 'application', id: name });
      return { status: 200, body: { application: applicationView(app) } };
    },
  },
];
