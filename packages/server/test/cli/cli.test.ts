/** The `weave` command as a user runs it: real processes, real ports, real databases. */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { WeaveClient } from '@weave/sdk';
import { createEmptyDatabase, forEachDialect } from '../support/databases.js';
import type { TestDatabase } from '../support/databases.js';
import { runWeave, startWeave, WEAVE_DOT_BIN } from '../support/processes.js';

test('`weave dev --json` prints one line with a URL and a key that works on an authenticated route', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'weave-dev-'));
  const dev = await startWeave(['dev', '--json', '--port', '0', '--data', dir]);
  try {
    const info = JSON.parse(dev.firstLine) as { url: string; namespace: string; key: string };
    assert.deepEqual(Object.keys(info), ['url', 'namespace', 'key']);
    assert.equal(info.namespace, 'dev');
    assert.equal((await fetch(`${info.url}/healthz`)).status, 200);
    const client = new WeaveClient({ url: info.url, namespace: 'dev', apiKey: info.key });
    const queues = await client.listQueues();
    assert.deepEqual(
      queues.items.map((q) => q.name),
      ['default', 'orders', 'payments', 'shipping'],
    );
    const unauthenticated = await fetch(`${info.url}/v1/namespaces/dev/queues`);
    assert.equal(unauthenticated.status, 401);
  } finally {
    assert.equal(await dev.stop('SIGINT'), 0, dev.stderr());
    rmSync(dir, { recursive: true, force: true });
  }
});

/** Resolves to whether something accepts connections on `url`'s port. */
function listening(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect({ host: hostname, port: Number(port) });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/**
 * SIGTERM to the PID of a `weave dev` started as docs/operations.md "Running under a supervisor"
 * shows (not through npx, which does not pass the signal on): exit 0 within 5 s, port closed.
 */
async function stopsOnSigterm(command?: readonly [string, ...string[]]): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'weave-dev-'));
  try {
    const dev = await startWeave(
      ['dev', '--json', '--port', '0', '--data', dir],
      {},
      command === undefined ? {} : { command },
    );
    const { url } = JSON.parse(dev.firstLine) as { url: string };
    // A request first, so that a kept-alive connection is open when the signal arrives.
    assert.equal((await fetch(`${url}/healthz`)).status, 200);
    const started = performance.now();
    const code = await dev.stop('SIGTERM');
    const tookMs = performance.now() - started;
    assert.equal(code, 0, dev.stderr());
    assert.ok(tookMs < 5_000, `stopping took ${Math.round(tookMs)} ms`);
    assert.equal(await listening(url), false, `${url} still accepts connections`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('`node …/bin/weave.js dev` stops on SIGTERM to its PID: exit 0 within 5 s, port closed', () =>
  stopsOnSigterm());

test('a shell script that `exec`s node_modules/.bin/weave passes SIGTERM on to it', () =>
  stopsOnSigterm(['/bin/sh', '-c', `exec "${WEAVE_DOT_BIN}" "$@"`, 'weave-script']));

forEachDialect((dialect) => {
  describe(`weave server and bootstrap on ${dialect}`, () => {
    test('`weave bootstrap --json` then `weave server --db` serve a working key', async () => {
      const db = await createEmptyDatabase(dialect);
      await bootstrapAndServe(db).finally(() => db.drop());
    });

    async function bootstrapAndServe(db: TestDatabase): Promise<void> {
      const boot = await runWeave([
        'bootstrap',
        '--db',
        db.url,
        '--namespace',
        'acme',
        '--app',
        'shop',
        '--queue',
        'orders',
        '--queue',
        'mail',
        '--json',
      ]);
      assert.equal(boot.code, 0, boot.stderr);
      const { namespace, key } = JSON.parse(boot.stdout) as { namespace: string; key: string };
      assert.equal(namespace, 'acme');
      const server = await startWeave(
        ['server', '--port', '0'],
        { WEAVE_DB: db.url, WEAVE_LOG_LEVEL: 'warn' },
        { readyOn: 'stderr' },
      );
      try {
        const url = /listening at (\S+)/.exec(server.firstLine)?.[1] ?? '';
        assert.match(url, /^http:\/\/127\.0\.0\.1:\d+$/);
        assert.equal((await fetch(`${url}/readyz`)).status, 200);
        const client = new WeaveClient({ url, namespace: 'acme', apiKey: key });
        assert.deepEqual((await client.listQueues()).items.map((q) => q.name).sort(), [
          'mail',
          'orders',
        ]);
      } finally {
        assert.equal(await server.stop(), 0, server.stderr());
      }
    }

    test('`weave bootstrap --workflow-access` grants the definition scope only', async () => {
      const db = await createEmptyDatabase(dialect);
      await workflowAccess(db).finally(() => db.drop());
    });

    async function workflowAccess(db: TestDatabase): Promise<void> {
      const boot = await runWeave([
        'bootstrap',
        '--db',
        db.url,
        '--namespace',
        'wf',
        '--workflow-access',
        '--json',
      ]);
      assert.equal(boot.code, 0, boot.stderr);
      const admin = await runWeave(['bootstrap', '--db', db.url, '--namespace', 'wf', '--json']);
      const adminKey = (JSON.parse(admin.stdout) as { key: string }).key;
      const server = await startWeave(
        ['server', '--port', '0', '--db', db.url],
        { WEAVE_LOG_LEVEL: 'warn' },
        { readyOn: 'stderr' },
      );
      try {
        const url = /listening at (\S+)/.exec(server.firstLine)?.[1] ?? '';
        const client = new WeaveClient({ url, namespace: 'wf', apiKey: adminKey });
        const creds = await client.listCredentials();
        const first = creds.items[0];
        assert.deepEqual(first?.scopes, ['workflows:publish']);
      } finally {
        await server.stop();
      }
    }
  });
});

test('`weave version` prints the version and an unknown command exits non-zero with one line', async () => {
  const version = await runWeave(['version']);
  assert.equal(version.code, 0);
  assert.match(version.stdout, /^weave \d+\.\d+\.\d+\n$/);
  const unknown = await runWeave(['frobnicate']);
  assert.notEqual(unknown.code, 0);
  assert.match(unknown.stderr, /unknown command frobnicate/);
  const bad = await runWeave(['server']);
  assert.notEqual(bad.code, 0);
  assert.equal(bad.stderr.trim().split('\n').length, 1);
  assert.match(bad.stderr, /--db is required/);
});

test('a usage error names itself on its first stderr line, then the usage, and exits 2; --help exits 0', async () => {
  const cases: readonly { args: readonly string[]; line: RegExp }[] = [
    { args: [], line: /^weave: a command is needed$/ },
    { args: ['frobnicate'], line: /^weave: unknown command frobnicate$/ },
    { args: ['workflows'], line: /^weave workflows: a subcommand is needed \(validate, / },
    { args: ['workflows', 'frob'], line: /^weave workflows: unknown subcommand frob \(/ },
    { args: ['instances'], line: /^weave instances: a subcommand is needed \(start, / },
    { args: ['instances', 'frob', '42'], line: /^weave instances: unknown subcommand frob \(/ },
    { args: ['signals', 'frob'], line: /^weave signals: unknown subcommand frob \(send\)$/ },
    { args: ['operations'], line: /^weave operations: a subcommand is needed \(start, / },
  ];
  // No server is needed to tell a usage error: no WEAVE_URL or WEAVE_KEY is set.
  const env = { WEAVE_URL: '', WEAVE_KEY: '' };
  for (const { args, line } of cases) {
    const run = await runWeave(args, env);
    const name = `weave ${args.join(' ')}`;
    assert.equal(run.code, 2, `${name} exits 2`);
    assert.equal(run.stdout, '', `${name} writes nothing on stdout`);
    const [first, ...rest] = run.stderr.split('\n');
    assert.match(first ?? '', line, name);
    assert.match(rest.join('\n'), /usage: weave/, `${name} shows the usage after its line`);
  }
  for (const args of [['--help'], ['instances', '--help'], ['workflows', '--help']]) {
    const help = await runWeave(args);
    assert.equal(help.code, 0, `weave ${args.join(' ')} exits 0`);
    assert.match(help.stdout, /usage: weave/);
    assert.equal(help.stderr, '');
  }
});

test('`weave server` and `weave dev` on a port in use exit non-zero with one line naming the port and --port', async () => {
  const taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  const port = String((taken.address() as AddressInfo).port);
  const dir = mkdtempSync(join(tmpdir(), 'weave-port-'));
  try {
    for (const args of [
      ['server', '--db', join(dir, 'server.sqlite'), '--port', port],
      ['dev', '--data', dir, '--port', port],
    ]) {
      const r = await runWeave(args);
      const what = `weave ${args[0] ?? ''}`;
      assert.notEqual(r.code, 0, what);
      assert.equal(r.stderr.trim().split('\n').length, 1, `${what}: ${r.stderr}`);
      assert.match(r.stderr, new RegExp(`port ${port} is in use \\(EADDRINUSE\\)`), what);
      assert.match(r.stderr, /--port/, what);
      assert.doesNotMatch(r.stderr, /^\s+at /m, `${what}: no stack trace`);
    }
  } finally {
    await new Promise((resolve) => taken.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  }
});
