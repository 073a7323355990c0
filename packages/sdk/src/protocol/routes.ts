/** Every route contract of the API, in one list (the server registers exactly these). */
import type { RouteContract } from './contract.js';
import * as admin from './admin.js';
import * as controls from './controls.js';
import * as instances from './instances.js';
import * as operations from './operations.js';
import * as orbit from './orbit.js';
import * as recovery from './recovery.js';
import * as schedules from './schedules.js';
import * as signals from './signals.js';
import * as tasks from './tasks.js';
import * as workers from './workers.js';
import * as workflows from './workflows.js';

function contractsOf(module: Readonly<Record<string, unknown>>): RouteContract[] {
  return Object.values(module).filter(
    (value): value is RouteContract =>
      typeof value === 'object' && value !== null && 'method' in value && 'answer' in value,
  );
}

export const ROUTES: readonly RouteContract[] = [
  admin,
  tasks,
  workers,
  schedules,
  orbit,
  workflows,
  instances,
  controls,
  recovery,
  signals,
  operations,
].flatMap(contractsOf);
