/**
 * The `weave` command (API.md "CLI contract"). Exit status 0 on success; otherwise a one-line
 * reason on stderr and a non-zero status.
 */
import { WeaveError } from '../errors.js';
import { runBootstrap } from './bootstrap-command.js';
import { runDev } from './dev-command.js';
import { runMigrate } from './migrate-command.js';
import { printHelp, usageError } from './options.js';
import { runServer } from './server-command.js';
import { runWorkflows } from './workflows-command.js';
import { runInstances } from './instances-command.js';
import { runOperations } from './operations-command.js';
import { runSignals } from './signals-command.js';
import { VERSION } from '../version.js';

const USAGE = `usage: weave <command> [options]

commands:
  dev        run a server on an embedded SQLite database, with a ready API key
  server     run a server (--db mysql://… or a SQLite path)
  migrate    apply database migrations (--db …) [--print]
  bootstrap  create a namespace, application, queues and a credential (--db … --namespace …)
  workflows  validate FILE | simulate FILE … (offline) | publish FILE (to a server)
  instances  start NAME --input JSON | get ID | steps ID | signal ID NAME --payload JSON (on a server)
  signals    send NAME --correlation KEY --payload JSON (on a server)
  operations start cancel|pause|resume|retry_failed [filter] | get ID | list (bulk, on a server)
  version    print the version

Run 'weave <command> --help' for the options of a command.`;

export async function runCli(argv: readonly string[]): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'dev':
        return await runDev(rest);
      case 'server':
        return await runServer(rest);
      case 'migrate':
        return await runMigrate(rest);
      case 'bootstrap':
        return await runBootstrap(rest);
      case 'workflows':
        return await runWorkflows(rest);
      case 'instances':
        return await runInstances(rest);
      case 'signals':
        return await runSignals(rest);
      case 'operations':
        return await runOperations(rest);
      case 'version':
      case '--version':
        process.stdout.write(`weave ${VERSION}\n`);
        return 0;
      case undefined:
        return usageError('weave: a command is needed', USAGE);
      case 'help':
      case '--help':
      case '-h':
        return printHelp(USAGE);
      default:
        return usageError(`weave: unknown command ${command}`, USAGE);
    }
  } catch (e: unknown) {
    process.stderr.write(`weave ${command}: ${oneLine(e)}\n`);
    return 1;
  }
}

function oneLine(e: unknown): string {
  if (e instanceof WeaveError || e instanceof Error) {
    return e.message.replace(/\s+/g, ' ');
  }
  return String(e);
}
