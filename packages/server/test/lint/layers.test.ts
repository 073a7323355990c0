/**
 * The layer rules of ARCHITECTURE.md fire: dependency-cruiser, with the project's own
 * `.dependency-cruiser.mjs`, run on a temporary tree laid out like packages/server/src with
 * planted bad imports, and on the real sources.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { repoRoot } from '../support/sources.js';

interface Violation {
  readonly rule: string;
  readonly from: string;
  readonly to: string;
}

/** `depcruise <args>` in `cwd` with the real config, as `npm run lint:deps` runs it. */
function depcruise(cwd: string, args: readonly string[]) {
  const bin = join(repoRoot, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs');
  const config = join(repoRoot, '.dependency-cruiser.mjs');
  return spawnSync(process.execPath, [bin, ...args, '--config', config], {
    cwd,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
}

/** The violations depcruise reports for `dirs` (its JSON output). */
function cruise(cwd: string, dirs: readonly string[]): Violation[] {
  const run = depcruise(cwd, [...dirs, '--output-type', 'json']);
  assert.ok(run.stdout.length > 0, `depcruise printed nothing: ${run.stderr}`);
  const result = JSON.parse(run.stdout) as {
    summary: { violations: { rule: { name: string }; from: string; to: string }[] };
  };
  return result.summary.violations.map((v) => ({ rule: v.rule.name, from: v.from, to: v.to }));
}

const SRC = 'packages/server/src';

/** Files of the planted tree: path under packages/server/src → source. */
const PLANTED: Readonly<Record<string, string>> = {
  'store/bad.ts': "import { y } from '../http/y.js';\nexport const x = y;\n",
  'store/with-tx.ts': 'export const withTx = 1;\n',
  'store/values.ts': 'export const formatInstant = 1;\n',
  'http/y.ts': 'export const y = 1;\n',
  'http/fine.ts': "import { withTx } from '../store/with-tx.js';\nexport const f = withTx;\n",
  'http/reach.ts':
    "import { formatInstant } from '../store/values.js';\nexport const r = formatInstant;\n",
  'auth/a.ts': "import type { B } from './b.js';\nexport interface A {\n  b?: B;\n}\n",
  'auth/b.ts': "import type { A } from './a.js';\nexport interface B {\n  a?: A;\n}\n",
  'pulse/uses-orbit.ts': "import { o } from '../orbit/o.js';\nexport const p = o;\n",
  'orbit/o.ts': 'export const o = 1;\n',
  'orbit/uses-pulse.ts': "import { p } from '../pulse/uses-orbit.js';\nexport const q = p;\n",
  'weave/model/m1.ts': "import { r2 } from '../runtime/r2.js';\nexport const m1 = r2;\n",
  'weave/model/m2.ts': 'export const m2 = 1;\n',
  'weave/runtime/r1.ts': "import { m2 } from '../model/m2.js';\nexport const r1 = m2;\n",
  'weave/runtime/r2.ts': 'export const r2 = 1;\n',
  'weave/delivery/deliver-result.ts': 'export const deliverResult = 1;\n',
  'pulse/settle-task.ts':
    "import { deliverResult } from '../weave/delivery/deliver-result.js';\nexport const s = deliverResult;\n",
  'pulse/cancel-task.ts':
    "import { deliverResult } from '../weave/delivery/deliver-result.js';\nexport const c = deliverResult;\n",
  'pulse/up.ts': "import { m2 } from '../weave/model/m2.js';\nexport const u = m2;\n",
  'store/schema.ts': 'export interface Schema {\n  t: number;\n}\n',
  'weave/model/pure.ts':
    "import type { Schema } from '../../store/schema.js';\nimport { formatInstant } from '../../store/values.js';\nexport const p: Partial<Schema> = { t: formatInstant };\n",
  'weave/model/tx.ts':
    "import { withTx } from '../../store/with-tx.js';\nexport const t = withTx;\n",
  'weave/model/fs.ts': "import { readFileSync } from 'node:fs';\nexport const f = readFileSync;\n",
};

/** Imports between packages, unresolved here (no node_modules), as before a build. */
const PLANTED_PACKAGES: Readonly<Record<string, string>> = {
  'packages/sdk/src/up.ts':
    "import type { Server } from '@weave/server';\nexport type S = Server;\n",
  'packages/engine/src/up.ts': "import type { C } from '@weave/sdk';\nexport type D = C;\n",
  'packages/server/src/cli/client.ts': "import type { C } from '@weave/sdk';\nexport type G = C;\n",
  'packages/server/src/http/client.ts':
    "import type { C } from '@weave/sdk';\nexport type H = C;\n",
  'packages/server/src/store/codes.ts':
    "import type { P } from '@weave/sdk/protocol';\nexport type H = P;\n",
  'packages/json/src/up.ts': "import type { E } from '@weave/engine';\nexport type F = E;\n",
};

describe('dependency rules on a planted tree', () => {
  let dir: string;
  let found: Violation[];
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'weave-layers-'));
    const files = [
      ...Object.entries(PLANTED).map(([path, source]) => [`${SRC}/${path}`, source] as const),
      ...Object.entries(PLANTED_PACKAGES),
    ];
    for (const [path, source] of files) {
      const file = join(dir, path);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, source);
    }
    found = cruise(dir, ['packages']);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const reported = (rule: string, from: string, to: string) =>
    found.some((v) => v.rule === rule && v.from === `${SRC}/${from}` && v.to === `${SRC}/${to}`);

  test('depcruise exits non-zero on a violation, so npm run lint fails', () => {
    const run = depcruise(dir, ['packages']);
    assert.notEqual(run.status, 0, run.stdout);
    assert.match(run.stdout, /error layer-order-store: packages\/server\/src\/store\/bad\.ts/);
  });

  test('a store module importing http is refused', () => {
    assert.ok(reported('layer-order-store', 'store/bad.ts', 'http/y.ts'), JSON.stringify(found));
  });

  test('a two-file cycle is refused, even of type-only imports', () => {
    assert.ok(
      found.some((v) => v.rule === 'no-cycle' && v.from === `${SRC}/auth/a.ts`),
      JSON.stringify(found),
    );
  });

  test('a cycle between folders is refused even when no file cycle exists', () => {
    const folderCycles = found.filter((v) => v.rule === 'no-folder-cycle');
    assert.ok(
      folderCycles.some((v) => v.from.includes('weave/model') || v.from.includes('weave/runtime')),
      JSON.stringify(found),
    );
  });

  test('pulse may import orbit; orbit importing pulse is refused', () => {
    assert.ok(!found.some((v) => v.from === `${SRC}/pulse/uses-orbit.ts`), JSON.stringify(found));
    assert.ok(reported('orbit-not-pulse', 'orbit/uses-pulse.ts', 'pulse/uses-orbit.ts'));
  });

  test('the sdk importing the server, the engine the sdk, json the engine are refused', () => {
    const between = (rule: string, from: string, to: string) =>
      found.some((v) => v.rule === rule && v.from === from && v.to === to);
    assert.ok(between('sdk-not-server', 'packages/sdk/src/up.ts', '@weave/server'));
    assert.ok(between('engine-json-below-all', 'packages/engine/src/up.ts', '@weave/sdk'));
    assert.ok(
      between('json-below-engine', 'packages/json/src/up.ts', '@weave/engine'),
      JSON.stringify(found),
    );
  });

  test('pulse importing weave is refused, but for settle-task.ts calling the weave step', () => {
    assert.ok(!found.some((v) => v.from === `${SRC}/pulse/settle-task.ts`), JSON.stringify(found));
    const step = 'weave/delivery/deliver-result.ts';
    assert.ok(reported('layer-order-weave-step', 'pulse/cancel-task.ts', step));
    assert.ok(reported('layer-order-pulse-orbit', 'pulse/up.ts', 'weave/model/m2.ts'));
  });

  test('the server may import @weave/sdk/protocol and nothing else of the sdk (but cli/, a client)', () => {
    assert.ok(!found.some((v) => v.from === `${SRC}/store/codes.ts`), JSON.stringify(found));
    assert.ok(
      found.some(
        (v) => v.rule === 'server-sdk-protocol-only' && v.from === `${SRC}/http/client.ts`,
      ),
    );
    assert.ok(!found.some((v) => v.from === `${SRC}/cli/client.ts`), 'cli/ calls a server');
  });

  test('weave/model imports only store/values.ts and store/schema.ts of the server, and no node: module', () => {
    assert.ok(!found.some((v) => v.from === `${SRC}/weave/model/pure.ts`), JSON.stringify(found));
    assert.ok(reported('weave-model-pure', 'weave/model/tx.ts', 'store/with-tx.ts'));
    assert.ok(reported('weave-model-pure', 'weave/model/m1.ts', 'weave/runtime/r2.ts'));
    assert.ok(
      found.some((v) => v.rule === 'weave-model-no-node' && v.from === `${SRC}/weave/model/fs.ts`),
      JSON.stringify(found),
    );
  });

  test('http may import store/with-tx.ts and nothing else of store', () => {
    assert.ok(!found.some((v) => v.from === `${SRC}/http/fine.ts`), JSON.stringify(found));
    assert.ok(reported('http-store-only-with-tx', 'http/reach.ts', 'store/values.ts'));
  });
});

describe('dependency rules on the real sources', () => {
  let found: Violation[];
  before(() => {
    const dirs = ['json', 'engine', 'sdk', 'server'].map((p) => `packages/${p}/src`);
    found = cruise(repoRoot, dirs);
  });

  test('the real tree breaks no dependency rule at all', () => {
    assert.deepEqual(found, []);
  });
});
