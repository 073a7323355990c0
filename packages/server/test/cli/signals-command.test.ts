/**
 * `weave signals send NAME --correlation KEY --payload JSON` and `weave instances signal ID NAME
 * --payload JSON` (issue 12 Deliver 7): the CLI sends through the SDK to a running server,
 * prints the answer with the payload's numbers exact, and exits non-zero with a one-line
 * reason when nothing waits.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { runWeave } from '../support/processes.js';
import { startCliServer } from '../support/cli-server.js';
import type { TestServer } from '../support/servers.js';

describe('weave signals send and weave instances signal', () => {
  let t: TestServer;
  let env: Record<string, string>;
  before(async () => {
    ({ t, env } = await startCliServer(
      {
        schema_version: 1,
        name: 'approve',
        input: { type: 'object', properties: { id: { type: 'string' } } },
        steps: [{ id: 'ok', kind: 'SIGNAL', name: 'approval', correlation: '$.input.id' }],
        output: { approval: '$.steps.ok.output' },
      },
      ['workflows:signal'],
    ));
  });
  after(() => t.close());

  const done = async (id: string) => {
    for (let i = 0; i < 100; i++) {
      const { instance } = await t.admin.instances.get(id);
      if (instance.status !== 'WAITING') {
        return instance;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`instance ${id} still waits`);
  };

  test('signals send matches by correlation; instances signal addresses one instance; the payload stays exact', async () => {
    const a = (await t.admin.instances.start('approve', { input: { id: 'A 1' } })).instance;
    const sent = await runWeave(
      ['signals', 'send', 'approval', '--correlation', 'A 1', '--payload', '{"amount": 1.50}'],
      env,
    );
    assert.equal(sent.code, 0, sent.stderr);
    assert.match(sent.stdout, new RegExp(`"matched":\\[\\{"instance_id":"${a.id}"`));
    const doneA = await done(a.id);
    assert.equal(doneA.status, 'SUCCEEDED');
    assert.deepEqual(doneA.output, { approval: { amount: { kind: 'number', text: '1.50' } } });

    const b = (await t.admin.instances.start('approve', { input: { id: 'B' } })).instance;
    const direct = await runWeave(
      ['instances', 'signal', b.id, 'approval', '--payload', '12345678901234567890'],
      env,
    );
    assert.equal(direct.code, 0, direct.stderr);
    const doneB = await done(b.id);
    assert.deepEqual(doneB.output, {
      approval: { kind: 'number', text: '12345678901234567890' },
    });
    const none = await runWeave(['instances', 'signal', b.id, 'approval', '--payload', '1'], env);
    assert.notEqual(none.code, 0, 'nothing waits any more');
    assert.equal(none.stderr.trim().split('\n').length, 1, none.stderr);
  });
});
