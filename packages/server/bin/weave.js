#!/usr/bin/env node
// The `weave` command. Builds the TypeScript sources once if this checkout has not been built.
import { existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const main = new URL('../build/src/cli/main.js', import.meta.url);
if (!existsSync(fileURLToPath(main))) {
  const root = fileURLToPath(new URL('../../../', import.meta.url));
  const built = spawnSync('npm', ['run', 'build'], {
    cwd: root,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  if (built.status !== 0) {
    console.error('weave: the build failed; run `npm run build` to see why');
    process.exit(1);
  }
}
const { runCli } = await import(main.href);
process.exitCode = await runCli(process.argv.slice(2));
