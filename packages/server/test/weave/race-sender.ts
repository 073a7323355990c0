/**
 * One side of the signal race (signal-race.test.ts), in a process of its own: it reads its job
 * as one JSON line on stdin — the node's URL, the key, and either the query completions or the
 * final signals to send — answers `ready`, waits for `go`, then sends every item at once and
 * prints `{"sent": n, "errors": [...]}` before it exits.
 */
import { createInterface } from 'node:readline';
import { WeaveClient } from '@weave/sdk';

interface Completion {
  readonly task_id: string;
  readonly attempt_id: string;
  readonly permit: string;
}

interface Job {
  readonly url: string;
  readonly namespace: string;
  readonly key: string;
  readonly completions?: readonly Completion[];
  readonly signals?: readonly string[];
}

const lines: AsyncIterator<string> = createInterface({ input: process.stdin })[
  Symbol.asyncIterator
]();

async function nextLine(): Promise<string> {
  const next = await lines.next();
  if (next.done === true) {
    throw new Error('stdin closed');
  }
  return next.value;
}

const job = JSON.parse(await nextLine()) as Job;
const client = new WeaveClient({ url: job.url, namespace: job.namespace, apiKey: job.key });
process.stdout.write('ready\n');
if ((await nextLine()) !== 'go') {
  throw new Error('expected go');
}
const sends = [
  ...(job.completions ?? []).map((task) =>
    client.completeAttempt(task.task_id, task.attempt_id, task.permit, {
      outcome: 'succeeded',
      result: { status: 'DONE', by: 'query' },
    }),
  ),
  ...(job.signals ?? []).map((key) =>
    client.signals.send({
      name: 'delivered',
      correlation_key: key,
      payload: { status: 'DONE', by: 'signal' },
    }),
  ),
];
const settled = await Promise.allSettled(sends);
const errors = settled.flatMap((s) => (s.status === 'rejected' ? [String(s.reason)] : []));
process.stdout.write(`${JSON.stringify({ sent: settled.length - errors.length, errors })}\n`);
process.exit(0);
