/**
 * A real webhook receiver for tests: node:http on 127.0.0.1, recording every request (raw body,
 * headers, what it answered) and how many requests per subscription overlapped. `answer`
 * decides per request: a status, `'drop'` to read the request and close the connection
 * without a response (a lost response), or `'hang'` to never answer.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { track } from '../support/leaks.js';

export type Answer = number | 'drop' | 'hang';

export interface ReceivedRequest {
  /** ms since the receiver started. */
  readonly atMs: number;
  readonly timestamp: string | undefined;
  readonly signature: string | undefined;
  readonly body: string;
  readonly subscriptionId: string;
  readonly seqs: readonly string[];
  readonly events: readonly Record<string, unknown>[];
  readonly answer: Answer;
}

export interface Receiver {
  readonly url: string;
  readonly requests: ReceivedRequest[];
  /** Most requests of one subscription in flight at once. */
  maxConcurrent(): number;
  setAnswer(answer: (request: Omit<ReceivedRequest, 'answer'>) => Answer): void;
  close(): Promise<void>;
}

export async function startReceiver(
  initial: (request: Omit<ReceivedRequest, 'answer'>) => Answer = () => 200,
): Promise<Receiver> {
  const started = Date.now();
  const requests: ReceivedRequest[] = [];
  const inFlight = new Map<string, number>();
  let max = 0;
  let answer = initial;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    let subscriptionId = '?';
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const parsed = JSON.parse(body) as {
        subscription_id: string;
        events: Record<string, unknown>[];
      };
      subscriptionId = parsed.subscription_id;
      const now = (inFlight.get(subscriptionId) ?? 0) + 1;
      inFlight.set(subscriptionId, now);
      max = Math.max(max, now);
      const seen = {
        atMs: Date.now() - started,
        timestamp: req.headers['weave-timestamp'] as string | undefined,
        signature: req.headers['weave-signature'] as string | undefined,
        body,
        subscriptionId,
        seqs: parsed.events.map((e) => String(e.seq)),
        events: parsed.events,
      };
      const chosen = answer(seen);
      requests.push({ ...seen, answer: chosen });
      // A short pause keeps the request "in flight" long enough for an overlap to show.
      setTimeout(() => {
        inFlight.set(subscriptionId, (inFlight.get(subscriptionId) ?? 1) - 1);
        if (chosen === 'drop') {
          req.socket.destroy();
        } else if (chosen !== 'hang') {
          res.writeHead(chosen, { 'content-type': 'text/plain' }).end('ok');
        }
      }, 5);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}/hooks/weave`;
  const stop = async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  };
  const tracked = track('receiver', url, stop);
  return {
    url,
    requests,
    maxConcurrent: () => max,
    setAnswer(next) {
      answer = next;
    },
    async close() {
      await stop();
      tracked.untrack();
    },
  };
}
