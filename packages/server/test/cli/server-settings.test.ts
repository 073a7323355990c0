/**
 * `weave server --max-active-instances N --max-signal-ttl D` (and WEAVE_MAX_ACTIVE_INSTANCES /
 * WEAVE_MAX_SIGNAL_TTL): the operator's limits reach the routes; a bad value stops the command
 * with one line naming the flag.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { WeaveClient, isWeaveApiError } from '@weave/sdk';
import { runWeave } from '../support/processes.js';
import { bootstrapNamespace, startServerNode } from '../support/server-nodes.js';

/** Two instances admitted, the third 429; a signal window over the cap 400, within it kept. */
async function enforced(url: string, key: string): Promise<void> {
  const client = new WeaveClient({ url, namespace: 'ns', apiKey: key });
  await client.workflows.publish({
    schema_version: 1,
    name: 'nap',
    steps: [{ id: 'nap', kind: 'TIMER', duration: 'PT1H' }],
  });
  await client.instances.start('nap', { input: {} });
  await client.instances.start('nap', { input: {} });
  await assert.rejects(
    client.instances.start('nap', { input: {} }),
    (e) => isWeaveApiError(e) && e.code === 'active_instance_limit' && e.details.limit === 2,
  );
  await assert.rejects(
    client.signals.send({ name: 's', correlation_key: 'k', payload: 1, ttl: 'PT2M' }),
    (e) => isWeaveApiError(e) && e.status === 400 && e.details.path === '$.ttl',
  );
  const ok = await client.signals.send({
    name: 's',
    correlation_key: 'k',
    payload: 1,
    ttl: 'PT1M',
  });
  assert.ok(ok.buffered_until !== undefined, 'a window within the cap is kept');
}

describe('weave server limits', () => {
  let dir: string;
  let db: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'weave-limits-'));
    db = join(dir, 'weave.sqlite');
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('--max-active-instances and --max-signal-ttl are enforced; bad values are refused', async () => {
    const key = await bootstrapNamespace(db, 'ns', []);
    const started = await startServerNode(db, [
      '--max-active-instances',
      '2',
      '--max-signal-ttl',
      'PT1M',
    ]);
    try {
      await enforced(started.url, key);
    } finally {
      await started.node.stop();
    }
    const bad = await runWeave(['server', '--db', db, '--max-active-instances', '10001']);
    assert.notEqual(bad.code, 0);
    assert.match(bad.stderr, /--max-active-instances must be an integer from 1 to 10000/);
    const badTtl = await runWeave(['server', '--db', db, '--max-signal-ttl', 'an hour']);
    assert.notEqual(badTtl.code, 0);
    assert.match(badTtl.stderr, /--max-signal-ttl must be an ISO 8601 duration/);
  });
});
