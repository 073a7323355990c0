/** `weave server --db … [--port N] [--host H]`: the production server. */
import { parseDuration } from '../http/durations.js';
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
  --max-active-instances N
              active workflow instances allowed per namespace, 1 to 10000 (default 10000)
              [WEAVE_MAX_ACTIVE_INSTANCES]
  --max-signal-ttl DURATION
              the longest buffer window a signal may ask for, e.g. PT1H (default P1D)
              [WEAVE_MAX_SIGNAL_TTL]
Logs are JSON lines on stdout at WEAVE_LOG_LEVEL (default info). GET /metrics needs no key;
with WEAVE_METRICS_TOKEN set it needs 'Authorization: Bearer <that token>'.`;

export async function runServer(argv: readonly string[]): Promise<number> {
  const { values } = parseCommand(argv, {
    help: { type: 'boolean', short: 'h' },
    db: { type: 'string' },
    port: { type: 'string' },
    host: { type: 'string' },
    'webhook-allow': { type: 'string' },
    'max-active-instances': { type: 'string' },
    'max-signal-ttl': { type: 'string' },
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
  const maxActiveInstances = readMaxActive(
    (values['max-active-instances'] as string | undefined) ??
      process.env.WEAVE_MAX_ACTIVE_INSTANCES,
  );
  const maxSignalTtlMs = readMaxSignalTtl(
    (values['max-signal-ttl'] as string | undefined) ?? process.env.WEAVE_MAX_SIGNAL_TTL,
  );
  const server = await Server.start({
    db: readDb(values.db as string | undefined),
    port,
    host: readHost(values.host as string | undefined),
    logLevel: readLogLevel(),
    webhookAllow: readWebhookAllow(values['webhook-allow'] as string | undefined),
    ...(metricsToken === undefined || metricsToken === '' ? {} : { metricsToken }),
    ...(maxActiveInstances === undefined ? {} : { maxActiveInstances }),
    ...(maxSignalTtlMs === undefined ? {} : { maxSignalTtlMs }),
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

/** seed 002 §4: at most 10,000 active instances per namespace; lower is allowed. */
function readMaxActive(text: string | undefined): number | undefined {
  if (text === undefined || text === '') {
    return undefined;
  }
  const n = /^[1-9][0-9]{0,4}$/.test(text) ? Number(text) : NaN;
  if (!(n >= 1 && n <= 10_000)) {
    throw new Error(`--max-active-instances must be an integer from 1 to 10000 (got ${text})`);
  }
  return n;
}

function readMaxSignalTtl(text: string | undefined): number | undefined {
  if (text === undefined || text === '') {
    return undefined;
  }
  const micros = parseDuration(text);
  if (micros === undefined) {
    throw new Error(`--max-signal-ttl must be an ISO 8601 duration such as PT1H (got ${text})`);
  }
  return Number(micros / 1000n);
}
