/** `weave workflows validate|simulate`: the offline engine tools as a user runs them. */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { runWeave } from '../support/processes.js';

const ORDER = fileURLToPath(new URL('../../../../../docs/examples/order.json', import.meta.url));

test('`weave workflows validate` accepts the documented example', async () => {
  const r = await runWeave(['workflows', 'validate', ORDER]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^ok: order \(8 steps\)/);
});

test('`weave workflows validate` lists every problem with its JSON path and exits 1', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'weave-wf-'));
  const file = join(dir, 'bad.json');
  writeFileSync(
    file,
    '{"schema_version":1,"name":"x","steps":[{"id":"a","kind":"TASK","queue":"Bad Q"},{"id":"a","kind":"TIMER"}]}',
  );
  const r = await runWeave(['workflows', 'validate', file]);
  assert.equal(r.code, 1);
  assert.match(r.stdout, /^\$\.steps\[0\]\.queue: .*\(invalid_name\)$/m);
  assert.match(r.stdout, /^\$\.steps\[1\]\.id: .*\(duplicate_id\)$/m);
  assert.match(r.stderr, /3 problem/);
});

test('`weave workflows simulate` prints each planning round down to the instance outcome', async () => {
  const results = {
    reserve: { status: 'SUCCEEDED', output: { id: 7 } },
    approve: { status: 'SUCCEEDED', output: { by: 'ann' } },
    print: { status: 'SUCCEEDED', output: 'L-1' },
    mail: { status: 'SUCCEEDED' },
    track: { results: [{ status: 'IN_TRANSIT' }, { status: 'DELIVERED' }] },
  };
  const r = await runWeave([
    'workflows',
    'simulate',
    ORDER,
    '--input',
    '{"orderId":"A1","amount":1000.0000000000000000001}',
    '--results',
    JSON.stringify(results),
  ]);
  assert.equal(r.code, 0, r.stderr);
  const lines = r.stdout.trim().split('\n');
  assert.equal(lines[0], 'round 1 (start)');
  // 1000.0000000000000000001 > 1000 exactly: the approval branch is chosen.
  assert.ok(lines.some((l) => l.includes('ACTIVATE big BRANCH case_index=0')));
  assert.equal(
    lines[lines.length - 1],
    'instance SUCCEEDED output={"tracking":{"status":"DELIVERED"}}',
  );
});

test('`weave workflows validate --help` and `weave workflows simulate --help` print help and exit 0', async () => {
  const cases = [
    { args: ['workflows', 'validate', '--help'], usage: /^usage: weave workflows validate FILE/ },
    { args: ['workflows', 'validate', '-h'], usage: /^usage: weave workflows validate FILE/ },
    {
      args: ['workflows', 'simulate', '--help'],
      usage: /^usage: weave workflows simulate FILE .*--input JSON.*--results JSON.*--limit N/,
    },
    { args: ['workflows', 'simulate', '-h'], usage: /^usage: weave workflows simulate FILE/ },
    { args: ['workflows', '--help'], usage: /^usage: weave workflows validate FILE/ },
    { args: ['--help'], usage: /^usage: weave <command> \[options\]/ },
  ];
  for (const { args, usage } of cases) {
    const r = await runWeave(args);
    const what = `weave ${args.join(' ')}`;
    assert.equal(r.code, 0, `${what}: ${r.stderr}`);
    assert.match(r.stdout, usage, what);
    assert.equal(r.stderr, '', what);
  }
  const simulate = await runWeave(['workflows', 'simulate', '--help']);
  for (const option of ['--input', '--results', '--limit']) {
    assert.match(simulate.stdout, new RegExp(`^ +${option} `, 'm'), option);
  }
});
