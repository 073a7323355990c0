#!/usr/bin/env node
// Runs every compiled test file (`*.test.js` under packages/*/build/test) with Node's own runner,
// in one `node --test` process tree so that CI reads one summary. Extra arguments are passed on
// (e.g. `npm test -- --test-name-pattern=E1`). The files are listed one by one: given a folder,
// Node 20 would also run every other `.js` file below a `test` folder (worker and sender scripts
// that tests start as child processes).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Every `*.test.js` below `dir`, sorted. */
function testFiles(dir) {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.test.js'))
    .map((entry) => join(entry.parentPath ?? entry.path, entry.name))
    .sort();
}

const root = new URL('..', import.meta.url).pathname;
const dirs = readdirSync(join(root, 'packages'))
  .map((p) => join(root, 'packages', p, 'build', 'test'))
  .filter((d) => existsSync(d));

if (process.env.CI === 'true' && !process.env.WEAVE_TEST_MYSQL_URL) {
  console.error('CI=true but WEAVE_TEST_MYSQL_URL is not set: the MariaDB suites would be skipped');
  process.exit(1);
}

const concurrency = process.env.WEAVE_TEST_CONCURRENCY ?? '3';
// TAP on stdout as before (CI reads its summary lines); the failed tests also go to a file that is
// printed again after the summary (scripts/failures-reporter.js).
const failuresDir = mkdtempSync(join(tmpdir(), 'weave-test-failures-'));
const failuresFile = join(failuresDir, 'failures.txt');
const result = spawnSync(
  process.execPath,
  [
    '--test',
    `--test-concurrency=${concurrency}`,
    '--test-reporter=tap',
    '--test-reporter-destination=stdout',
    `--test-reporter=${join(root, 'scripts', 'failures-reporter.js')}`,
    `--test-reporter-destination=${failuresFile}`,
    ...process.argv.slice(2),
    ...dirs.flatMap(testFiles),
  ],
  { stdio: 'inherit' },
);
const failures = existsSync(failuresFile) ? readFileSync(failuresFile, 'utf8') : '';
rmSync(failuresDir, { recursive: true, force: true });
if (failures) {
  console.log('# the failed tests again, with their files and errors:');
  console.log(failures.replace(/^/gm, '# ').trimEnd());
}
process.exit(result.status ?? 1);
