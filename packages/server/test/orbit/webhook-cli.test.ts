/**
 * `--webhook-allow` / `WEAVE_WEBHOOK_ALLOW` with the real binary: a bad entry stops the server
 * at start with a message naming it (before any database is opened); the flag wins over the
 * environment; a good list starts the server.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { runWeave, startWeave } from '../support/processes.js';

describe('weave server --webhook-allow', () => {
  const dir = mkdtempSync(join(tmpdir(), 'weave-webhook-cli-'));
  const db = join(dir, 'weave.sqlite');
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('a bad entry in the flag or the environment stops the start and is named', async () => {
    const byFlag = await runWeave([
      'server',
      '--db',
      db,
      '--port',
      '0',
      '--webhook-allow',
      '127.0.0.1,10.0.0.0/33',
    ]);
    assert.notEqual(byFlag.code, 0);
    assert.match(byFlag.stderr, /allow-list entry "10\.0\.0\.0\/33"/);
    const byEnv = await runWeave(['server', '--db', db, '--port', '0'], {
      WEAVE_WEBHOOK_ALLOW: 'hooks.internal, not a host',
    });
    assert.notEqual(byEnv.code, 0);
    assert.match(byEnv.stderr, /"not a host"/);
  });

  test('the flag wins over the environment, and a good list starts the server', async () => {
    const running = await startWeave(
      ['server', '--db', db, '--port', '0', '--webhook-allow', '127.0.0.1,fd00::/8,hooks.internal'],
      { WEAVE_WEBHOOK_ALLOW: 'bad entry' },
      { readyOn: 'stderr' },
    );
    assert.match(running.firstLine, /listening at http:\/\/127\.0\.0\.1:\d+/);
    // Stopped right after its ready line: the signal handler is already there (exit 0).
    assert.equal(await running.stop(), 0, running.stderr());
  });
});
