/**
 * Wait for a condition instead of sleeping a fixed time (graphile's sleepUntil). A wait still
 * polling when its test ends (not awaited) is a leaked timer (leaks.ts).
 */
import { track } from './leaks.js';

export async function waitFor<T>(
  probe: () => Promise<T | undefined> | T | undefined,
  options: { timeoutMs?: number; intervalMs?: number; what?: string } = {},
): Promise<T> {
  const what = options.what ?? 'a condition';
  let cancelled = false;
  const tracked = track('timer', `waitFor(${what})`, () => (cancelled = true));
  try {
    return await poll(probe, options, () => cancelled);
  } finally {
    tracked.untrack();
  }
}

async function poll<T>(
  probe: () => Promise<T | undefined> | T | undefined,
  options: { timeoutMs?: number; intervalMs?: number; what?: string },
  cancelled: () => boolean,
): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? 10_000);
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) {
      return value;
    }
    if (Date.now() > deadline || cancelled()) {
      throw new Error(`timed out waiting for ${options.what ?? 'a condition'}`);
    }
    await new Promise((r) => setTimeout(r, options.intervalMs ?? 20));
  }
}
