/**
 * The leak check (STYLE.md §10): every server, pool, database, process, receiver, worker and
 * helper timer that a helper in test/support opens is registered here with `track(…)`, and the
 * handle's `untrack()` runs when the helper closes it. Importing this module (every helper does)
 * registers root hooks for the importing test file (node:test applies root-level hooks to every
 * test of the file; each file runs in its own process, so this registry is per file):
 *
 * - `beforeEach`/`afterEach` keep the set of tests running now. A resource records the tests
 *   running when it was opened. Once all of them have finished (after their own `afterEach`
 *   hooks), it must be closed, or the test fails with what leaked and where it was opened.
 *   Tests run one at a time unless a suite asks for `concurrency`; then a resource opened while
 *   two tests ran is checked when the later of them ends, and the message names both.
 * - A resource opened while no test runs (a `before` hook, module scope) belongs to the suite:
 *   it must be closed by the end of the file (the root `after`, which runs after every suite's
 *   `after`).
 *
 * A leaked resource is closed after it is reported, so that one leak does not hang the file's
 * process or cascade into the next test.
 */
import { after, afterEach, beforeEach } from 'node:test';

export type LeakKind = 'server' | 'pool' | 'database' | 'process' | 'receiver' | 'worker' | 'timer';

export interface Tracked {
  /** The resource was closed: it is no longer checked. */
  untrack(): void;
}

interface Entry {
  readonly kind: LeakKind;
  readonly name: string;
  readonly site: string;
  /** Names of the tests running when it was opened; empty: opened outside any test. */
  readonly during: ReadonlySet<object>;
  readonly testNames: readonly string[];
  readonly close: () => unknown;
}

// Per-process test registry (test support only; src keeps no module state, STYLE.md §8).
const open = new Set<Entry>();
const running = new Map<object, string>();

/** Registers an open resource; `close` is used only to clean up after a reported leak. */
export function track(kind: LeakKind, name: string, close: () => unknown): Tracked {
  const entry: Entry = {
    kind,
    name,
    site: openedAt(new Error().stack ?? ''),
    during: new Set(running.keys()),
    testNames: [...running.values()],
    close,
  };
  open.add(entry);
  return { untrack: () => open.delete(entry) };
}

/** What is open now (for the leak check's own tests). */
export function openResources(): readonly { kind: LeakKind; name: string }[] {
  return [...open].map(({ kind, name }) => ({ kind, name }));
}

/** The first frames outside this module and node's internals: where the helper was called. */
function openedAt(stack: string): string {
  const frames = stack
    .split('\n')
    .slice(1)
    .map((l) => l.trim())
    .filter((l) => !l.includes('/test/support/leaks.') && !l.includes('(node:'));
  return frames.slice(0, 4).join('\n      ');
}

function describeLeak(e: Entry): string {
  return `  - ${e.kind} "${e.name}", opened\n      ${e.site}`;
}

async function failOn(leaked: readonly Entry[], scope: string): Promise<void> {
  if (leaked.length === 0) {
    return;
  }
  for (const e of leaked) {
    open.delete(e);
  }
  const message =
    `leak check: ${leaked.length} resource(s) opened ${scope} still open:\n` +
    leaked.map(describeLeak).join('\n');
  // Close them anyway, so that the leak does not keep the process alive or spill over.
  await Promise.allSettled(leaked.map((e) => Promise.resolve().then(e.close)));
  throw new Error(message);
}

beforeEach((t) => {
  running.set(t, t.name);
});

afterEach(async (t) => {
  running.delete(t);
  const leaked = [...open].filter(
    (e) => e.during.has(t) && [...e.during].every((other) => !running.has(other)),
  );
  const names = [...new Set(leaked.flatMap((e) => e.testNames))];
  await failOn(leaked, `during test ${names.map((n) => `"${n}"`).join(' or ')}`);
});

after(async () => {
  await failOn(
    [...open],
    'outside a test (a before hook or module scope) and at the end of the file',
  );
});
