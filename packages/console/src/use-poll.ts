/**
 * Load data through the client, optionally again every `intervalMs` while `active` holds (the
 * instance page polls about every second while the instance runs). Answers that arrive after
 * the inputs changed are dropped.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import { isFinalRefusal } from './refusal.js';

export interface Loaded<T> {
  readonly data: T | undefined;
  readonly error: unknown;
  readonly loading: boolean;
  readonly reload: () => void;
}

export function usePoll<T>(
  load: () => Promise<T>,
  deps: readonly unknown[],
  options: { readonly intervalMs?: number; readonly active?: (data: T) => boolean } = {},
): Loaded<T> {
  const [state, setState] = useState<{ data: T | undefined; error: unknown; loading: boolean }>({
    data: undefined,
    error: undefined,
    loading: true,
  });
  const [tick, setTick] = useState(0);
  const loadRef = useRef(load);
  loadRef.current = load;
  const optionsRef = useRef(options);
  optionsRef.current = options;
  useEffect(() => {
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    // New inputs (or a reload): loading until their first answer, the last data kept meanwhile.
    setState((s) => (s.loading ? s : { ...s, loading: true }));
    const run = async () => {
      try {
        const data = await loadRef.current();
        if (!live) {
          return;
        }
        setState({ data, error: undefined, loading: false });
        const { intervalMs, active } = optionsRef.current;
        if (intervalMs !== undefined && (active === undefined || active(data))) {
          timer = setTimeout(() => void run(), intervalMs);
        }
      } catch (error: unknown) {
        if (live) {
          setState((s) => ({ data: s.data, error, loading: false }));
          // A failed read while polling is tried again on the next round, unless the server
          // refused it in a way asking again cannot change (a missing scope, an unknown id).
          const { intervalMs } = optionsRef.current;
          if (intervalMs !== undefined && !isFinalRefusal(error)) {
            timer = setTimeout(() => void run(), intervalMs);
          }
        }
      }
    };
    void run();
    return () => {
      live = false;
      clearTimeout(timer);
    };
    // The caller names the inputs in `deps`; `load` itself is read through the ref.
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { ...state, reload };
}
