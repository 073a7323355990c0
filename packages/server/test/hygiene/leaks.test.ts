/**
 * The leak check itself (test/support/leaks.ts): small test files, written as plain .mjs that
 * import the compiled helpers, run as child `node --test` processes.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';

const SUPPORT = new URL('../support/', import.meta.url).href;

describe('leak check', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'weave-leaks-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  /** Runs `body` as a test file; its TAP output and exit status. */
  function runFixture(name: string, body: string): { status: number | null; out: string } {
    const file = join(dir, name);
    const imports = [
      `import { after, before, describe, test } from 'node:test';`,
      `import { startTestServer } from '${SUPPORT}servers.js';`,
      `import { createTestDatabase } from '${SUPPORT}databases.js';`,
      `import { waitFor } from '${SUPPORT}wait-for.js';`,
      `import { startWorkerProcessFor } from '${SUPPORT}worker-process.js';`,
    ];
    writeFileSync(file, `${imports.join('\n')}\n${body}\n`);
    // Without NODE_TEST_CONTEXT the child is a test run of its own, not a subtest of ours.
    const { NODE_TEST_CONTEXT: _inherited, ...env } = process.env;
    const run = spawnSync(process.execPath, ['--test', '--test-reporter=tap', file], {
      encoding: 'utf8',
      timeout: 60_000,
      env: { ...env, WEAVE_TEST_MYSQL: 'off', CI: '' },
    });
    return { status: run.status, out: `${run.stdout}\n${run.stderr}` };
  }

  test('leak check: a server left open by a test fails the check', () => {
    const { status, out } = runFixture(
      'leaky.test.mjs',
      `describe('fixture', () => {
        let suiteDb;
        before(async () => { suiteDb = await createTestDatabase('sqlite'); });
        after(() => suiteDb.close());
        test('closes its server', async () => {
          const t = await startTestServer('sqlite');
          await t.close();
        });
        test('leaves its server open', async () => {
          await startTestServer('sqlite');
        });
        test('leaves a waitFor polling', () => {
          void waitFor(() => undefined, { what: 'nothing', timeoutMs: 60_000 }).catch(() => {});
        });
        test('runs after the leaks', () => {});
      });`,
    );
    assert.equal(status, 1, out);
    assert.match(
      out,
      /^ {4}ok 1 - closes its server$/m,
      'a test that closes what it opened passes',
    );
    assert.match(out, /^ {4}not ok 2 - leaves its server open$/m);
    assert.match(
      out,
      /leak check: 2 resource\(s\) opened during test "leaves its server open" still open/,
    );
    assert.match(out, /- server "http:\/\/127\.0\.0\.1:\d+", opened/, 'names what leaked');
    assert.match(out, /- database "[^"]*weave-test-[^"]*", opened/);
    assert.match(out, /at async TestContext.<anonymous> \(file:\/\/\S*leaky\.test\.mjs:\d+:\d+\)/);
    assert.match(out, /^ {4}not ok 3 - leaves a waitFor polling$/m);
    assert.match(out, /- timer "waitFor\(nothing\)", opened/);
    // Leaked resources were closed after the report: later tests and the suite's pool are fine.
    assert.match(out, /^ {4}ok 4 - runs after the leaks$/m);
    assert.match(out, /^# fail 2$/m);
  });

  test('leak check: a resource opened in a before hook is checked at the end of the file', () => {
    const { status, out } = runFixture(
      'suite-leak.test.mjs',
      `describe('fixture', () => {
        before(async () => { await createTestDatabase('sqlite'); });
        test('uses the suite database', () => {});
      });`,
    );
    assert.equal(status, 1, out);
    assert.match(out, /^ {4}ok 1 - uses the suite database$/m, 'not blamed on the test');
    assert.match(
      out,
      /leak check: 2 resource\(s\) opened outside a test \(a before hook or module scope\)/,
    );
    assert.match(out, /- pool "[^"]*weave\.sqlite", opened/);
  });

  test('leak check: a worker process a test forgets to stop fails the check; stopped or killed ones pass', () => {
    const { status, out } = runFixture(
      'worker-leak.test.mjs',
      `describe('fixture', () => {
        let t;
        before(async () => { t = await startTestServer('sqlite'); });
        after(() => t.close());
        test('stops its worker process', async () => {
          const worker = await startWorkerProcessFor(t);
          if ((await worker.stop()) !== 0) throw new Error('not a clean exit');
        });
        test('forgets its worker process', async () => {
          await startWorkerProcessFor(t);
        });
        test('kills its worker process', async () => {
          const worker = await startWorkerProcessFor(t);
          await worker.kill();
        });
      });`,
    );
    assert.equal(status, 1, out);
    assert.match(out, /^ {4}ok 1 - stops its worker process$/m);
    assert.match(out, /^ {4}not ok 2 - forgets its worker process$/m);
    assert.match(
      out,
      /leak check: 1 resource\(s\) opened during test "forgets its worker process" still open/,
    );
    assert.match(out, /- process "worker process on q1", opened/);
    assert.match(out, /^ {4}ok 3 - kills its worker process$/m);
    assert.match(out, /^# fail 1$/m);
  });
});
