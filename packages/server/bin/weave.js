#!/usr/bin/env node
// The `weave` command. Builds this checkout once if it has not been built: the TypeScript
// sources, and the web console (packages/console → build/console, docs/console.md).
import { existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const main = new URL('../build/src/cli/main.js', import.meta.url);
const consoleIndex = new URL('../build/console/index.html', import.meta.url);
// A published package ships build/ (files); only a checkout has packages/console to build from.
const checkout = existsSync(fileURLToPath(new URL('../../console/package.json', import.meta.url)));
const missing =
  !existsSync(fileURLToPath(main)) || (checkout && !existsSync(fileURLToPath(consoleIndex)));
if (missing) {
  const root = fileURLToPath(new URL('../../../', import.meta.url));
  // The build's output goes to stderr: stdout is the command's own (`weave dev --json` prints
  // exactly one line there).
  const built = spawnSync('npm', ['run', 'build'], { cwd: root, stdio: ['ignore', 2, 2] });
  if (built.status !== 0) {
    console.error('weave: the build failed; run `npm run build` to see why');
    process.exit(1);
  }
}
const { runCli } = await import(main.href);
process.exitCode = await runCli(process.argv.slice(2));
