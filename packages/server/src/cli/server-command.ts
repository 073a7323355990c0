/** `weave server --db … [--port N] [--host H]`: the production server. */
import { Server } from '../server.js';
import {
  explainListenError,
  parseCommand,
  readDb,
  readHost,
  readLogLevel,
  readPort,
  readWebhookAllow,
  untilSignal,
} from './options.js';

const HELP = `usage: weave server --db <mysql://user:pass@host:3306/db | path.sqlite> [--port N] [--host H]

  --db URL    the database [WEAVE_DB]
  --port N    port (default 8420; 0 picks a free port) [WEAVE_PORT]
  --host H    address (default 127.0.0.1; 0.0.0.0 for all) [WEAVE_HOST]
  --webhook-allow LIST
              CIDRs, addresses or host names webhooks may reach although private or
              loopback, comma-separated (default: none) [WEAVE_WEBHOOK_ALLOW]
Logs are JSON lines on stdout at WEAVE_LOG_LEVEL (default info). GET /metrics needs no key;
with WEAVE_METRICS_TOKEN set it needs 'Authorization: Bearer <that token>'.`;

export async function runServer(argv: readonly string[]): Promise<number> {
  const { values } = parseCommand(argv, {
    help: { type: 'boolean', short: 'h' },
    db: { type: 'string' },
    port: { type: 'string' },
    host: { type: 'string' },
    'webhook-allow': { type: 'string' },
  });
  if (values.help === true) {
    process.stdout.write(`${HELP}\n`);
    return 0;
  }
  const port = readPort(values.port as string | undefined, 8420);
  // From the environment only, so the token stays out of `ps` (as WEAVE_DB's password does).
  const metricsToken = process.env.WEAVE_METRICS_TOKEN;
  if (
    metricsToken !== undefined &&
    metricsToken !== '' &&
    !/^[\x21-\x7e]{16,200}$/.test(metricsToken)
  ) {
    throw new Error('WEAVE_METRICS_TOKEN must be 16 to 200 printable ASCII characters, no spaces');
  }
  const server = await Server.start({
    db: readDb(values.db as string | undefined),
    port,
    host: readHost(values.host as string | undefined),
    logLevel: readLogLevel(),
    webhookAllow: readWebhookAllow(values['webhook-allow'] as string | undefined),
    ...(metricsToken === undefined || metricsToken === '' ? {} : { metricsToken }),
  }).catch((e: unknown) => {
    throw explainListenError(e, port);
  });
  // Listen for the signal before saying "listening": a supervisor may stop us right after.
  const stopSignal = untilSignal();
  process.stderr.write(
    `weave server listening at ${server.url} (${server.database.description})\n`,
  );
  await stopSignal;
  await server.stop();
  return 0;
}
