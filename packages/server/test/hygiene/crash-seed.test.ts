/**
 * The crash tests' random choices come from one seed (test/support/random.ts): printed at the
 * start, settable with WEAVE_CRASH_SEED. The crash tests themselves run for minutes; here each
 * file runs with MariaDB switched off (the test is then skipped, the seed still printed), and
 * their sources are checked for an unseeded `Math.random`.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { deriveSeed, seededRandom, seedFrom } from '../support/random.js';

/** The crash tests: the Pulse one and the Weave one, each with its worker process. */
const CRASH_TESTS = [
  { test: 'crash.test', worker: 'crash-worker', prints: 'crash test seed' },
  { test: 'weave-crash.test', worker: 'weave-crash-worker', prints: 'weave crash test seed' },
];
const CRASH_SOURCES = new URL('../../../test/crash/', import.meta.url);

function draws(seed: number, n: number): number[] {
  const random = seededRandom(seed);
  return Array.from({ length: n }, () => random());
}

/** A crash test file's output with MariaDB off (its test skipped) and `env` added. */
function crashTestOutput(
  file: string,
  env: NodeJS.ProcessEnv,
): { status: number | null; out: string } {
  const { NODE_TEST_CONTEXT: _inherited, WEAVE_CRASH_SEED: _seed, ...rest } = process.env;
  const js = fileURLToPath(new URL(`../crash/${file}.js`, import.meta.url));
  const run = spawnSync(process.execPath, ['--test', '--test-reporter=tap', js], {
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...rest, WEAVE_TEST_MYSQL: 'off', CI: '', ...env },
  });
  return { status: run.status, out: `${run.stdout}\n${run.stderr}` };
}

test('crash tests: the seed is printed and WEAVE_CRASH_SEED replays the same random choices', () => {
  // The generator: the same seed gives the same sequence, another seed another one.
  const first = draws(42, 1_000);
  assert.deepEqual(draws(42, 1_000), first);
  assert.notDeepEqual(draws(43, 1_000), first);
  assert.ok(first.every((x) => x >= 0 && x < 1));
  const mean = first.reduce((a, b) => a + b, 0) / first.length;
  assert.ok(Math.abs(mean - 0.5) < 0.05, `roughly uniform (mean ${mean})`);
  // Worker processes: the n-th started gets the same derived seed in a replay, each its own.
  const derived = Array.from({ length: 100 }, (_, n) => deriveSeed(42, n));
  assert.deepEqual(
    Array.from({ length: 100 }, (_, n) => deriveSeed(42, n)),
    derived,
  );
  assert.equal(new Set(derived).size, 100);
  // The variable: taken as given, refused when malformed, a fresh seed when unset.
  assert.equal(seedFrom({ WEAVE_CRASH_SEED: '42' }, 'WEAVE_CRASH_SEED'), 42);
  assert.throws(() => seedFrom({ WEAVE_CRASH_SEED: 'x' }, 'WEAVE_CRASH_SEED'), /WEAVE_CRASH_SEED/);
  assert.throws(() => seedFrom({ WEAVE_CRASH_SEED: '-1' }, 'WEAVE_CRASH_SEED'));
  const fresh = seedFrom({}, 'WEAVE_CRASH_SEED');
  assert.ok(Number.isInteger(fresh) && fresh >= 0 && fresh < 2 ** 32);

  // The cluster both crash tests share (it derives each worker process's seed).
  const cluster = readFileSync(new URL('../support/crash-cluster.ts', CRASH_SOURCES), 'utf8');
  assert.doesNotMatch(cluster, /Math\.random/, 'crash-cluster.ts uses Math.random');

  for (const crash of CRASH_TESTS) {
    // The crash test and its worker draw nothing unseeded.
    for (const file of [`${crash.test}.ts`, `${crash.worker}.ts`]) {
      const source = readFileSync(new URL(file, CRASH_SOURCES), 'utf8');
      assert.doesNotMatch(source, /Math\.random/, `${file} uses Math.random`);
    }

    // The crash test prints the seed it uses: the one given, or a fresh one that it names.
    const given = crashTestOutput(crash.test, { WEAVE_CRASH_SEED: '42' });
    assert.equal(given.status, 0, given.out);
    assert.ok(
      given.out.includes(
        `# ${crash.prints} 42 (replay its random choices with WEAVE_CRASH_SEED=42)`,
      ),
      `${crash.test} prints the seed given: ${given.out}`,
    );
    const unset = crashTestOutput(crash.test, {});
    assert.match(
      unset.out,
      new RegExp(
        `# ${crash.prints} (\\d+) \\(replay its random choices with WEAVE_CRASH_SEED=\\1\\)`,
      ),
    );
    const bad = crashTestOutput(crash.test, { WEAVE_CRASH_SEED: 'soon' });
    assert.notEqual(bad.status, 0);
    assert.match(bad.out, /WEAVE_CRASH_SEED must be an integer/);
  }
});
