/**
 * `weave workflows validate FILE` and `weave workflows simulate FILE --input JSON --results JSON`:
 * offline tools over the pure engine — no server, no database. `--input` and `--results` take
 * JSON text, or `@path` to read it from a file.
 */
import { readFileSync } from 'node:fs';
import { formatProblems, formatSimulation, simulate, validateDefinitionText } from '@weave/engine';
import { parseCommand } from './options.js';

const HELP = `usage: weave workflows validate FILE
       weave workflows simulate FILE [--input JSON] [--results JSON] [--limit N]

  validate   compile the definition and list every problem with its JSON path
  simulate   play planning rounds against made-up step results and print each round
             (results format: docs/definitions.md "Simulating"); JSON or @file

Run 'weave workflows validate --help' or 'weave workflows simulate --help' for details.`;

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
  process.stdout.write(`${HELP}\n`);
  return Promise.resolve(sub === undefined || sub === '--help' || sub === '-h' ? 0 : 2);
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
