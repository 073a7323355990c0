/**
 * A background loop: run `pass` every `intervalMs`, and again at once while a pass reports a full
 * batch (`true`). `stop()` prevents new passes and waits for the one in flight, so the pool can
 * close after it. Errors go to `onError` and the loop carries on.
 */
export interface PeriodicLoop {
  stop(): Promise<void>;
}

export interface PeriodicLoopOptions {
  readonly intervalMs: number;
  /** One pass; resolves `true` when there is more to do right away. */
  readonly pass: (isStopped: () => boolean) => Promise<boolean>;
  readonly onError?: ((error: unknown) => void) | undefined;
}

export function startPeriodicLoop(options: PeriodicLoopOptions): PeriodicLoop {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const isStopped = () => stopped;
  const drain = async (): Promise<void> => {
    try {
      while ((await options.pass(isStopped)) && !stopped) {
        // A full batch: go again without waiting.
      }
    } catch (e: unknown) {
      options.onError?.(e);
    }
  };
  const schedule = () => {
    if (stopped) {
      return;
    }
    timer = setTimeout(() => {
      running = drain().then(schedule);
    }, options.intervalMs);
  };
  schedule();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
