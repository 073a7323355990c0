/** Wait for a condition instead of sleeping a fixed time (graphile's sleepUntil). */
export async function waitFor<T>(
  probe: () => Promise<T | undefined> | T | undefined,
  options: { timeoutMs?: number; intervalMs?: number; what?: string } = {},
): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? 10_000);
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) {
      return value;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${options.what ?? 'a condition'}`);
    }
    await new Promise((r) => setTimeout(r, options.intervalMs ?? 20));
  }
}
