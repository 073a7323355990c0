/**
 * `WorkerOptions.onError`, made safe to call from anywhere in the worker. A callback that throws
 * (or, declared `async`, rejects) must not end a claim loop, become an unhandled rejection in a
 * heartbeat timer (which ends a Node process) or skip the rest of a batch's reports (then
 * `stop()` never resolves). Its first failure is written to `console.error`, so that the fault
 * is seen; later ones are dropped, not to flood the log on every error the worker survives.
 */
export type ErrorReporter = (error: unknown) => void;

/**
 * @example
 * const report = safeReporter(options.onError);
 * report(new Error('claim failed')); // never throws
 */
export function safeReporter(onError: ((error: unknown) => void) | undefined): ErrorReporter {
  if (onError === undefined) {
    return () => undefined;
  }
  let shown = false;
  const failed = (thrown: unknown) => {
    if (!shown) {
      shown = true;
      console.error('@weave/sdk Worker: onError threw (later failures are not shown):', thrown);
    }
  };
  return (error) => {
    try {
      const returned: unknown = onError(error);
      if (returned instanceof Promise) {
        void returned.catch(failed);
      }
    } catch (thrown: unknown) {
      failed(thrown);
    }
  };
}
