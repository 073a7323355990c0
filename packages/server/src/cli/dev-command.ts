/**
 * `weave dev`: a server on an embedded SQLite database (`./.weave/weave.sqlite` or --data DIR),
 * with namespace `dev`, application `dev`, the queues `DEV_QUEUES`, and one all-scopes key kept
 * in the data folder (dev-key.ts), the same at every start. Serves until SIGINT/SIGTERM.
 */
import { join, resolve } from 'node:path';
import { SCOPES } from '@weave/sdk/protocol';
import { bootstrap } from './bootstrap.js';
import { startExamples } from './dev-examples.js';
import type { RunningExamples } from './dev-examples.js';
import { DEV_KEY_FILE, prepareDataDir, readDevKey, writeDevKey } from './dev-key.js';
import { Server } from '../server.js';
import {
  explainListenError,
  parseCommand,
  readHost,
  readPort,
  readWebhookAllow,
  untilSignal,
} from './options.js';

const HELP = `usage: weave dev [--port N] [--host H] [--data DIR] [--json] [--with-examples]

  --port N    port to listen on (default 8420; 0 picks a free port) [WEAVE_PORT]
  --host H    address to listen on (default 127.0.0.1) [WEAVE_HOST]
  --data DIR  where the SQLite database and the dev key live (default ./.weave) [WEAVE_DATA]
  --json      print one JSON line {"url","namespace","key"} once ready
  --with-examples
              also publish the workflows of examples/ (order-fulfilment) and run their
              task handlers in this process, so instances can be started at once
  --webhook-allow LIST
              CIDRs, addresses or host names webhooks may reach although private or
              loopback, comma-separated, e.g. 127.0.0.1 for a local receiver [WEAVE_WEBHOOK_ALLOW]`;

/** The queues of namespace `dev`: `default`, and the ones the examples use (docs/quickstart.md). */
export const DEV_QUEUES = ['default', 'orders', 'payments', 'shipping'] as const;

export async function runDev(argv: readonly string[]): Promise<number> {
  const { values } = parseCommand(argv, {
    help: { type: 'boolean', short: 'h' },
    port: { type: 'string' },
    host: { type: 'string' },
    data: { type: 'string' },
    json: { type: 'boolean' },
    'webhook-allow': { type: 'string' },
    'with-examples': { type: 'boolean' },
  });
  if (values.help === true) {
    process.stdout.write(`${HELP}\n`);
    return 0;
  }
  const dataDir = resolve(String(values.data ?? process.env.WEAVE_DATA ?? '.weave'));
  // Checked before the server starts: an unsafe key file stops us with nothing opened.
  prepareDataDir(dataDir);
  const keptKey = readDevKey(dataDir);
  const port = readPort(values.port as string | undefined, 8420);
  const server = await Server.start({
    db: join(dataDir, 'weave.sqlite'),
    port,
    host: readHost(values.host as string | undefined),
    logLevel: process.env.WEAVE_LOG_LEVEL ?? 'warn',
    logStream: process.stderr,
    webhookAllow: readWebhookAllow(values['webhook-allow'] as string | undefined),
  }).catch((e: unknown) => {
    throw explainListenError(e, port);
  });
  const { key } = await bootstrap(server.database, {
    namespace: 'dev',
    application: 'dev',
    queues: DEV_QUEUES,
    scopes: [...SCOPES],
    credentialName: 'weave dev',
    ...(keptKey === undefined ? {} : { key: keptKey }),
  }).catch(async (e: unknown) => {
    await server.stop();
    throw e;
  });
  if (key !== keptKey) {
    writeDevKey(dataDir, key);
    if (keptKey !== undefined) {
      process.stderr.write(
        `weave dev: the key in ${join(dataDir, DEV_KEY_FILE)} was revoked or expired; a new one was saved\n`,
      );
    }
  }
  // Listen for the signal before printing the ready line: a supervisor may stop us right after.
  const stopSignal = untilSignal();
  let examples: RunningExamples | undefined;
  if (values['with-examples'] === true) {
    examples = await startExamples({ url: server.url, key }).catch(async (e: unknown) => {
      await server.stop();
      throw e;
    });
  }
  if (values.json === true) {
    process.stdout.write(`${JSON.stringify({ url: server.url, namespace: 'dev', key })}\n`);
  } else {
    process.stdout.write(
      [
        `Weave dev server ready at ${server.url}`,
        `  console:   ${server.url}/console/`,
        `  database:  ${join(dataDir, 'weave.sqlite')}`,
        `  namespace: dev (application dev, queues ${DEV_QUEUES.join(', ')})`,
        `  API key:   ${key} (kept in ${join(dataDir, DEV_KEY_FILE)})`,
        ...examplesBanner(examples),
        `  try:       curl -H "Authorization: Bearer ${key}" ${server.url}/v1/namespaces/dev/queues`,
        'Press Ctrl-C to stop.',
        '',
      ].join('\n'),
    );
  }
  await stopSignal;
  // The worker first: its running tasks complete while the server still answers.
  await examples?.stop();
  await server.stop();
  return 0;
}

function examplesBanner(examples: RunningExamples | undefined): string[] {
  if (examples === undefined) {
    return [];
  }
  const workflows = examples.workflows.map((w) => `${w.name} v${w.version}`).join(', ');
  return [
    `  examples:  ${workflows} published; its worker runs here (queues ${examples.queues.join(', ')})`,
    '             start orders with: node examples/start-orders.mjs',
  ];
}
