/**
 * A fake Weave server for the Worker's tests: a `node:http` server on 127.0.0.1 that answers the
 * worker protocol the way a test says. Each call arrives as a `FakeCall` (its kind, its parsed
 * body and its size in bytes); the test answers it, or holds it unanswered (a half-open
 * connection). By default claims hand out the tasks given to `offer` and otherwise answer empty
 * after a short pause, completions are all accepted, and heartbeats and starts answer as the
 * server would for a live permit.
 */
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ClaimedTask } from '../../src/index.js';

export type CallKind = 'claims' | 'completions' | 'heartbeat' | 'start' | 'other';

export interface FakeCall {
  readonly kind: CallKind;
  readonly path: string;
  readonly body: Record<string, unknown>;
  /** Bytes of the request body as received. */
  readonly bytes: number;
  answer(status: number, body: unknown): void;
  /** Answers with this text as it is (an HTML error page). */
  answerText(status: number, text: string): void;
  /** The default answer for its kind. */
  answerDefault(): void;
}

/** Returns `true` when it answered (or will answer) the call; `false` for the default answer. */
export type CallHandler = (call: FakeCall) => boolean;

export interface FakeWeave {
  readonly url: string;
  /** Every call so far, in arrival order. */
  readonly calls: FakeCall[];
  /** Tasks the next claims hand out, as many as each asks for. */
  offer(...tasks: ClaimedTask[]): void;
  close(): Promise<void>;
}

/** How long an empty claim waits before answering: the worker's next claim follows at once. */
const EMPTY_CLAIM_PAUSE_MS = 20;

export async function startFakeWeave(handle: CallHandler = () => false): Promise<FakeWeave> {
  const offered: ClaimedTask[] = [];
  const calls: FakeCall[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const call = toCall(req, res, raw, offered);
      calls.push(call);
      if (!handle(call)) {
        call.answerDefault();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    offer: (...tasks) => offered.push(...tasks),
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

function toCall(
  req: IncomingMessage,
  res: ServerResponse,
  raw: Buffer,
  offered: ClaimedTask[],
): FakeCall {
  const path = req.url ?? '';
  const body = (raw.length === 0 ? {} : JSON.parse(raw.toString('utf8'))) as Record<
    string,
    unknown
  >;
  const kind = kindOf(path);
  const answer = (status: number, answerBody: unknown) => {
    if (!res.writableEnded && !res.destroyed) {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(answerBody));
    }
  };
  const call: FakeCall = {
    kind,
    path,
    body,
    bytes: raw.length,
    answer,
    answerText: (status, text) => {
      if (!res.writableEnded && !res.destroyed) {
        res.writeHead(status, { 'content-type': 'text/html' });
        res.end(text);
      }
    },
    answerDefault: () => {
      if (kind === 'claims') {
        const tasks = offered.splice(0, Number(body.max_tasks ?? 1));
        const pause = tasks.length > 0 ? 0 : EMPTY_CLAIM_PAUSE_MS;
        setTimeout(() => answer(200, { tasks }), pause);
      } else if (kind === 'completions') {
        answer(200, acceptAll(body));
      } else if (kind === 'heartbeat') {
        answer(200, { lease_expires_at: '2026-12-01T00:00:30.000000Z', cancel_requested: false });
      } else {
        answer(200, { task_id: '1', attempt_id: '1', revision: '2', status: 'RUNNING' });
      }
    },
  };
  return call;
}

function kindOf(path: string): CallKind {
  const last = path.split('?')[0]?.split('/').pop() ?? '';
  return last === 'claims' || last === 'completions' || last === 'heartbeat' || last === 'start'
    ? last
    : 'other';
}

/** The answer of a `completeMany` that settles every item. */
export function acceptAll(body: Record<string, unknown>) {
  const items = (body.completions ?? []) as { task_id: string; attempt_id: string }[];
  return {
    receipts: items.map((item, index) => ({
      index,
      task_id: item.task_id,
      attempt_id: item.attempt_id,
      revision: '3',
      status: 'SUCCEEDED',
    })),
    errors: [],
    tasks: [],
  };
}

/** A claimed task as the server hands it out. */
export function claimedTask(id: number, input: unknown = null): ClaimedTask {
  return {
    task_id: String(id),
    attempt_id: String(id + 1000),
    permit: `p_${id}`,
    lease_expires_at: '2026-12-01T00:00:30.000000Z',
    deadline_at: '2026-12-02T00:00:00.000000Z',
    input,
    attempt_number: 1,
    idempotent: true,
  };
}

/** The completions the fake server received, by task id, last one winning. */
export function completionsByTask(
  calls: readonly FakeCall[],
): Map<string, Record<string, unknown>> {
  const byTask = new Map<string, Record<string, unknown>>();
  for (const call of calls) {
    if (call.kind === 'completions') {
      for (const item of (call.body.completions ?? []) as Record<string, unknown>[]) {
        byTask.set(String(item.task_id), item);
      }
    }
  }
  return byTask;
}

/** Resolves once `pred` holds, checking every 10 ms; rejects after `timeoutMs`. */
export async function waitFor(
  pred: () => boolean,
  options: { timeoutMs?: number; what?: string } = {},
): Promise<void> {
  const until = Date.now() + (options.timeoutMs ?? 5_000);
  while (!pred()) {
    if (Date.now() > until) {
      throw new Error(`timed out waiting for ${options.what ?? 'a condition'}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Resolves with `promise`, or rejects after `ms`: for a promise that must not hang. */
export function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took over ${ms} ms`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/**
 * Stops the worker, failing if that takes over 5 s, then closes the fake server, whose
 * connections end with it (a call it held unanswered fails then, so nothing is left hanging).
 */
export async function stopBoth(worker: { stop(): Promise<void> }, fake: FakeWeave): Promise<void> {
  try {
    await within(worker.stop(), 5_000, 'stop()');
  } finally {
    await fake.close();
  }
}
