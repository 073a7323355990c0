/**
 * `weave signals send NAME --correlation KEY --payload JSON [--payload-version N] [--ttl D]` and
 * `weave instances signal ID NAME --payload JSON [--payload-version N]`: workflow signals on a
 * running server, through the SDK client (`--url`, `--namespace`, `--key` or WEAVE_*). The
 * answer `{signal_id, matched, late, buffered_until?}` is printed as exact JSON.
 */
import { readFileSync } from 'node:fs';
import { parse, stringify } from '@weave/json';
import type { JsonInput, JsonValue } from '@weave/json';
import { parseCommand, printHelp, subcommandError } from './options.js';
import { REMOTE_HELP, REMOTE_OPTIONS, remoteClient } from './remote-client.js';

const HELP = `usage: weave signals send NAME --correlation KEY --payload JSON [--payload-version N] [--ttl DURATION] [--idempotency-key K]

  send     deliver signal NAME to every waiting step with this exact correlation key and
           payload version (default 1); --payload is JSON text or @file; --ttl (e.g. PT1H)
           keeps a signal that matched nothing for a wait created within it
${REMOTE_HELP}
Prints the answer as JSON. The key needs workflows:signal.`;

export const SIGNAL_OPTIONS = {
  payload: { type: 'string' },
  'payload-version': { type: 'string' },
  'idempotency-key': { type: 'string' },
} as const;

function print(value: unknown): number {
  process.stdout.write(`${stringify(value as JsonInput)}\n`);
  return 0;
}

export function readPayload(text: unknown): JsonValue {
  if (typeof text !== 'string') {
    throw new Error('--payload is required (JSON text or @file)');
  }
  return parse(text.startsWith('@') ? readFileSync(text.slice(1), 'utf8') : text);
}

export function readPayloadVersion(text: unknown): number | undefined {
  if (text === undefined) {
    return undefined;
  }
  if (typeof text !== 'string') {
    throw new Error('--payload-version needs a value');
  }
  if (!/^[1-9][0-9]{0,9}$/.test(text)) {
    throw new Error(`--payload-version must be an integer ≥ 1 (got ${text})`);
  }
  return Number(text);
}

export function idempotencyKeyOf(values: Record<string, unknown>): string | undefined {
  const key = values['idempotency-key'];
  return typeof key === 'string' ? key : undefined;
}

export async function runSignals(argv: readonly string[]): Promise<number> {
  const { values, positionals } = parseCommand(argv, {
    help: { type: 'boolean', short: 'h' },
    correlation: { type: 'string' },
    ttl: { type: 'string' },
    ...SIGNAL_OPTIONS,
    ...REMOTE_OPTIONS,
  });
  const [sub, name] = positionals;
  if (values.help === true) {
    return printHelp(HELP);
  }
  const unknown = subcommandError('signals', sub, ['send'], HELP);
  if (unknown !== undefined) {
    return unknown;
  }
  if (name === undefined || typeof values.correlation !== 'string') {
    throw new Error('weave signals send needs a signal NAME and --correlation KEY');
  }
  const version = readPayloadVersion(values['payload-version']);
  const client = remoteClient(values);
  return print(
    await client.signals.send(
      {
        name,
        correlation_key: values.correlation,
        payload: readPayload(values.payload),
        ...(version === undefined ? {} : { payload_version: version }),
        ...(typeof values.ttl === 'string' ? { ttl: values.ttl } : {}),
      },
      idempotencyKeyOf(values),
    ),
  );
}
