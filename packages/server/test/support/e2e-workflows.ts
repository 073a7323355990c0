/**
 * The workflows of the end-to-end tests (run-http.test.ts, clock-http.test.ts and
 * e2e-processes.test.ts), all on queue `q1` of the test server; their tasks ask for the
 * behaviours of task-behaviours.ts by `op`.
 */

/**
 * reserve → BRANCH on an exact number (2^53 + 1 > 2^53) → ship: a PARALLEL whose `notify`
 * branch takes 200 ms → close, the successor of the join, which reads the joined output.
 */
export const ORDER = {
  schema_version: 1,
  name: 'order',
  input: {
    type: 'object',
    required: ['amount'],
    properties: { amount: { type: 'number' } },
  },
  steps: [
    {
      id: 'reserve',
      kind: 'TASK',
      queue: 'q1',
      input: { amount: '$.input.amount', op: 'echo' },
    },
    {
      id: 'big',
      kind: 'BRANCH',
      cases: [
        {
          when: { gt: ['$.input.amount', { kind: 'number', text: '9007199254740992' }] },
          steps: [{ id: 'approve', kind: 'TASK', queue: 'q1', input: { op: 'approve' } }],
        },
      ],
      default: [],
    },
    {
      id: 'ship',
      kind: 'PARALLEL',
      branches: {
        label: [{ id: 'print', kind: 'TASK', queue: 'q1', input: { op: 'print' } }],
        notify: [{ id: 'mail', kind: 'TASK', queue: 'q1', input: { op: 'slow', ms: 200 } }],
      },
    },
    {
      id: 'close',
      kind: 'TASK',
      queue: 'q1',
      input: { op: 'echo', shipped: '$.steps.ship.output' },
    },
  ],
  output: {
    reserved: '$.steps.reserve.output',
    shipped: '$.steps.ship.output',
    closed: '$.steps.close.output',
  },
};

/** ORDER's output for `amount` (a JSON number as the client sends it). */
export function orderOutput(amount: unknown) {
  const shipped = { label: { op: 'print' }, notify: { op: 'slow', ms: 200 } };
  return {
    reserved: { amount, op: 'echo' },
    shipped,
    closed: { op: 'echo', shipped },
  };
}

/** A TIMER between two TASKs: the clock (here the consumer's scan of due timers) fires it. */
export const NAPPING = {
  schema_version: 1,
  name: 'napping',
  steps: [
    { id: 'before', kind: 'TASK', queue: 'q1', input: { op: 'before' } },
    { id: 'nap', kind: 'TIMER', duration: 'PT1S' },
    { id: 'after', kind: 'TASK', queue: 'q1', input: { op: 'after' } },
  ],
};

/** Exact numbers from the Start input through a task's input and result to the outcome. */
export const EXACT = {
  schema_version: 1,
  name: 'exact',
  input: {
    type: 'object',
    required: ['huge', 'long'],
    properties: { huge: { type: 'number' }, long: { type: 'number' } },
  },
  steps: [
    {
      id: 'echo',
      kind: 'TASK',
      queue: 'q1',
      input: { op: 'echo', huge: '$.input.huge', long: '$.input.long' },
    },
    { id: 'again', kind: 'TASK', queue: 'q1', input: { op: 'echo', prev: '$.steps.echo.output' } },
  ],
  output: { first: '$.steps.echo.output', second: '$.steps.again.output' },
};

/** The task input that fails for good with `card_declined`. */
export const DECLINE = {
  op: 'fail',
  code: 'card_declined',
  message: 'the card was declined',
};

export const FAILING = {
  schema_version: 1,
  name: 'failing',
  steps: [{ id: 'boom', kind: 'TASK', queue: 'q1', input: DECLINE, retry: { max_attempts: 1 } }],
};

/** The workflows of run-http.test.ts. */
export const RUN_WORKFLOWS = [ORDER, FAILING, NAPPING, EXACT];

const CLASSIFY = {
  path: '$.status',
  pending: ['WAIT'],
  succeeded: ['DONE'],
  failed: ['LOST'],
  review: ['ODD'],
};

/** A POLL whose query task answers the instance's `answers` in turn, one per attempt. */
function pollWorkflow(name: string, poll: Record<string, unknown>) {
  return {
    schema_version: 1,
    name,
    input: {
      type: 'object',
      required: ['key', 'answers'],
      properties: { key: { type: 'string' }, answers: { type: 'array' } },
    },
    steps: [
      {
        id: 'track',
        kind: 'POLL',
        queue: 'q1',
        input: { op: 'poll', key: '$.input.key', answers: '$.input.answers' },
        classify: CLASSIFY,
        interval: 'PT0.2S',
        max_rounds: 10,
        timeout: 'PT30S',
        ...poll,
      },
      { id: 'after', kind: 'TASK', queue: 'q1', input: { op: 'after' } },
    ],
  };
}

/** A task that runs 2 s, past the 1 s instance deadline, then one that must never start. */
function slowWorkflow(name: string, idempotent: boolean) {
  return {
    schema_version: 1,
    name,
    timeout: 'PT1S',
    input: { type: 'object', properties: { key: { type: 'string' } } },
    steps: [
      {
        id: 'slow',
        kind: 'TASK',
        queue: 'q1',
        idempotent,
        input: { op: 'slow', ms: 2_000, key: '$.input.key' },
      },
      { id: 'never', kind: 'TASK', queue: 'q1', input: { op: 'never' } },
    ],
  };
}

/** The workflows of clock-http.test.ts. */
export const CLOCK_WORKFLOWS = [
  pollWorkflow('poll', {}),
  pollWorkflow('poll-few', { max_rounds: 2 }),
  pollWorkflow('poll-short', { interval: 'PT0.3S', timeout: 'PT1S', task_timeout: 'PT20S' }),
  {
    schema_version: 1,
    name: 'signal-timeout',
    steps: [{ id: 'approval', kind: 'SIGNAL', name: 'approve', correlation: 'x', timeout: 'PT1S' }],
  },
  slowWorkflow('slow-timeout', true),
  slowWorkflow('slow-unsure', false),
  {
    schema_version: 1,
    name: 'wait-timeout',
    timeout: 'PT1S',
    steps: [{ id: 'nap', kind: 'TIMER', duration: 'PT1H' }],
  },
  {
    schema_version: 1,
    name: 'fail-beside-wait',
    steps: [
      {
        id: 'both',
        kind: 'PARALLEL',
        branches: {
          work: [
            { id: 'boom', kind: 'TASK', queue: 'q1', input: DECLINE, retry: { max_attempts: 1 } },
          ],
          wait: [
            { id: 'approval', kind: 'SIGNAL', name: 'approve', correlation: 'y' },
            { id: 'nap', kind: 'TIMER', duration: 'PT1H' },
          ],
          snooze: [{ id: 'snooze', kind: 'TIMER', duration: 'PT1H' }],
        },
      },
    ],
  },
];

/**
 * A failing branch beside running ones, then a successor: `pay` fails for good once released
 * (hold `$.input.pay`), `ship` runs until released whatever it is told (hold `$.input.ship`),
 * `mail` runs until cancelled and `receipt` after it; `after` follows the PARALLEL.
 */
export const SIBLING = {
  schema_version: 1,
  name: 'sibling',
  input: {
    type: 'object',
    required: ['pay', 'ship'],
    properties: { pay: { type: 'string' }, ship: { type: 'string' } },
  },
  steps: [
    {
      id: 'both',
      kind: 'PARALLEL',
      branches: {
        pay: [
          {
            id: 'pay',
            kind: 'TASK',
            queue: 'q1',
            input: { ...DECLINE, hold: '$.input.pay' },
            retry: { max_attempts: 1 },
          },
        ],
        ship: [
          {
            id: 'ship',
            kind: 'TASK',
            queue: 'q1',
            input: { op: 'echo', hold: '$.input.ship', uncancellable: true },
          },
        ],
        mail: [
          { id: 'mail', kind: 'TASK', queue: 'q1', input: { op: 'hang' } },
          { id: 'receipt', kind: 'TASK', queue: 'q1', input: { op: 'receipt' } },
        ],
      },
    },
    { id: 'after', kind: 'TASK', queue: 'q1', input: { op: 'after' } },
  ],
};
