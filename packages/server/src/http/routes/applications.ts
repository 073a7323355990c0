/** Administration of applications and their quotas (API.md "Administration"). */
import type { JsonValue } from '@weave/json';
import { admin } from '@weave/sdk/protocol';
import { getApplication, updateApplication } from '../../auth/applications.js';
import { createApplication } from '../../orbit/create-application.js';
import { auditChange } from '../audit-change.js';
import { expectObject, readBoolean, readInteger, rejectUnknown, requireString } from '../fields.js';
import { applicationView } from '../presenters.js';
import { route } from '../route.js';

const DEFAULT_MAX_ACTIVE_TASKS = 10_000;

function readQuota(value: JsonValue | undefined): number | undefined {
  if (value === undefined) {
    return undefined;
  }
  const quota = expectObject(value, '$.quota');
  rejectUnknown(quota, ['max_active_tasks'], '$.quota');
  return readInteger(quota, 'max_active_tasks', {
    path: '$.quota',
    min: 1,
    max: admin.MAX_LIMIT,
  });
}

function parseCreate(body: JsonValue | undefined) {
  const obj = expectObject(body);
  rejectUnknown(obj, ['name', 'quota']);
  return {
    name: requireString(obj, 'name'),
    maxActiveTasks: readQuota(obj.get('quota')) ?? DEFAULT_MAX_ACTIVE_TASKS,
  };
}

function parseUpdate(body: JsonValue | undefined) {
  const obj = expectObject(body);
  rejectUnknown(obj, ['quota', 'disabled']);
  const maxActiveTasks = readQuota(obj.get('quota'));
  const disabled = readBoolean(obj, 'disabled');
  return {
    ...(maxActiveTasks === undefined ? {} : { maxActiveTasks }),
    ...(disabled === undefined ? {} : { disabled }),
  };
}

export const applicationRoutes = [
  route(admin.createApplication, {
    parse: parseCreate,
    async handle(ctx, input) {
      const app = await createApplication(ctx.tx, ctx.principal.namespaceId, input);
      await auditChange(ctx, 'application.create', { type: 'application', id: input.name });
      return { body: { application: applicationView(app) } };
    },
  }),
  route(admin.getApplication, {
    async handle(ctx) {
      const name = ctx.params.application ?? '';
      const app = await getApplication(ctx.tx, ctx.principal.namespaceId, name);
      return { body: { application: applicationView(app) } };
    },
  }),
  route(admin.updateApplication, {
    parse: parseUpdate,
    async handle(ctx, patch) {
      const name = ctx.params.application ?? '';
      const app = await updateApplication(ctx.tx, ctx.principal.namespaceId, name, patch);
      await auditChange(ctx, 'application.update', { type: 'application', id: name });
      return { body: { application: applicationView(app) } };
    },
  }),
];
