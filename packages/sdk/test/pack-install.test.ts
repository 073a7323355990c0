/**
 * The SDK as a user gets it: `npm pack` of @weave/json and @weave/sdk, installed from the two
 * tarballs into an empty project outside the repo with no registry (an unreachable registry
 * URL, `--offline` and an empty cache), then used from a plain `.mjs` script against a tiny HTTP
 * server and type-checked from a TypeScript project that has no `@types/node`.
 * Runs on the compiled packages: `npm test` builds first.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const TSC = createRequire(import.meta.url).resolve('typescript/bin/tsc');
/** Nothing listens on port 9 (discard): any registry request fails at once instead of hanging. */
const NO_REGISTRY = 'http://127.0.0.1:9/';
const API_KEY = 'key-pack-test';

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a command without a shell and resolves (never rejects) with its exit code and output. */
function run(file: string, args: readonly string[], cwd: string, env: NodeJS.ProcessEnv) {
  return new Promise<Run>((resolve) => {
    execFile(file, args, { cwd, env, timeout: 60_000 }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
      resolve({ code, stdout, stderr });
    });
  });
}

/**
 * The environment for child npm and node processes: none of the `npm_*` variables an enclosing
 * `npm test` sets (its `npm_config_local_prefix` would point npm back at the repo), a private
 * empty cache and user config, and a registry that does not answer.
 */
function isolatedEnv(dir: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (!k.toLowerCase().startsWith('npm_')) {
      env[k] = v;
    }
  }
  writeFileSync(join(dir, 'npmrc'), '');
  return {
    ...env,
    npm_config_cache: join(dir, 'npm-cache'),
    npm_config_userconfig: join(dir, 'npmrc'),
    npm_config_registry: NO_REGISTRY,
    npm_config_update_notifier: 'false',
  };
}

/** Answers one route like the server (exact numbers, bearer key); anything else is not_found. */
function answer(req: IncomingMessage, res: ServerResponse): void {
  const json = (status: number, body: string) =>
    res.writeHead(status, { 'content-type': 'application/json' }).end(body);
  if (req.headers.authorization !== `Bearer ${API_KEY}`) {
    json(401, '{"error":{"code":"unauthenticated","message":"no key","details":{}}}');
  } else if (req.method === 'GET' && req.url === '/v1/namespaces/dev/queues/emails') {
    json(200, '{"queue":{"name":"emails","capacity":12345678901234567890}}');
  } else {
    json(404, `{"error":{"code":"not_found","message":"no route ${req.url}","details":{}}}`);
  }
}

const SCRIPT = `
import { createHmac } from 'node:crypto';
import { WeaveClient, Worker, isWeaveApiError, verifyWebhookSignature } from '@weave/sdk';
import { ERROR_STATUS, SCOPES } from '@weave/sdk/protocol';
import { jsonNumber, parse, stringify } from '@weave/json';

const client = new WeaveClient({ url: process.argv[2], namespace: 'dev', apiKey: '${API_KEY}' });
const worker = new Worker({ client, handlers: {} });
const { queue } = await client.request('GET', '/queues/emails');
let missing;
try {
  await client.request('GET', '/queues/nope');
} catch (e) {
  missing = isWeaveApiError(e) ? e.code + ' ' + e.status : String(e);
}
const body = '{"n":1e400}';
const timestamp = String(Math.floor(Date.now() / 1000));
const mac = createHmac('sha256', 'whsec_x').update(timestamp + '.' + body).digest('hex');
const verified = await verifyWebhookSignature({ secret: 'whsec_x', timestamp, signature: 'v1=' + mac, body });
console.log(JSON.stringify({
  notFoundStatus: ERROR_STATUS.not_found,
  scopeCount: SCOPES.length,
  exact: stringify(parse('{"a":1e400,"b":12345678901234567890,"c":0.1}')),
  written: stringify({ total: jsonNumber('0.30') }),
  queue: queue.name + ' ' + stringify(queue.capacity),
  missing,
  inFlight: worker.inFlightCount,
  verified: verified.timestamp === Number(timestamp),
}));
`;

/** Uses the public API from TypeScript: the types must resolve without Node's. */
const CONSUMER = `
import { WeaveClient, Worker, isWeaveApiError, verifyWebhookSignature } from '@weave/sdk';
import type { Plain, StopSignal, TaskHandler, WorkerOptions } from '@weave/sdk';
import { ERROR_STATUS, SCOPES } from '@weave/sdk/protocol';
import type { ErrorCode, Scope } from '@weave/sdk/protocol';
import { jsonNumber, parse, stringify } from '@weave/json';
import type { JsonValue } from '@weave/json';

const client = new WeaveClient({ url: 'http://127.0.0.1:8420', namespace: 'dev', apiKey: 'k' });
const handler: TaskHandler = async (_input, ctx) => {
  ctx.signal.throwIfAborted();
  return { attempt: ctx.attemptNumber };
};
const options: WorkerOptions = { client, handlers: { emails: handler }, concurrency: 2 };
const worker = new Worker(options);
const signals: StopSignal[] = ['SIGTERM', 'SIGINT'];
worker.stopOnSignals(signals);
const code: ErrorCode = 'not_found';
export const status: number = ERROR_STATUS[code];
export const scopes: readonly Scope[] = SCOPES;

export async function use(): Promise<string> {
  const queue: Plain = await client.request('GET', '/queues/emails');
  const raw = await client.requestRaw('GET', '/queues', { query: { page_size: 10 } });
  const { timestamp } = await verifyWebhookSignature({
    secret: 'whsec_x',
    timestamp: raw.headers.get('weave-timestamp'),
    signature: raw.headers.get('weave-signature'),
    body: new TextEncoder().encode('{}'),
  });
  const value: JsonValue = parse('{"a":1e400}');
  try {
    await worker.stop();
  } catch (e: unknown) {
    if (isWeaveApiError(e)) {
      return e.code;
    }
  }
  return [String(queue), raw.status, timestamp, stringify(value), stringify(jsonNumber('0.1'))].join();
}
`;

/** What a consumer's tsconfig may say; `types` is left at its default on purpose. */
function consumerTsconfig(resolution: 'node16' | 'bundler', file: string): string {
  return JSON.stringify({
    compilerOptions: {
      strict: true,
      noEmit: true,
      skipLibCheck: false,
      // lib.*.d.ts are TypeScript's own: checking them costs seconds and tests nothing of ours.
      skipDefaultLibCheck: true,
      target: 'es2022',
      lib: ['es2022', 'dom'],
      module: resolution === 'node16' ? 'node16' : 'esnext',
      moduleResolution: resolution,
    },
    files: [file],
  });
}

const PACKED_FILE = /^(README\.md|LICENSE|package\.json|build\/src\/.+\.(js|d\.ts|js\.map))$/;

describe('the packed SDK, installed from its tarballs into an empty project', () => {
  let dir: string;
  let consumer: string;
  let env: NodeJS.ProcessEnv;
  let packed: { filename: string; files: { path: string }[] }[];
  let server: Server;
  let url: string;

  before(
    async () => {
      dir = mkdtempSync(join(tmpdir(), 'weave-pack-'));
      consumer = join(dir, 'consumer');
      mkdirSync(join(dir, 'tarballs'));
      mkdirSync(consumer);
      env = isolatedEnv(dir);
      const workspaces = ['-w', 'packages/json', '-w', 'packages/sdk'];
      const pack = await run(
        'npm',
        ['pack', '--json', '--pack-destination', join(dir, 'tarballs'), ...workspaces],
        ROOT,
        env,
      );
      assert.equal(pack.code, 0, pack.stderr);
      packed = JSON.parse(pack.stdout) as typeof packed;
      writeFileSync(
        join(consumer, 'package.json'),
        '{"name":"consumer","private":true,"type":"module"}\n',
      );
      const tarballs = packed.map((p) => join('..', 'tarballs', p.filename));
      const flags = ['--offline', '--no-audit', '--no-fund', '--ignore-scripts'];
      const install = await run('npm', ['install', ...flags, ...tarballs], consumer, env);
      assert.equal(install.code, 0, install.stderr);
      server = createServer(answer).listen(0, '127.0.0.1');
      await new Promise((resolve) => server.once('listening', resolve));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    },
    { timeout: 60_000 },
  );

  after(async () => {
    await new Promise((resolve) => server?.close(resolve));
    if (dir !== undefined) {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('each tarball holds only compiled code, its types and maps, README and package.json', () => {
    assert.deepEqual(
      packed.map((p) => p.filename),
      ['weave-json-0.1.0.tgz', 'weave-sdk-0.1.0.tgz'],
    );
    for (const p of packed) {
      const paths = p.files.map((f) => f.path);
      assert.deepEqual(
        paths.filter((path) => !PACKED_FILE.test(path)),
        [],
        p.filename,
      );
      assert.ok(paths.includes('README.md') && paths.includes('build/src/index.d.ts'), p.filename);
    }
  });

  test('the install came from the tarballs alone: both packages, the exact json version', () => {
    const sdk = join(consumer, 'node_modules', '@weave', 'sdk');
    const manifest = JSON.parse(readFileSync(join(sdk, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    assert.deepEqual(manifest.dependencies, { '@weave/json': '0.1.0' });
    assert.ok(existsSync(join(consumer, 'node_modules', '@weave', 'json', 'build', 'src')));
    assert.equal(existsSync(join(consumer, 'node_modules', '@types')), false);
  });

  test("the installed SDK and json import no node: module outside the SDK's node entry (they load in a browser or Deno)", () => {
    // Only node/http.js (the exchange over node:http) may, and only node/index.js (the `node`
    // condition of the package's exports) imports it.
    const nodeOnly = new Set([join('node', 'http.js')]);
    for (const name of ['sdk', 'json']) {
      const src = join(consumer, 'node_modules', '@weave', name, 'build', 'src');
      const files = readdirSync(src, { recursive: true, encoding: 'utf8' });
      const js = files.filter((f) => f.endsWith('.js'));
      assert.ok(js.length > 0);
      for (const f of js) {
        const text = readFileSync(join(src, f), 'utf8');
        if (!(name === 'sdk' && nodeOnly.has(f))) {
          assert.doesNotMatch(text, /(from|import\()\s*['"]node:/, f);
        }
        if (!f.startsWith(`node${sep}`)) {
          assert.doesNotMatch(text, /node\/(http|index)\.js/, `${f} must not load the node entry`);
        }
      }
    }
  });

  test('a plain .mjs script uses the client, the worker, the protocol subpath and @weave/json over real HTTP', async () => {
    writeFileSync(join(consumer, 'smoke.mjs'), SCRIPT);
    const script = await run(process.execPath, ['smoke.mjs', url], consumer, env);
    assert.equal(script.code, 0, script.stderr);
    assert.deepEqual(JSON.parse(script.stdout), {
      notFoundStatus: 404,
      scopeCount: 11,
      exact: '{"a":1e400,"b":12345678901234567890,"c":0.1}',
      written: '{"total":0.30}',
      queue: 'emails 12345678901234567890',
      missing: 'not_found 404',
      inFlight: 0,
      verified: true,
    });
  });

  test('a TypeScript consumer without @types/node type-checks with node16 and bundler resolution', async () => {
    writeFileSync(join(consumer, 'index.ts'), CONSUMER);
    for (const resolution of ['node16', 'bundler'] as const) {
      const config = `tsconfig.${resolution}.json`;
      writeFileSync(join(consumer, config), consumerTsconfig(resolution, 'index.ts'));
      const tsc = await run(process.execPath, [TSC, '-p', config], consumer, env);
      assert.equal(tsc.code, 0, `${resolution}: ${tsc.stdout}${tsc.stderr}`);
    }
  });

  test('the same consumer set-up rejects process.env, so the check above could fail', async () => {
    writeFileSync(join(consumer, 'probe.ts'), 'export const key = process.env.WEAVE_KEY;\n');
    writeFileSync(join(consumer, 'tsconfig.probe.json'), consumerTsconfig('node16', 'probe.ts'));
    const tsc = await run(process.execPath, [TSC, '-p', 'tsconfig.probe.json'], consumer, env);
    assert.notEqual(tsc.code, 0);
    // TS2580: "Cannot find name 'process'. Do you need to install type definitions for node?"
    assert.match(tsc.stdout, /probe\.ts.*error TS2580/);
  });
});
