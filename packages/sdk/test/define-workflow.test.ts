/**
 * The definition builder emits exactly what a hand-written schema_version 1 file holds, and what
 * it emits for every kind of step compiles with the real engine (the one authority).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { canonicalize, parse, stringify } from '@weave/json';
import { compile } from '@weave/engine';
import {
  WeaveClient,
  and,
  branch,
  defineWorkflow,
  eq,
  exists,
  ge,
  gt,
  isIn,
  isNull,
  isWorkflowHandle,
  le,
  literal,
  lt,
  ne,
  not,
  num,
  or,
  parallel,
  poll,
  ref,
  signal,
  task,
  timer,
  when,
} from '../src/index.js';
import type { InputOf, OutputOf, WorkflowHandle } from '../src/index.js';

const ORDER_FILE = new URL('../../../../docs/examples/order.json', import.meta.url);

type OrderInput = { orderId: string; amount: number };
type OrderOutput = { tracking: unknown };

function orderWorkflow(): WorkflowHandle<OrderInput, OrderOutput> {
  return defineWorkflow<OrderInput, OrderOutput>({
    name: 'order',
    timeout: 'P7D',
    input: {
      type: 'object',
      required: ['orderId', 'amount'],
      properties: { orderId: { type: 'string' }, amount: { type: 'number' } },
    },
    steps: [
      task('reserve', {
        queue: 'inventory',
        input: { order: ref.input('orderId') },
        timeout: 'PT30S',
        retry: { max_attempts: 5, initial_interval: 'PT1S' },
      }),
      branch('big', {
        cases: [
          when(gt(ref.input('amount'), 1000), [
            signal('approve', {
              name: 'approval',
              correlation: ref.input('orderId'),
              timeout: 'P2D',
            }),
          ]),
        ],
        default: [],
      }),
      parallel('ship', {
        branches: {
          label: [
            task('print', {
              queue: 'labels',
              input: { reservation: ref.step('reserve').output() },
            }),
          ],
          notify: [task('mail', { queue: 'mail', input: { order: ref.input('orderId') } })],
        },
      }),
      timer('cool', { duration: 'PT1H' }),
      poll('track', {
        queue: 'carrier',
        input: { label: ref.step('ship').output('label') },
        interval: 'PT5M',
        max_rounds: 100,
        timeout: 'P3D',
        classify: {
          path: ref.result('status'),
          pending: ['IN_TRANSIT'],
          succeeded: ['DELIVERED'],
          failed: ['LOST'],
          review: ['EXCEPTION'],
        },
        final_signal: { name: 'delivered', correlation: ref.input('orderId') },
      }),
    ],
    output: { tracking: ref.step('track').output() },
  });
}

/** Compiles what the builder emitted, through JSON text, as the server receives it. */
function compileText(handle: WorkflowHandle): ReturnType<typeof compile> {
  return compile(parse(stringify(handle.definition)));
}

describe('defineWorkflow', () => {
  test('builds the order example exactly as docs/examples/order.json writes it', () => {
    const file = parse(readFileSync(ORDER_FILE, 'utf8'));
    const built = orderWorkflow();
    assert.equal(built.name, 'order');
    assert.equal(canonicalize(built.definition), canonicalize(file));
    // Key order too: the same compact text as the file's.
    assert.equal(stringify(built.definition), stringify(file));
  });

  test('the order example compiles with the engine', () => {
    const result = compileText(orderWorkflow());
    assert.deepEqual(result.ok ? [] : result.problems, []);
  });

  test('every kind of step and every field the language has compiles with the engine', () => {
    const handle = defineWorkflow({
      name: 'every-kind',
      description: 'all step kinds',
      timeout: 'P30D',
      input: {
        type: 'object',
        required: ['orderId', 'amount', 'note'],
        properties: {
          orderId: { type: 'string' },
          amount: { type: 'number' },
          note: { type: ['string', 'null'] },
          country: { type: 'string' },
          vip: { type: 'boolean' },
          tags: { type: 'array', items: { type: 'string' } },
          meta: { type: 'object', additional_properties: true, description: 'free-form' },
          'odd key': { type: 'integer' },
        },
      },
      steps: [
        task('charge', {
          description: 'charge the card',
          queue: 'billing',
          input: { order: ref.input('orderId'), price: literal('$ 12'), odd: ref.input('odd key') },
          timeout: 'PT30S',
          idempotent: true,
          retry: {
            max_attempts: 5,
            initial_interval: 'PT2S',
            backoff_coefficient: 1.5,
            max_interval: 'PT1M',
            non_retryable_codes: ['card_declined'],
          },
          trace_key: ref.input('orderId'),
          resource_key: 'billing-account',
        }),
        branch('route', {
          cases: [
            when(and(exists(ref.input('vip')), eq(ref.input('vip'), true)), [
              signal('manual', {
                name: 'approval',
                correlation: ref.input('orderId'),
                payload_version: 2,
                timeout: 'P2D',
              }),
            ]),
            when(or(isIn(ref.input('country'), ['DE', 'AT']), not(isNull(ref.input('note')))), [
              task('dach', { queue: 'dach-review', input: ref.step('charge').output('id') }),
            ]),
            when(and(lt(ref.input('amount'), 10), le(1, 2), ge(3, 3), ne('a', 'b')), []),
          ],
          default: [task('auto', { queue: 'auto-approve' })],
        }),
        parallel('ship', {
          branches: {
            label: [task('print', { queue: 'labels', input: ref.input('tags', 0) })],
            notify: [timer('cool_off', { duration: 'PT1H', description: 'wait' })],
          },
        }),
        poll('track', {
          queue: 'carrier',
          input: { label: ref.step('ship').output('label') },
          interval: 'PT5M',
          max_rounds: 100,
          timeout: 'P3D',
          task_timeout: 'PT20S',
          classify: {
            path: ref.result('data', 'state'),
            pending: ['IN_TRANSIT', 0],
            succeeded: ['DELIVERED', true],
            failed: [null],
            review: [num('1.50')],
          },
          final_signal: {
            name: 'delivered',
            correlation: ref.input('orderId'),
            payload_version: 3,
          },
        }),
      ],
      output: { order: ref.input('orderId'), tracking: ref.step('track').output() },
    });
    const result = compileText(handle);
    assert.deepEqual(result.ok ? [] : result.problems, []);
  });

  test('a definition with a fault is the compiler’s to report, not the builder’s', () => {
    const handle = defineWorkflow({
      name: 'Bad Name',
      steps: [task('a', { queue: 'q', input: ref.step('later').output() })],
    });
    const result = compileText(handle);
    assert.equal(result.ok, false);
    const codes = result.ok ? [] : result.problems.map((p) => p.code).sort();
    assert.deepEqual(codes, ['invalid_name', 'unknown_step']);
  });

  test('exact numbers survive: num() text comes out unchanged, digits and all', () => {
    const handle = defineWorkflow({
      name: 'exact',
      steps: [
        branch('big', {
          cases: [when(gt(ref.input('amount'), num('12345678901234567890')), [])],
          default: [],
        }),
        task('t', { queue: 'q', input: { limit: num('1e400'), price: num('12.50'), n: 7 } }),
      ],
    });
    const text = stringify(handle.definition);
    assert.match(text, /\{"gt":\["\$\.input\.amount",12345678901234567890\]\}/);
    assert.match(text, /\{"limit":1e400,"price":12\.50,"n":7\}/);
    assert.equal(compileText(handle).ok, true);
    assert.throws(() => num('0x10'), { code: 'invalid_number' });
  });

  test('references quote odd keys and index arrays; literal() doubles a leading $', () => {
    assert.equal(ref.input(), '$.input');
    assert.equal(ref.input('customer', 'name'), '$.input.customer.name');
    assert.equal(ref.input('items', 0), '$.input.items[0]');
    assert.equal(ref.input('odd key', 'a"b\\c'), '$.input["odd key"]["a\\"b\\\\c"]');
    assert.equal(
      ref.step('reserve').output('lines', 2, 'sku'),
      '$.steps.reserve.output.lines[2].sku',
    );
    assert.equal(ref.result(), '$');
    assert.equal(literal('$5'), '$$5');
    assert.equal(literal('EUR'), 'EUR');
  });

  test('options explicitly undefined are left out, as a hand-written file leaves them out', () => {
    const options = { queue: 'q', timeout: undefined } as unknown as { queue: string };
    assert.deepEqual(task('a', options), { id: 'a', kind: 'TASK', queue: 'q' });
    assert.deepEqual(defineWorkflow({ name: 'w', steps: [] }).definition, {
      schema_version: 1,
      name: 'w',
      steps: [],
    });
  });

  test('client.workflows.publish sends a handle’s definition, and a raw definition as given', async () => {
    const bodies: string[] = [];
    const fakeFetch = (_input: string | URL | Request, init?: RequestInit) => {
      bodies.push(typeof init?.body === 'string' ? init.body : '');
      return Promise.resolve(new Response('{}', { status: 201 }));
    };
    const client = new WeaveClient({
      url: 'http://weave.test',
      namespace: 'ns',
      apiKey: 'k',
      fetch: fakeFetch,
    });
    const handle = orderWorkflow();
    assert.equal(isWorkflowHandle(handle), true);
    assert.equal(isWorkflowHandle(handle.definition), false);
    await client.workflows.publish(handle);
    await client.workflows.publish(handle.definition);
    const expected = stringify({ definition: parse(readFileSync(ORDER_FILE, 'utf8')) });
    assert.deepEqual(bodies, [expected, expected]);
  });

  test('a handle is recognized by its Symbol.for brand, as one made by another SDK copy is', () => {
    const definition = { schema_version: 1, name: 'w', steps: [] };
    const foreign = { name: 'w', definition, [Symbol.for('@weave/sdk.workflow-handle')]: true };
    assert.equal(isWorkflowHandle(foreign), true);
    assert.equal(isWorkflowHandle({ name: 'w', definition }), false);
    assert.equal(isWorkflowHandle(null), false);
  });

  test('the handle carries the input and output types (compile-time checks)', () => {
    const order = orderWorkflow();
    assert.equal(order.name, 'order');
    const input: InputOf<typeof order> = { orderId: 'A1', amount: 5 };
    const output: OutputOf<typeof order> = { tracking: null };
    // @ts-expect-error amount must be a number
    const wrongInput: InputOf<typeof order> = { orderId: 'A1', amount: '5' };
    // @ts-expect-error a misspelt field ("timout") is refused
    task('a', { queue: 'q', timout: 'PT1S' });
    // @ts-expect-error a TASK needs its queue
    task('a', { input: {} });
    // @ts-expect-error a SIGNAL needs its correlation
    signal('s', { name: 'approval' });
    // @ts-expect-error a POLL needs max_rounds
    poll('p', {
      queue: 'q',
      interval: 'PT1M',
      timeout: 'PT1H',
      classify: { path: '$', succeeded: [1] },
    });
    // @ts-expect-error a duration is an ISO 8601 text starting with P
    timer('t', { duration: '1h' });
    // @ts-expect-error camelCase is not the wire name: max_attempts
    task('a', { queue: 'q', retry: { maxAttempts: 3 } });
    // @ts-expect-error a BRANCH needs at least one case
    branch('b', { cases: [] });
    // @ts-expect-error exists takes a reference, not a literal value
    exists('note');
    // @ts-expect-error a definition needs its steps
    defineWorkflow({ name: 'w' });
    assert.ok(input && output && wrongInput);
  });
});
