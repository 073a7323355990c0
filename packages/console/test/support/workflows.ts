/**
 * The console tests' workflows: an order-like definition for the graph test (the browser test
 * runs the example order-fulfilment workflow of `weave dev --with-examples`) and a 128-step
 * definition for the render measurement.
 */
/** An amount no float64 holds: it must be shown and sent back exactly. */
export const EXACT_AMOUNT = '12345678901234567890.000000000000000001';

export const ORDER_DEFINITION = {
  schema_version: 1,
  name: 'console_order',
  steps: [
    { id: 'reserve', kind: 'TASK', queue: 'orders', input: { order: '$.input.order_id' } },
    {
      id: 'big',
      kind: 'BRANCH',
      cases: [
        {
          when: { gt: ['$.input.amount', 1000] },
          steps: [
            { id: 'approve', kind: 'SIGNAL', name: 'approval', correlation: '$.input.order_id' },
          ],
        },
      ],
      default: [],
    },
    {
      id: 'ship',
      kind: 'PARALLEL',
      branches: {
        label: [
          { id: 'print', kind: 'TASK', queue: 'shipping', input: { order: '$.input.order_id' } },
        ],
        notify: [
          { id: 'mail', kind: 'TASK', queue: 'default', input: { order: '$.input.order_id' } },
        ],
      },
    },
    {
      id: 'charge',
      kind: 'TASK',
      queue: 'payments',
      input: { amount: '$.input.amount', card: '$.input.card' },
    },
  ],
  output: { charged: '$.steps.charge.output' },
};

/** 128 steps, the most a definition may have: a PARALLEL of three 42-step branches and a TIMER. */
export function largeDefinition(): unknown {
  const branch = (name: string) =>
    Array.from({ length: 42 }, (_, i) => ({ id: `${name}_${i}`, kind: 'TASK', queue: 'default' }));
  return {
    schema_version: 1,
    name: 'console_large',
    steps: [
      { id: 'fan', kind: 'PARALLEL', branches: { a: branch('a'), b: branch('b'), c: branch('c') } },
      { id: 'rest', kind: 'TIMER', duration: 'PT1H' },
    ],
  };
}
