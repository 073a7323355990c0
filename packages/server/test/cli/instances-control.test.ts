/**
 * `weave instances pause|resume|cancel ID` (issue 12 Deliver 7): the CLI controls an instance
 * through the SDK on a running server and prints the answer; a refused control exits non-zero
 * with the server's reason on one line.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { runWeave } from '../support/processes.js';
import { WAITING_WORKFLOW, startCliServer } from '../support/cli-server.js';
import type { TestServer } from '../support/servers.js';

describe('weave instances pause|resume|cancel', () => {
  let t: TestServer;
  let env: Record<string, string>;
  before(async () => {
    ({ t, env } = await startCliServer(WAITING_WORKFLOW, ['workflows:control', 'workflows:read']));
  });
  after(() => t.close());

  test('pause, pause again (unchanged), resume, cancel; a control on an ended instance is refused', async () => {
    const { instance } = await t.admin.instances.start('wait', { input: {} });
    const paused = await runWeave(['instances', 'pause', instance.id, '--reason', 'ops'], env);
    assert.equal(paused.code, 0, paused.stderr);
    assert.match(paused.stdout, /"paused":true/);
    assert.match(paused.stdout, /"changed":true/);
    const again = await runWeave(['instances', 'pause', instance.id], env);
    assert.match(again.stdout, /"changed":false/);
    const resumed = await runWeave(['instances', 'resume', instance.id], env);
    assert.match(resumed.stdout, /"paused":false/);
    const cancelled = await runWeave(['instances', 'cancel', instance.id], env);
    assert.equal(cancelled.code, 0, cancelled.stderr);
    assert.match(cancelled.stdout, /"status":"CANCELLED"/);
    const refused = await runWeave(['instances', 'pause', instance.id], env);
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /invalid_state|cannot be changed/);
    const stale = await runWeave(
      ['instances', 'resume', instance.id, '--expected-revision', '1'],
      env,
    );
    assert.notEqual(stale.code, 0);
  });
});
