/** Every route of the API, in one table (STYLE.md §4). */
import type { Route } from '../route.js';
import { applicationRoutes } from './applications.js';
import { credentialRoutes } from './credentials.js';
import { instanceControlRoutes } from './instance-controls.js';
import { instanceOperationRoutes } from './instance-operations.js';
import { instanceRecoveryRoutes } from './instance-recovery.js';
import { instanceRoutes } from './instances.js';
import { queueRoutes } from './queues.js';
import { scheduleRoutes } from './schedules.js';
import { signalRoutes } from './signals.js';
import { streamRoutes } from './streams.js';
import { subscriptionRoutes } from './subscriptions.js';
import { taskRoutes } from './tasks.js';
import { taskSourceRoutes } from './task-source.js';
import { webhookRoutes } from './webhooks.js';
import { workerRoutes } from './workers.js';
import { workflowRoutes } from './workflows.js';

export const allRoutes: readonly Route[] = [
  ...applicationRoutes,
  ...queueRoutes,
  ...credentialRoutes,
  ...taskRoutes,
  ...taskSourceRoutes,
  ...workerRoutes,
  ...scheduleRoutes,
  ...streamRoutes,
  ...subscriptionRoutes,
  ...webhookRoutes,
  ...workflowRoutes,
  ...instanceRoutes,
  ...instanceControlRoutes,
  ...instanceRecoveryRoutes,
  ...signalRoutes,
  ...instanceOperationRoutes,
];
