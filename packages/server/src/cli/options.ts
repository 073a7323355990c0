/** Shared option parsing: flags win over environment variables (documented in docs/operations.md). */
import { parseArgs } from 'node:util';
import type { ParseArgsConfig } from 'node:util';

type OptionsConfig = NonNullable<ParseArgsConfig['options']>;

export interface ParsedCommand {
  readonly values: Readonly<Record<string, string | boolean | (string | boolean)[] | undefined>>;
  readonly positionals: readonly string[];
}

/** Strict parsing: an unknown flag is an error, not ignored. Every command has `--help`. */
export function parseCommand(argv: readonly string[], options: OptionsConfig): ParsedCommand {
  return parseArgs({ args: [...argv], options, allowPositionals: true, strict: true });
}

export function readPort(value: string | undefined, fallback: number): number {
  const text = value ?? process.env.WEAVE_PORT;
  if (text === undefined) {
    return fallback;
  }
  const port = Number(text);
  if (!/^[0-9]{1,5}$/.test(text) || port > 65535) {
    throw new Error(`--port must be an integer from 0 to 65535 (got ${text})`);
  }
  return port;
}

/**
 * A listen error as the one-line reason a user can act on: the port is taken or privileged, so
 * name it and the option that changes it. Anything else passes through unchanged.
 */
export function explainListenError(error: unknown, port: number): unknown {
  const code =
    typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  if (code === 'EADDRINUSE') {
    return new Error(
      `port ${port} is in use (EADDRINUSE); choose another with --port (or WEAVE_PORT)`,
      { cause: error },
    );
  }
  if (code === 'EACCES') {
    return new Error(
      `port ${port} needs privileges this process lacks (EACCES); choose another with --port`,
      { cause: error },
    );
  }
  return error;
}

export function readDb(value: string | undefined): string {
  const db = value ?? process.env.WEAVE_DB;
  if (db === undefined || db === '') {
    throw new Error(
      '--db is required (or set WEAVE_DB): mysql://user@host:3306/name or a SQLite file path',
    );
  }
  return db;
}

export function readHost(value: string | undefined): string {
  return value ?? process.env.WEAVE_HOST ?? '127.0.0.1';
}

/**
 * `--webhook-allow` / `WEAVE_WEBHOOK_ALLOW`: comma-separated CIDRs, addresses and host names that
 * webhooks may reach although private or loopback (docs/webhooks.md "Allow-list").
 */
export function readWebhookAllow(value: string | undefined): string[] {
  const text = value ?? process.env.WEAVE_WEBHOOK_ALLOW ?? '';
  return text
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
}

export function readLogLevel(): string {
  return process.env.WEAVE_LOG_LEVEL ?? 'info';
}

/** Resolves when the process is asked to stop (SIGINT or SIGTERM). */
export function untilSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const done = (signal: NodeJS.Signals) => {
      process.off('SIGINT', done);
      process.off('SIGTERM', done);
      resolve(signal);
    };
    process.on('SIGINT', done);
    process.on('SIGTERM', done);
  });
}

/** `--help`: the usage on stdout, exit 0. */
export function printHelp(help: string): number {
  process.stdout.write(`${help}\n`);
  return 0;
}

/**
 * A usage error (no command, an unknown one, no subcommand or an unknown one): one line naming
 * it, then the usage, both on stderr; exit 2. Any other failure is one line and exit 1.
 */
export function usageError(line: string, help: string): number {
  process.stderr.write(`${line}\n${help}\n`);
  return 2;
}

/** The usage error for a missing or unknown subcommand of `weave COMMAND`, or undefined. */
export function subcommandError(
  command: string,
  sub: string | undefined,
  known: readonly string[],
  help: string,
): number | undefined {
  if (sub === undefined) {
    return usageError(`weave ${command}: a subcommand is needed (${known.join(', ')})`, help);
  }
  if (!known.includes(sub)) {
    return usageError(`weave ${command}: unknown subcommand ${sub} (${known.join(', ')})`, help);
  }
  return undefined;
}
