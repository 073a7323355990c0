/**
 * What a test worker does with a task, chosen by the task's input (`input.op`): the one
 * vocabulary of the end-to-end tests, for the SDK `Worker` inside the test process
 * (run-http.test.ts, clock-http.test.ts) and for the worker processes of worker-process.ts.
 *
 * - `echo`: returns the input as it came (exact numbers included).
 * - `fail`: fails for good (`NonRetryableError`) with `input.code` and `input.message`.
 * - `throw`: a retryable failure (`input.message`).
 * - `poll`: a POLL's query; answers `input.answers[n]` on the n-th call with the same
 *   `input.key` (the last one from then on), counted in this worker's memory. An answer `THROW`
 *   is a retryable failure, `HANG` runs until cancelled; any other is `{ status, round }`.
 * - `slow`: takes `input.ms` whatever it is told (a cancel request does not stop it); `{ op, ms }`.
 * - `hang`: runs until cancelled (the heartbeat answers `cancel_requested`), then fails retryably.
 * - anything else: `{ op }`.
 *
 * Any op may carry `hold: "<name>"`: the handler first waits until `memory.release(name)` (a
 * worker process: the parent's `release`) or until the attempt is cancelled (then it fails
 * retryably with `cancelled` and does not run its op); with `uncancellable: true` only the
 * release ends the hold.
 */
import { NonRetryableError } from '@weave/sdk';
import type { TaskContext } from '@weave/sdk';

export interface TaskMemory {
  /** Calls of `poll` by `input.key` so far. */
  readonly attempts: Map<string, number>;
  /** Lets every task held on `name` (now or later) go on. */
  release(name: string): void;
  /** Resolves once `name` is released, rejects when `signal` aborts first. */
  held(name: string, signal: AbortSignal): Promise<void>;
}

export function createTaskMemory(): TaskMemory {
  const released = new Set<string>();
  const waiting = new Map<string, (() => void)[]>();
  return {
    attempts: new Map(),
    release(name) {
      released.add(name);
      for (const wake of waiting.get(name) ?? []) {
        wake();
      }
      waiting.delete(name);
    },
    held(name, signal) {
      if (released.has(name)) {
        return Promise.resolve();
      }
      return new Promise<void>((resolve, reject) => {
        waiting.set(name, [...(waiting.get(name) ?? []), resolve]);
        untilCancelled(signal).then(() => reject(cancelled()), reject);
      });
    },
  };
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null;
}

/** `input.op` as a string ('' when there is none). */
export function opOf(input: unknown): string {
  return isRecord(input) && typeof input.op === 'string' ? input.op : '';
}

/** Runs the behaviour `input` asks for (module doc). */
export async function behave(
  input: unknown,
  ctx: TaskContext,
  memory: TaskMemory,
): Promise<unknown> {
  const op = opOf(input);
  const field = (name: string) => (isRecord(input) ? input[name] : undefined);
  const text = (name: string, otherwise: string) => {
    const value = field(name);
    return typeof value === 'string' ? value : otherwise;
  };
  const hold = field('hold');
  if (typeof hold === 'string') {
    // `uncancellable: true`: the hold outlasts a cancel request (only the release ends it).
    const stubborn = field('uncancellable') === true;
    await memory.held(hold, stubborn ? new AbortController().signal : ctx.signal);
  }
  switch (op) {
    case 'echo':
      return input;
    case 'fail':
      throw new NonRetryableError(text('message', 'failed'), {
        code: text('code', 'non_retryable'),
      });
    case 'throw':
      throw new Error(text('message', 'a retryable failure'));
    case 'poll':
      return poll(text('key', ''), field('answers'), ctx, memory);
    case 'slow': {
      const ms = Number(field('ms') ?? 0);
      // sleep-ok: the task's work takes this long (its duration is the test's input)
      await new Promise((r) => setTimeout(r, ms));
      return { op, ms };
    }
    case 'hang':
      await untilCancelled(ctx.signal);
      throw cancelled();
    default:
      return { op };
  }
}

async function poll(
  key: string,
  answers: unknown,
  ctx: TaskContext,
  memory: TaskMemory,
): Promise<unknown> {
  const n = memory.attempts.get(key) ?? 0;
  memory.attempts.set(key, n + 1);
  const list = Array.isArray(answers) ? (answers as unknown[]) : [];
  const answer = String(list[Math.min(n, list.length - 1)]);
  if (answer === 'THROW') {
    throw new Error('the carrier API is down for a moment');
  }
  if (answer === 'HANG') {
    await untilCancelled(ctx.signal);
    throw cancelled();
  }
  return { status: answer, round: n + 1 };
}

function untilCancelled(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) {
      resolve();
    } else {
      signal.addEventListener('abort', () => resolve(), { once: true });
    }
  });
}

function cancelled(): Error {
  return Object.assign(new Error('cancelled'), { code: 'cancelled' });
}
