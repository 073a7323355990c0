/**
 * `weave dev` as a newcomer runs it (issue 13 Deliver 1), with real processes: one dev key kept in
 * the data folder (0600 in a 0700 folder) and printed again at every start, the console URL next
 * to the API URL, `GET /` → `/console/`, `/metrics`, and a clean stop on SIGINT. A key file open
 * to others is refused with a one-line reason.
 */
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { WeaveClient } from '@weave/sdk';
import { runWeave, startWeave } from '../support/processes.js';
import { waitFor } from '../support/wait-for.js';

interface DevLine {
  readonly url: string;
  readonly namespace: string;
  readonly key: string;
}

async function startDev(dir: string): Promise<DevLine & { stop(): Promise<number | null> }> {
  const dev = await startWeave(['dev', '--json', '--port', '0', '--data', dir]);
  const line = JSON.parse(dev.firstLine) as DevLine;
  assert.deepEqual(Object.keys(line), ['url', 'namespace', 'key']);
  return { ...line, stop: () => dev.stop('SIGINT') };
}

const skipModes = process.platform === 'win32' ? 'no permission bits on Windows' : false;

test(
  'the dev key stays the same across restarts, kept 0600 in a 0700 folder',
  { skip: skipModes },
  async () => {
    const root = mkdtempSync(join(tmpdir(), 'weave-dev-key-'));
    const dir = join(root, '.weave');
    try {
      const first = await startDev(dir);
      let firstStop: number | null;
      try {
        assert.equal(statSync(dir).mode & 0o777, 0o700);
        assert.equal(statSync(join(dir, 'dev-key')).mode & 0o777, 0o600);
        assert.equal(readFileSync(join(dir, 'dev-key'), 'utf8').trim(), first.key);
      } finally {
        firstStop = await first.stop();
      }
      assert.equal(firstStop, 0);
      const second = await startDev(dir);
      try {
        assert.equal(second.key, first.key, 'the same key is printed again');
        const client = new WeaveClient({ url: second.url, namespace: 'dev', apiKey: second.key });
        const queues = await client.listQueues();
        assert.deepEqual(
          queues.items.map((q) => q.name),
          ['default', 'orders', 'payments', 'shipping'],
        );
        assert.equal(statSync(join(dir, 'dev-key')).mode & 0o777, 0o600);
      } finally {
        assert.equal(await second.stop(), 0, 'SIGINT stops it cleanly');
      }
      // A fresh database (the SQLite file deleted) keeps the same key working.
      rmSync(join(dir, 'weave.sqlite'), { force: true });
      rmSync(join(dir, 'weave.sqlite-wal'), { force: true });
      rmSync(join(dir, 'weave.sqlite-shm'), { force: true });
      const third = await startDev(dir);
      try {
        assert.equal(third.key, first.key);
        const client = new WeaveClient({ url: third.url, namespace: 'dev', apiKey: third.key });
        assert.equal((await client.listQueues()).items.length, 4);
      } finally {
        assert.equal(await third.stop(), 0);
      }
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  },
);

test('GET / redirects to the console, /console/ answers a page, /metrics answers without a key', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'weave-dev-console-'));
  const dev = await startDev(dir);
  try {
    const root = await fetch(`${dev.url}/`, { redirect: 'manual' });
    assert.ok([302, 308].includes(root.status), `GET / → ${root.status}`);
    assert.equal(root.headers.get('location'), '/console/');
    const page = await fetch(`${dev.url}/console/`);
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
    assert.match(await page.text(), /console/i);
    const metrics = await fetch(`${dev.url}/metrics`);
    assert.equal(metrics.status, 200);
    assert.match(await metrics.text(), /^# TYPE weave_queue_tasks gauge$/m);
  } finally {
    assert.equal(await dev.stop(), 0);
    rmSync(dir, { recursive: true, force: true });
  }
});

test('without --json the console URL is printed next to the API URL, with the kept key', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'weave-dev-human-'));
  try {
    const dev = await startWeave(['dev', '--port', '0', '--data', dir]);
    try {
      const url = /ready at (http:\/\/\S+)/.exec(dev.firstLine)?.[1];
      assert.ok(url, dev.firstLine);
      const out = await waitFor(
        () => (dev.stdout().includes('Ctrl-C') ? dev.stdout() : undefined),
        {
          what: 'the whole banner',
        },
      );
      assert.match(out, new RegExp(`console: +${url}/console/`));
      const key = readFileSync(join(dir, 'dev-key'), 'utf8').trim();
      assert.ok(out.includes(`API key:   ${key}`), out);
    } finally {
      assert.equal(await dev.stop('SIGINT'), 0, dev.stderr());
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test(
  'a dev key file open to others is refused with one line; an open folder is tightened',
  { skip: skipModes },
  async () => {
    const dir = mkdtempSync(join(tmpdir(), 'weave-dev-open-'));
    try {
      const first = await startDev(dir);
      assert.equal(await first.stop(), 0);
      chmodSync(join(dir, 'dev-key'), 0o644);
      const refused = await runWeave(['dev', '--json', '--port', '0', '--data', dir]);
      assert.notEqual(refused.code, 0);
      assert.equal(refused.stdout, '');
      assert.equal(refused.stderr.trim().split('\n').length, 1, refused.stderr);
      assert.match(refused.stderr, /dev-key is open to other users \(mode 0644\).*chmod 600/);
      chmodSync(join(dir, 'dev-key'), 0o600);
      chmodSync(dir, 0o755);
      const again = await startDev(dir);
      try {
        assert.equal(again.key, first.key);
        assert.equal(statSync(dir).mode & 0o777, 0o700);
      } finally {
        assert.equal(await again.stop(), 0);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
);

test('a nested --data folder is created', async () => {
  const root = mkdtempSync(join(tmpdir(), 'weave-dev-nested-'));
  try {
    mkdirSync(join(root, 'a'));
    const dev = await startDev(join(root, 'a', 'b', 'c'));
    assert.equal(await dev.stop(), 0);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
