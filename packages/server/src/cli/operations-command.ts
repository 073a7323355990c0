/**
 * `weave operations start ACTION [filter options] [--reason R] [--wait]`, `weave operations get
 * ID`, `weave operations list`: bulk instance operations on a running server (issue 12 Deliver
 * 5, docs/runtime.md "Bulk operations"), through the SDK client (`--url`, `--namespace`, `--key`
 * or WEAVE_*). The answer is printed as exact JSON.
 */
import { stringify } from '@weave/json';
import type { JsonInput } from '@weave/json';
import type { CreateOperationOptions } from '@weave/sdk';
import { operations } from '@weave/sdk/protocol';
import { parseCommand, printHelp, subcommandError } from './options.js';
import { REMOTE_HELP, REMOTE_OPTIONS, remoteClient } from './remote-client.js';
import { idempotencyKeyOf } from './signals-command.js';

const HELP = `usage: weave operations start ACTION [--workflow W] [--version N] [--status S[,S…]]
                              [--business-key K] [--created-after T] [--created-before T]
                              [--reason R] [--idempotency-key K] [--wait]
       weave operations get ID
       weave operations list [--page-size N] [--page-token T]

  start    ACTION is cancel, pause, resume or retry_failed, for every instance matching the
           filter (the filter of 'GET /instances'; no filter option: every instance); with
           --wait, polls until the operation is no longer RUNNING and prints it then
  get      the operation's progress: status, matched, done, failed, skipped
  list     the namespace's operations, newest first
${REMOTE_HELP}
Prints the answer as JSON. The key needs workflows:control.`;

function print(value: unknown): number {
  process.stdout.write(`${stringify(value as JsonInput)}\n`);
  return 0;
}

function isAction(value: string): value is CreateOperationOptions['action'] {
  return (operations.OPERATION_ACTIONS as readonly string[]).includes(value);
}

function filterOf(values: Record<string, unknown>): CreateOperationOptions['filter'] {
  const text = (key: string) => (typeof values[key] === 'string' ? values[key] : undefined);
  const version = text('version');
  if (version !== undefined && !/^[1-9][0-9]{0,8}$/.test(version)) {
    throw new Error(`--version must be an integer ≥ 1 (got ${version})`);
  }
  const entries = {
    workflow: text('workflow'),
    version: version === undefined ? undefined : Number(version),
    status: text('status'),
    business_key: text('business-key'),
    created_after: text('created-after'),
    created_before: text('created-before'),
  };
  return Object.fromEntries(Object.entries(entries).filter(([, v]) => v !== undefined));
}

const SUBCOMMANDS = ['start', 'get', 'list'];

export async function runOperations(argv: readonly string[]): Promise<number> {
  const { values, positionals } = parseCommand(argv, {
    help: { type: 'boolean', short: 'h' },
    workflow: { type: 'string' },
    version: { type: 'string' },
    status: { type: 'string' },
    'business-key': { type: 'string' },
    'created-after': { type: 'string' },
    'created-before': { type: 'string' },
    reason: { type: 'string' },
    wait: { type: 'boolean' },
    'idempotency-key': { type: 'string' },
    'page-size': { type: 'string' },
    'page-token': { type: 'string' },
    ...REMOTE_OPTIONS,
  });
  const [sub, arg] = positionals;
  if (values.help === true) {
    return printHelp(HELP);
  }
  const unknown = subcommandError('operations', sub, SUBCOMMANDS, HELP);
  if (unknown !== undefined) {
    return unknown;
  }
  const client = remoteClient(values);
  switch (sub) {
    case 'start': {
      if (arg === undefined || !isAction(arg)) {
        throw new Error(
          `weave operations start needs an ACTION (${operations.OPERATION_ACTIONS.join(', ')})`,
        );
      }
      const { operation } = await client.operations.create(
        {
          action: arg,
          filter: filterOf(values),
          ...(typeof values.reason === 'string' ? { reason: values.reason } : {}),
        },
        idempotencyKeyOf(values),
      );
      return print(
        values.wait === true
          ? { operation: await client.operations.wait(operation.id) }
          : { operation },
      );
    }
    case 'get':
      if (arg === undefined) {
        throw new Error('weave operations get needs an operation ID');
      }
      return print(await client.operations.get(arg));
    case 'list': {
      const size = values['page-size'];
      const token = values['page-token'];
      return print(
        await client.operations.list({
          ...(typeof size === 'string' ? { page_size: Number(size) } : {}),
          ...(typeof token === 'string' ? { page_token: token } : {}),
        }),
      );
    }
    default:
      // Unreachable: SUBCOMMANDS was checked above.
      throw new Error(`unhandled subcommand ${sub}`);
  }
}
