/**
 * `weave instances start NAME --input JSON [--business-key K] [--version N]`, `weave instances get
 * ID`, `weave instances steps ID`, `weave instances list [filters]` and `weave instances history
 * ID`: workflow instances on a running server, through the SDK client (`--url`, `--namespace`,
 * `--key` or WEAVE_*). Answers are printed as exact JSON; with `--all`, list and history print
 * every item of every page, one JSON object a line.
 */
import { readFileSync } from 'node:fs';
import { parse, stringify } from '@weave/json';
import type { JsonInput } from '@weave/json';
import type { InstanceListFilter, WeaveClient } from '@weave/sdk';
import type { ParsedCommand } from './options.js';
import { parseCommand } from './options.js';
import { REMOTE_HELP, REMOTE_OPTIONS, remoteClient } from './remote-client.js';

const HELP = `usage: weave instances start NAME --input JSON [--business-key KEY] [--version N] [--idempotency-key K]
       weave instances get ID
       weave instances steps ID
       weave instances list [--workflow NAME [--version N]] [--status S[,S…]] [--business-key KEY]
                            [--created-after T] [--created-before T] [--page-size N] [--page-token T] [--all]
       weave instances history ID [--after SEQ] [--limit N] [--all]

  start    start an instance of the published workflow NAME; --input is JSON text or @file
  get      the current view of an instance
  steps    its steps with their status ($root hidden)
  list     instances newest first (no input or output); T is RFC 3339, e.g. 2026-11-29T20:30:00Z
  history  an instance's events in order, from after SEQ (default 0)
  --all    list/history: read every page and print one JSON object a line
${REMOTE_HELP}
Prints the answer as JSON (numbers exactly as stored). The key needs workflows:start
(start) or workflows:read (get, steps, list, history).`;

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
    'idempotency-key': { type: 'string' },
    workflow: { type: 'string' },
    status: { type: 'string' },
    'created-after': { type: 'string' },
    'created-before': { type: 'string' },
    'page-size': { type: 'string' },
    'page-token': { type: 'string' },
    after: { type: 'string' },
    limit: { type: 'string' },
    all: { type: 'boolean' },
    ...REMOTE_OPTIONS,
  });
  const [sub, target] = positionals;
  if (values.help === true || sub === undefined) {
    process.stdout.write(`${HELP}\n`);
    return values.help === true ? 0 : 2;
  }
  if (sub === 'list') {
    return list(remoteClient(values), { values, positionals });
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
  if (sub === 'history') {
    return history(client, target, values);
  }
  throw new Error(`unknown subcommand ${sub} (start, get, steps, list, history)`);
}

type Values = ParsedCommand['values'];

function stringOption(values: Values, name: string): string | undefined {
  const value = values[name];
  return typeof value === 'string' ? value : undefined;
}

/** A positive integer option, checked here so the message names the flag. */
function countOption(values: Values, name: string): number | undefined {
  const text = stringOption(values, name);
  if (text !== undefined && !/^[1-9][0-9]{0,8}$/.test(text)) {
    throw new Error(`--${name} must be a positive integer (got ${text})`);
  }
  return text === undefined ? undefined : Number(text);
}

function listFilter(values: Values): InstanceListFilter {
  const entries: [keyof InstanceListFilter, string | number | undefined][] = [
    ['workflow', stringOption(values, 'workflow')],
    ['version', countOption(values, 'version')],
    ['status', stringOption(values, 'status')],
    ['business_key', stringOption(values, 'business-key')],
    ['created_after', stringOption(values, 'created-after')],
    ['created_before', stringOption(values, 'created-before')],
    ['page_size', countOption(values, 'page-size')],
    ['page_token', stringOption(values, 'page-token')],
  ];
  return Object.fromEntries(entries.filter(([, v]) => v !== undefined));
}

async function list(client: WeaveClient, { values, positionals }: ParsedCommand): Promise<number> {
  if (positionals.length > 1) {
    throw new Error(`weave instances list takes no ID (got ${positionals[1] ?? ''})`);
  }
  const filter = listFilter(values);
  if (values.all !== true) {
    return print(await client.instances.list(filter));
  }
  for await (const instance of client.instances.listAll(filter)) {
    print(instance);
  }
  return 0;
}

async function history(client: WeaveClient, id: string, values: Values): Promise<number> {
  const after = stringOption(values, 'after');
  if (after !== undefined && !/^[0-9]{1,19}$/.test(after)) {
    throw new Error(`--after must be a history seq (got ${after})`);
  }
  const limit = countOption(values, 'limit');
  const options = { ...(limit === undefined ? {} : { limit }) };
  if (values.all !== true) {
    return print(
      await client.instances.history(id, { ...options, ...(after === undefined ? {} : { after }) }),
    );
  }
  let cursor = after ?? '0';
  for (;;) {
    const page = await client.instances.history(id, { ...options, after: cursor });
    if (page.events.length === 0) {
      return 0;
    }
    page.events.forEach(print);
    cursor = page.next_after;
  }
}
