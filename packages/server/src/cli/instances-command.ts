/**
 * `weave instances start NAME --input JSON [--business-key K] [--version N]`, `weave instances get
 * ID` and `weave instances steps ID`: workflow instances on a running server, through the SDK
 * client (`--url`, `--namespace`, `--key` or WEAVE_*). Answers are printed as exact JSON.
 */
import { readFileSync } from 'node:fs';
import { parse, stringify } from '@weave/json';
import type { JsonInput } from '@weave/json';
import { parseCommand } from './options.js';
import { REMOTE_HELP, REMOTE_OPTIONS, remoteClient } from './remote-client.js';
import {
  SIGNAL_OPTIONS,
  idempotencyKeyOf,
  readPayload,
  readPayloadVersion,
} from './signals-command.js';

const HELP = `usage: weave instances start NAME --input JSON [--business-key KEY] [--version N] [--idempotency-key K]
       weave instances get ID
       weave instances steps ID
       weave instances signal ID NAME --payload JSON [--payload-version N] [--idempotency-key K]

  start    start an instance of the published workflow NAME; --input is JSON text or @file
  get      the current view of an instance
  steps    its steps with their status ($root hidden)
  signal   send signal NAME to this instance's waiting step (no correlation check)
${REMOTE_HELP}
Prints the answer as JSON (numbers exactly as stored). The key needs workflows:start
(start), workflows:read (get, steps) or workflows:signal (signal).`;

function print(value: unknown): number {
  process.stdout.write(`${stringify(value as JsonInput)}\n`);
  return 0;
}

export async function runInstances(argv: readonly string[]): Promise<number> {
  const { values, positionals } = parseCommand(argv, {
    help: { type: 'boolean', short: 'h' },
    input: { type: 'string' },
    'business-key': { type: 'string' },
    version: { type: 'string' },
    ...SIGNAL_OPTIONS,
    ...REMOTE_OPTIONS,
  });
  const [sub, target, signalName] = positionals;
  if (values.help === true || sub === undefined) {
    process.stdout.write(`${HELP}\n`);
    return values.help === true ? 0 : 2;
  }
  if (target === undefined) {
    throw new Error(
      `weave instances ${sub} needs ${sub === 'start' ? 'a workflow NAME' : 'an instance ID'}`,
    );
  }
  const client = remoteClient(values);
  if (sub === 'start') {
    const text = typeof values.input === 'string' ? values.input : '{}';
    const input = parse(text.startsWith('@') ? readFileSync(text.slice(1), 'utf8') : text);
    const versionText = typeof values.version === 'string' ? values.version : undefined;
    if (versionText !== undefined && !/^[1-9][0-9]{0,9}$/.test(versionText)) {
      throw new Error(`--version must be a version number (got ${versionText})`);
    }
    const version = versionText === undefined ? undefined : Number(versionText);
    const key = values['business-key'];
    const idempotencyKey = values['idempotency-key'];
    return print(
      await client.instances.start(
        target,
        {
          input,
          ...(typeof key === 'string' ? { business_key: key } : {}),
          ...(version === undefined ? {} : { version }),
        },
        typeof idempotencyKey === 'string' ? idempotencyKey : undefined,
      ),
    );
  }
  if (sub === 'get') {
    return print(await client.instances.get(target));
  }
  if (sub === 'steps') {
    return print(await client.instances.steps(target));
  }
  if (sub === 'signal') {
    if (signalName === undefined) {
      throw new Error('weave instances signal needs an instance ID and a signal NAME');
    }
    const version = readPayloadVersion(values['payload-version']);
    const body = {
      name: signalName,
      payload: readPayload(values.payload),
      ...(version === undefined ? {} : { payload_version: version }),
    };
    return print(await client.instances.signal(target, body, idempotencyKeyOf(values)));
  }
  throw new Error(`unknown subcommand ${sub} (start, get, steps, signal)`);
}
