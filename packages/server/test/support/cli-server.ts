/**
 * A SQLite test server with one published workflow and the environment a `weave` CLI process needs
 * to reach it with a key of the given scopes (the CLI tests' common set-up).
 */
import type { Scope } from '@weave/sdk';
import { startTestServer } from './servers.js';
import type { TestServer } from './servers.js';

/** A workflow whose instances wait an hour on a timer: something to pause, resume and cancel. */
export const WAITING_WORKFLOW = {
  schema_version: 1,
  name: 'wait',
  steps: [{ id: 'nap', kind: 'TIMER', duration: 'PT1H' }],
};

export interface CliServer {
  readonly t: TestServer;
  /** WEAVE_URL, WEAVE_NAMESPACE (`ns`) and WEAVE_KEY for `runWeave`. */
  readonly env: Record<string, string>;
}

export async function startCliServer(
  definition: unknown,
  scopes: readonly Scope[],
): Promise<CliServer> {
  const t = await startTestServer('sqlite', { sweepIntervalMs: false, scheduleIntervalMs: false });
  await t.admin.workflows.publish(definition);
  const env = {
    WEAVE_URL: t.server.url,
    WEAVE_NAMESPACE: 'ns',
    WEAVE_KEY: await t.keyWith('ns', scopes),
  };
  return { t, env };
}
