// The order-fulfilment tour: `node examples/start-orders.mjs` publishes the workflow (the same
// source again reuses its version), starts four orders, sends the approval signals the large
// ones wait for, retries the order whose payment fails on purpose with an edited input, and
// prints every outcome as read from the application's Orbit result stream (`dev`). Needs a
// worker: `node examples/worker.mjs`, or `weave dev --with-examples`. Exit status 0 when every
// order SUCCEEDED.
import { jsonNumber, stringify } from '@weave/json';
import { connect, waitForServer } from './connect.mjs';
import { WORKFLOW_NAME, loadDefinition } from './order-fulfilment.mjs';

/** The application's default stream is named after it; `weave dev`'s application is `dev`. */
const STREAM = process.env.WEAVE_STREAM ?? 'dev';
/** Long enough for a worker to start a little late; the four orders take about 5 s. */
const TIMEOUT_MS = Number(process.env.EXAMPLE_TIMEOUT_MS ?? 120_000);
const POLL_MS = 200;

await waitForServer();
const client = connect();
const run = Date.now().toString(36);
// Amounts as exact JSON numbers: 1000.000000000000000001 is over the approval limit of 1000,
// which a float64 (1000) would not be, and the big one keeps every digit to the payment.
const orders = [
  { order_id: `ORD-${run}-1`, customer: 'ada', amount: jsonNumber('25.50') },
  { order_id: `ORD-${run}-2`, customer: 'grace', amount: jsonNumber('1000.000000000000000001') },
  {
    order_id: `ORD-${run}-3`,
    customer: 'edsger',
    amount: jsonNumber('12345678901234567890.000000000000000001'),
    confirm_by_signal: true,
  },
  {
    order_id: `ORD-${run}-4`,
    customer: 'barbara',
    amount: jsonNumber('42.00'),
    fail_payment: true,
  },
];
const needsApproval = new Set([orders[1].order_id, orders[2].order_id]);

const deadline = Date.now() + TIMEOUT_MS;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const { version, created } = await client.workflows.publish(loadDefinition());
console.log(`${created ? 'published' : 'using'} workflow ${WORKFLOW_NAME} version ${version}`);

// Read outcomes from the stream's head onwards: only what happens from now on.
const { stream } = await client.results.getStream(STREAM);
const outcomes = createOutcomeReader(stream.head_seq);

const started = [];
for (const input of orders) {
  const { instance } = await client.instances.start(
    WORKFLOW_NAME,
    { input, business_key: input.order_id },
    `start-${input.order_id}`,
  );
  outcomes.watch(instance.id);
  started.push({ input, instance });
  console.log(`${input.order_id}: started instance ${instance.id} (amount ${input.amount.text})`);
}

const finals = await Promise.all(started.map(drive));
outcomes.stop();

console.log(`\nresults from stream ${STREAM}:`);
for (const { input, instance, event } of finals) {
  const body = event.type === 'instance.succeeded' ? event.result : event.error;
  console.log(`${input.order_id}  instance ${instance.id}  ${event.status}  ${stringify(body)}`);
}
const succeeded = finals.filter((f) => f.event.status === 'SUCCEEDED').length;
console.log(`${succeeded} of ${finals.length} orders SUCCEEDED`);
process.exitCode = succeeded === finals.length ? 0 : 1;

/** Takes one order to its end: signals, the retry of a declined payment, its final event. */
async function drive({ input, instance }) {
  const id = instance.id;
  if (needsApproval.has(input.order_id)) {
    await untilStep(id, 'approve', 'WAITING');
    const sent = await client.signals.send(
      {
        name: 'approval',
        correlation_key: input.order_id,
        payload: { approved: true, by: 'ann@example.com' },
      },
      `approve-${input.order_id}`,
    );
    console.log(`${input.order_id}: approval signal matched ${describeMatches(sent.matched)}`);
  }
  if (input.confirm_by_signal === true) {
    await untilStep(id, 'track', 'ACTIVE');
    const sent = await client.signals.send(
      {
        name: 'delivered',
        correlation_key: input.order_id,
        payload: { status: 'DELIVERED', by: 'carrier webhook' },
      },
      `delivered-${input.order_id}`,
    );
    console.log(`${input.order_id}: delivered signal matched ${describeMatches(sent.matched)}`);
  }
  let event = await outcomes.next(id);
  if (input.fail_payment === true && event.type === 'instance.failed') {
    console.log(`${input.order_id}: ${event.type} ${stringify(event.error)}`);
    // The operator's fix: the charge again, with the input edited (the console does the same).
    const charge = await client.instances.step(id, 'charge');
    const edited = { ...charge.activations.at(-1).input, fail_payment: false };
    await client.instances.retry(
      id,
      'charge',
      { input: edited, reason: 'the customer updated the card' },
      `retry-charge-${input.order_id}`,
    );
    console.log(`${input.order_id}: retried step charge with ${stringify(edited)}`);
    event = await outcomes.next(id);
  }
  console.log(`${input.order_id}: ${event.type} (stream seq ${event.seq})`);
  return { input, instance, event };
}

/** Waits until the instance's step has the status (steps are read in one call). */
async function untilStep(id, stepId, status) {
  for (;;) {
    const { steps } = await client.instances.steps(id);
    if (steps.find((s) => s.id === stepId)?.status === status) {
      return;
    }
    if (Date.now() > deadline) {
      throw new Error(`instance ${id}: step ${stepId} not ${status} within ${TIMEOUT_MS} ms`);
    }
    await sleep(POLL_MS);
  }
}

function describeMatches(matched) {
  return matched.map((m) => `instance ${m.instance_id} step ${m.step_id}`).join(', ') || 'nothing';
}

/**
 * One reader of the stream for all orders: `instance.*` events of watched instances are queued
 * per instance, in stream order; `next(id)` takes the next one.
 */
function createOutcomeReader(after) {
  const queued = new Map();
  const waiting = new Map();
  const stop = new AbortController();
  let cursor = after;
  let failure;
  const fail = (e) => {
    failure = e;
    for (const resolve of waiting.values()) {
      resolve();
    }
  };
  const loop = (async () => {
    while (!stop.signal.aborted) {
      if (Date.now() > deadline) {
        throw new Error(`no outcome for every order within ${TIMEOUT_MS} ms`);
      }
      const page = await client.results.readStream(STREAM, {
        after: cursor,
        limit: 100,
        waitMs: 2_000,
        signal: stop.signal,
      });
      for (const event of page.events) {
        const list = event.type.startsWith('instance.') && queued.get(event.instance_id);
        if (list) {
          list.push(event);
          waiting.get(event.instance_id)?.();
        }
      }
      cursor = page.next_after;
    }
  })().catch((e) => {
    if (!stop.signal.aborted) {
      fail(e);
    }
  });
  return {
    watch: (id) => queued.set(id, []),
    async next(id) {
      for (;;) {
        const event = queued.get(id).shift();
        if (event !== undefined) {
          return event;
        }
        if (failure !== undefined) {
          throw failure;
        }
        await new Promise((resolve) => waiting.set(id, resolve));
      }
    },
    stop() {
      stop.abort();
      return loop;
    },
  };
}
