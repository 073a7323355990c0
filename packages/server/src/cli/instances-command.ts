/**
 * `weave instances start NAME [--input JSON] [--business-key K] [--version N]`,
 * `weave instances get ID`, `weave instances steps ID`, `weave instances list [filters]`,
 * `weave instances history ID`, `weave instances signal ID NAME`,
 * `weave instances pause|resume|cancel ID` (controls) and
 * `weave instances retry|resolve|fail ID STEP --reason …` (manual recovery): workflow instances
 * on a running server, through the SDK client (`--url`, `--namespace`, `--key` or WEAVE_*).
 * Answers are printed as exact JSON; with `--all`, list and history print every item of every
 * page, one JSON object a line.
 */
import { readFileSync } from 'node:fs';
import { parse, stringify } from '@weave/json';
import type { JsonInput } from '@weave/json';
import type { InstanceListFilter, WeaveClient } from '@weave/sdk';
import type { ParsedCommand } from './options.js';
import { parseCommand, printHelp, subcommandError } from './options.js';
import { REMOTE_HELP, REMOTE_OPTIONS, remoteClient } from './remote-client.js';
import {
  SIGNAL_OPTIONS,
  idempotencyKeyOf,
  readPayload,
  readPayloadVersion,
} from './signals-command.js';

const HELP = `usage: weave instances start NAME [--input JSON] [--business-key KEY] [--version N] [--idempotency-key K]
       weave instances get ID
       weave instances steps ID
       weave instances list [--workflow NAME [--version N]] [--status S[,S…]] [--business-key KEY]
                            [--created-after T] [--created-before T] [--page-size N] [--page-token T] [--all]
       weave instances history ID [--after SEQ] [--limit N] [--all]
       weave instances signal ID NAME --payload JSON [--payload-version N] [--idempotency-key K]
       weave instances pause|resume|cancel ID [--reason TEXT] [--expected-revision R] [--idempotency-key K]
       weave instances retry ID STEP --reason TEXT [--input JSON] [--expected-revision R] [--idempotency-key K]
       weave instances resolve ID STEP --reason TEXT --output JSON [--expected-revision R] [--idempotency-key K]
       weave instances fail ID STEP --reason TEXT --error-code CODE [--error-message TEXT] [--expected-revision R] [--idempotency-key K]

  start    start an instance of the published workflow NAME; --input is JSON text or @file
           (default {})
  get      the current view of an instance
  steps    its steps with their status ($root hidden)
  list     instances newest first (no input or output); T is RFC 3339, e.g. 2026-11-29T20:30:00Z
  history  an instance's events in order, from after SEQ (default 0)
  --all    list/history: read every page and print one JSON object a line
  signal   send signal NAME to this instance's waiting step (no correlation check)
  pause    no new work starts until resume (work in flight runs on, its results are recorded)
  resume   continue a paused instance (it plans at once)
  cancel   CANCELLING until the work in flight settles, then CANCELLED
  retry    run a FAILED or NEEDS_REVIEW TASK/POLL step (or wait for a timed-out SIGNAL) again as a
           new activation (--input: a corrected input, JSON text or @file); a FAILED
           instance is RUNNING again
  resolve  settle a FAILED or NEEDS_REVIEW TASK/POLL/SIGNAL step with --output
  fail     fail a NEEDS_REVIEW TASK/POLL step with --error-code
${REMOTE_HELP}
Prints the answer as JSON (numbers exactly as stored). The key needs workflows:start
(start), workflows:read (get, steps, list, history), workflows:signal (signal) or
workflows:control (pause, resume, cancel, retry, resolve, fail).`;

function jsonOption(text: string): ReturnType<typeof parse> {
  return parse(text.startsWith('@') ? readFileSync(text.slice(1), 'utf8') : text);
}

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
    reason: { type: 'string' },
    output: { type: 'string' },
    'error-code': { type: 'string' },
    'error-message': { type: 'string' },
    'expected-revision': { type: 'string' },
    ...SIGNAL_OPTIONS,
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
  const [sub, target, stepId] = positionals;
  if (values.help === true) {
    return printHelp(HELP);
  }
  const unknown = subcommandError('instances', sub, SUBCOMMANDS, HELP);
  if (unknown !== undefined) {
    return unknown;
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
  if (sub === 'pause' || sub === 'resume' || sub === 'cancel') {
    const reason = values.reason;
    const revision = values['expected-revision'];
    const options = {
      ...(typeof reason === 'string' ? { reason } : {}),
      ...(typeof revision === 'string' ? { expected_revision: revision } : {}),
    };
    const idempotencyKey = values['idempotency-key'];
    const key = typeof idempotencyKey === 'string' ? idempotencyKey : undefined;
    return print(await client.instances[sub](target, options, key));
  }
  if (sub === 'retry' || sub === 'resolve' || sub === 'fail') {
    if (stepId === undefined) {
      throw new Error(`weave instances ${sub} needs an instance ID and a STEP id`);
    }
    const reason = values.reason;
    if (typeof reason !== 'string') {
      throw new Error(`weave instances ${sub} needs --reason (it is audited)`);
    }
    const revision = values['expected-revision'];
    const common = {
      reason,
      ...(typeof revision === 'string' ? { expected_revision: revision } : {}),
    };
    const idempotencyKey = values['idempotency-key'];
    const key = typeof idempotencyKey === 'string' ? idempotencyKey : undefined;
    if (sub === 'retry') {
      const input = typeof values.input === 'string' ? { input: jsonOption(values.input) } : {};
      return print(await client.instances.retry(target, stepId, { ...common, ...input }, key));
    }
    if (sub === 'resolve') {
      if (typeof values.output !== 'string') {
        throw new Error('weave instances resolve needs --output JSON');
      }
      const output = jsonOption(values.output);
      return print(await client.instances.resolve(target, stepId, { ...common, output }, key));
    }
    const code = values['error-code'];
    if (typeof code !== 'string') {
      throw new Error('weave instances fail needs --error-code CODE');
    }
    const message = values['error-message'];
    const error = { code, ...(typeof message === 'string' ? { message } : {}) };
    return print(await client.instances.fail(target, stepId, { ...common, error }, key));
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
  if (sub === 'signal') {
    const signalName = stepId;
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
  // Unreachable: SUBCOMMANDS was checked above.
  throw new Error(`unhandled subcommand ${sub ?? ''}`);
}

const SUBCOMMANDS = [
  'start',
  'get',
  'steps',
  'list',
  'history',
  'signal',
  'pause',
  'resume',
  'cancel',
  'retry',
  'resolve',
  'fail',
];

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
