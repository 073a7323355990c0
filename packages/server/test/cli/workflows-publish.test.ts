/**
 * `weave workflows publish FILE` (issue 11 Deliver 10): the CLI publishes through the SDK to a
 * running server, prints the version (or that the source is already published), and on a
 * definition with problems prints one line per problem with its JSON path and exits 1.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { runWeave } from '../support/processes.js';
import { startTestServer } from '../support/servers.js';
import type { TestServer } from '../support/servers.js';

describe('weave workflows publish', () => {
  let t: TestServer;
  let dir: string;
  let env: Record<string, string>;
  before(async () => {
    t = await startTestServer('sqlite', { sweepIntervalMs: false, scheduleIntervalMs: false });
    dir = mkdtempSync(join(tmpdir(), 'weave-publish-'));
    env = {
      WEAVE_URL: t.server.url,
      WEAVE_NAMESPACE: 'ns',
      WEAVE_KEY: await t.keyWith('ns', ['workflows:publish']),
    };
  });
  after(async () => {
    rmSync(dir, { recursive: true, force: true });
    await t.close();
  });

  test('publishes a file as version 1, then says the same source is unchanged', async () => {
    const file = join(dir, 'greet.json');
    writeFileSync(
      file,
      '{"schema_version": 1, "name": "greet", "steps": [{"id": "nap", "kind": "TIMER", "duration": "PT1S"}], "output": {"n": 1e400}}',
    );
    const first = await runWeave(['workflows', 'publish', file], env);
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stdout, /^published greet version 1 \(sha256 [0-9a-f]{64}\)\n$/);
    const again = await runWeave(['workflows', 'publish', file, '--json'], env);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /"created":false/);
    const { version } = await t.admin.workflows.getVersion('greet', 1);
    assert.deepEqual(version.definition, {
      schema_version: 1,
      name: 'greet',
      steps: [{ id: 'nap', kind: 'TIMER', duration: 'PT1S' }],
      output: { n: { kind: 'number', text: '1e400' } },
    });
  });

  test('a definition with problems: one line per problem with its path, exit 1', async () => {
    const file = join(dir, 'bad.json');
    writeFileSync(
      file,
      '{"schema_version": 1, "name": "Bad", "steps": [{"id": "x", "kind": "TASK"}]}',
    );
    const run = await runWeave(['workflows', 'publish', file], env);
    assert.equal(run.code, 1);
    assert.match(run.stdout, /^\$\.definition\.name: /m);
    assert.match(run.stdout, /^\$\.definition\.steps\[0\]/m);
    assert.match(run.stderr, /problem\(s\)/);
  });

  test('weave instances start, get and steps work on the published workflow, numbers exact', async () => {
    const started = await runWeave(
      [
        'instances',
        'start',
        'greet',
        '--input',
        '{"n": 12345678901234567890}',
        '--business-key',
        'k 1',
      ],
      { ...env, WEAVE_KEY: await t.keyWith('ns', ['workflows:start', 'workflows:read']) },
    );
    assert.equal(started.code, 0, started.stderr);
    assert.match(started.stdout, /"status":"WAITING"/);
    assert.match(started.stdout, /"input":\{"n":12345678901234567890\}/);
    const id = /"id":"([0-9]+)"/.exec(started.stdout)?.[1] ?? '';
    const reader = { ...env, WEAVE_KEY: await t.keyWith('ns', ['workflows:read']) };
    const got = await runWeave(['instances', 'get', id], reader);
    assert.equal(got.code, 0, got.stderr);
    assert.match(got.stdout, /"business_key":"k 1"/);
    const steps = await runWeave(['instances', 'steps', id], reader);
    assert.equal(steps.code, 0, steps.stderr);
    assert.match(steps.stdout, /"id":"nap"/);
    assert.doesNotMatch(steps.stdout, /\$root/);
    const bad = await runWeave(['instances', 'start', 'greet', '--version', 'two'], reader);
    assert.notEqual(bad.code, 0);
    assert.match(bad.stderr, /--version/);
  });

  test('weave instances list filters and pages (--all: one instance a line), history reads the events', async () => {
    const starter = {
      ...env,
      WEAVE_KEY: await t.keyWith('ns', ['workflows:start', 'workflows:read']),
    };
    for (const key of ['list-a', 'list-b', 'list-b']) {
      const run = await runWeave(
        ['instances', 'start', 'greet', '--input', '{}', '--business-key', key],
        starter,
      );
      assert.equal(run.code, 0, run.stderr);
    }
    const page = await runWeave(
      // No status filter: greet's one-second timer ends its instances while the test runs.
      ['instances', 'list', '--business-key', 'list-b', '--page-size', '1'],
      starter,
    );
    assert.equal(page.code, 0, page.stderr);
    assert.match(page.stdout, /"next_page_token":"/);
    assert.equal(page.stdout.match(/"business_key":"list-b"/g)?.length, 1);
    const all = await runWeave(
      [
        'instances',
        'list',
        '--workflow',
        'greet',
        '--business-key',
        'list-b',
        '--page-size',
        '1',
        '--all',
      ],
      starter,
    );
    assert.equal(all.code, 0, all.stderr);
    const lines = all.stdout.trim().split('\n');
    assert.equal(lines.length, 2);
    assert.ok(lines.every((l) => /"business_key":"list-b"/.test(l) && !/"input"/.test(l)));
    const id = /"id":"([0-9]+)"/.exec(lines[0] ?? '')?.[1] ?? '';
    const history = await runWeave(['instances', 'history', id, '--limit', '1'], starter);
    assert.equal(history.code, 0, history.stderr);
    assert.match(history.stdout, /"type":"instance.admitted"/);
    const events = await runWeave(['instances', 'history', id, '--limit', '1', '--all'], starter);
    assert.equal(events.code, 0, events.stderr);
    assert.ok(events.stdout.trim().split('\n').length >= 2, events.stdout);
    const bad = await runWeave(['instances', 'list', '--status', 'SLEEPING'], starter);
    assert.notEqual(bad.code, 0);
    assert.match(bad.stderr, /\$\.status/);
  });

  test('without a key it says how to give one; --help prints usage and exits 0', async () => {
    const file = join(dir, 'greet.json');
    const run = await runWeave(['workflows', 'publish', file], { ...env, WEAVE_KEY: '' });
    assert.notEqual(run.code, 0);
    assert.match(run.stderr, /--key KEY or WEAVE_KEY/);
    const help = await runWeave(['workflows', 'publish', '--help'], env);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /^usage: weave workflows publish FILE/);
  });
});
