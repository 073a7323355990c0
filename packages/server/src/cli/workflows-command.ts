/**
 * `weave workflows validate FILE` and `weave workflows simulate FILE --input JSON --results JSON`:
 * offline tools over the pure engine — no server, no database. `--input` and `--results` take
 * JSON text, or `@path` to read it from a file.
 */
import { readFileSync } from 'node:fs';
import { formatProblems, formatSimulation, simulate, validateDefinitionText } from '@weave/engine';
import { parse, stringify } from '@weave/json';
import { isWeaveApiError } from '@weave/sdk';
import { parseCommand, printHelp, subcommandError } from './options.js';
import { REMOTE_HELP, REMOTE_OPTIONS, remoteClient } from './remote-client.js';

const HELP = `usage: weave workflows validate FILE
       weave workflows simulate FILE [--input JSON] [--results JSON] [--limit N]
       weave workflows publish FILE [--url URL] [--namespace NS] [--key KEY] [--json]

  validate   compile the definition and list every problem with its JSON path
  publish    publish the definition to a server as a new version (the same source again:
             the version that holds it)
  simulate   play planning rounds against made-up step results and print each round
             (results format: docs/definitions.md "Simulating"); JSON or @file

Run 'weave workflows validate --help', 'simulate --help' or 'publish --help' for details.`;

const PUBLISH_HELP = `usage: weave workflows publish FILE [--url URL] [--namespace NS] [--key KEY] [--json] [--help]

  FILE             a workflow definition (JSON); numbers are sent with their exact text
${REMOTE_HELP}
  --json           print the server's answer as JSON
Prints the workflow and version published (or already holding this source); on problems, one
line per problem with its JSON path, and exit status 1. The key needs workflows:publish.`;

const VALIDATE_HELP = `usage: weave workflows validate FILE [--help]

  FILE        a workflow definition (JSON); it is compiled offline, and every problem is
              listed with its JSON path
Exit status 0 when it compiles, 1 when it has problems.`;

const SIMULATE_HELP = `usage: weave workflows simulate FILE [--input JSON] [--results JSON] [--limit N] [--help]

  FILE            a workflow definition (JSON)
  --input JSON    the instance input (default {}); JSON text, or @path to read a file
  --results JSON  made-up step results by step id (default {}; docs/definitions.md
                  "Simulating"); JSON text, or @path to read a file
  --limit N       at most N decisions per planning round (1 to 32, default 32)
Prints each planning round down to the instance outcome; exit status 1 when the definition,
input or results have problems.`;

export function runWorkflows(argv: readonly string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === 'validate') {
    return Promise.resolve(validate(rest));
  }
  if (sub === 'simulate') {
    return Promise.resolve(runSimulate(rest));
  }
  if (sub === 'publish') {
    return runPublish(rest);
  }
  if (sub === '--help' || sub === '-h') {
    return Promise.resolve(printHelp(HELP));
  }
  return Promise.resolve(
    subcommandError('workflows', sub, ['validate', 'simulate', 'publish'], HELP) ?? 2,
  );
}

function readArgument(value: string): string {
  return value.startsWith('@') ? readFileSync(value.slice(1), 'utf8') : value;
}

function fileArgument(positionals: readonly string[]): string {
  const [file] = positionals;
  if (file === undefined) {
    throw new Error('a definition FILE is required');
  }
  return readFileSync(file, 'utf8');
}

function validate(argv: readonly string[]): number {
  const { values, positionals } = parseCommand(argv, { help: { type: 'boolean', short: 'h' } });
  if (values.help === true) {
    process.stdout.write(`${VALIDATE_HELP}\n`);
    return 0;
  }
  const result = validateDefinitionText(fileArgument(positionals));
  if (result.ok) {
    process.stdout.write(`ok: ${result.program.name} (${result.program.stepCount} steps)\n`);
    return 0;
  }
  process.stdout.write(`${formatProblems(result.problems).join('\n')}\n`);
  process.stderr.write(`weave workflows validate: ${result.problems.length} problem(s)\n`);
  return 1;
}

function runSimulate(argv: readonly string[]): number {
  const { values, positionals } = parseCommand(argv, {
    help: { type: 'boolean', short: 'h' },
    input: { type: 'string' },
    results: { type: 'string' },
    limit: { type: 'string' },
  });
  if (values.help === true) {
    process.stdout.write(`${SIMULATE_HELP}\n`);
    return 0;
  }
  const limit = values.limit === undefined ? undefined : Number(values.limit);
  if (limit !== undefined && !(Number.isInteger(limit) && limit >= 1 && limit <= 32)) {
    throw new Error('--limit must be an integer from 1 to 32');
  }
  const simulation = simulate({
    definitionText: fileArgument(positionals),
    inputText: readArgument(typeof values.input === 'string' ? values.input : '{}'),
    resultsText: readArgument(typeof values.results === 'string' ? values.results : '{}'),
    ...(limit === undefined ? {} : { limit }),
  });
  process.stdout.write(`${formatSimulation(simulation).join('\n')}\n`);
  if (!simulation.ok) {
    process.stderr.write(`weave workflows simulate: the ${simulation.stage} has problems\n`);
    return 1;
  }
  return 0;
}

async function runPublish(argv: readonly string[]): Promise<number> {
  const { values, positionals } = parseCommand(argv, {
    help: { type: 'boolean', short: 'h' },
    json: { type: 'boolean' },
    ...REMOTE_OPTIONS,
  });
  if (values.help === true) {
    process.stdout.write(`${PUBLISH_HELP}\n`);
    return 0;
  }
  const definition = parse(fileArgument(positionals));
  const client = remoteClient(values);
  try {
    const answer = await client.workflows.publish(definition);
    const line = answer.created
      ? `published ${answer.workflow} version ${answer.version} (sha256 ${answer.digest})`
      : `unchanged: ${answer.workflow} version ${answer.version} already holds this source`;
    process.stdout.write(`${values.json === true ? stringify(answer) : line}\n`);
    return 0;
  } catch (e: unknown) {
    const problems = isWeaveApiError(e) ? e.details.problems : undefined;
    if (!Array.isArray(problems)) {
      throw e;
    }
    for (const p of problems as { path: string; code: string; message: string }[]) {
      process.stdout.write(`${p.path}: ${p.code}: ${p.message}\n`);
    }
    process.stderr.write(`weave workflows publish: ${problems.length} problem(s)\n`);
    return 1;
  }
}
