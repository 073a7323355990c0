/**
 * `weave operations start|get|list` (issue 12 Deliver 5 and 7): the CLI creates a bulk operation
 * through the SDK on a running server, waits for it, reads and lists it; a bad filter exits
 * non-zero with the server's reason on one line.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { runWeave } from '../support/processes.js';
import { WAITING_WORKFLOW, startCliServer } from '../support/cli-server.js';
import type { TestServer } from '../support/servers.js';

describe('weave operations start|get|list', () => {
  let t: TestServer;
  let env: Record<string, string>;
  before(async () => {
    ({ t, env } = await startCliServer(WAITING_WORKFLOW, ['workflows:control', 'workflows:read']));
  });
  after(() => t.close());

  test('[E4.7] start pause --wait, get, list; a bad status is refused with its path', async () => {
    const { instance } = await t.admin.instances.start('wait', { input: {} });
    const started = await runWeave(
      ['operations', 'start', 'pause', '--workflow', 'wait', '--status', 'WAITING', '--wait'],
      env,
    );
    assert.equal(started.code, 0, started.stderr);
    assert.match(started.stdout, /"status":"SUCCEEDED"/);
    assert.match(started.stdout, /"done":1/);
    assert.equal((await t.admin.instances.get(instance.id)).instance.paused, true);
    const id = /"id":"([0-9]+)"/.exec(started.stdout)?.[1] ?? '';
    const got = await runWeave(['operations', 'get', id], env);
    assert.equal(got.code, 0, got.stderr);
    assert.match(got.stdout, /"action":"pause"/);
    const listed = await runWeave(['operations', 'list'], env);
    assert.match(listed.stdout, new RegExp(`"id":"${id}"`));
    const refused = await runWeave(['operations', 'start', 'cancel', '--status', 'SLEEPING'], env);
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /\$\.filter\.status/);
  });
});
