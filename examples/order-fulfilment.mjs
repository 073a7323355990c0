// The order-fulfilment example: its definition (order-fulfilment.json) and the task handlers of
// its queues. `node examples/worker.mjs` runs these handlers with the SDK Worker, and so does
// `weave dev --with-examples` in its own process (through examples/index.mjs): one implementation.
//
// What each handler does is made up, but shaped like the real thing: the first reservation
// attempt fails as a busy inventory service would (a retryable error: the TASK's retry policy
// runs it again a second later); `fail_payment: true` in the instance input declines the card
// (a NonRetryableError: the step fails for good, and so does the instance, until someone
// retries the step with an edited input); the carrier reports IN_TRANSIT once, then DELIVERED
// (or never, with `confirm_by_signal: true`: then the `delivered` signal ends the tracking).
import { readFileSync } from 'node:fs';
import { parse } from '@weave/json';
import { NonRetryableError, toPlain } from '@weave/sdk';

export const WORKFLOW_NAME = 'order-fulfilment';

/** The queues the handlers serve (all in `weave dev`'s namespace `dev`). */
export const QUEUES = ['orders', 'payments', 'shipping'];

/** The definition as a plain object, its numbers exact (read with @weave/json, not JSON.parse). */
export function loadDefinition() {
  const text = readFileSync(new URL('./order-fulfilment.json', import.meta.url), 'utf8');
  return toPlain(parse(text));
}

/**
 * The handlers by queue, for `new Worker({ client, handlers })`. Each call makes a fresh set (the
 * carrier's round counts live in it).
 */
export function createHandlers() {
  /** Tracking queries answered so far, by parcel. */
  const trackingRounds = new Map();
  return {
    orders: async (input, ctx) => {
      if (input.action === 'reserve') {
        if (ctx.attemptNumber === 1) {
          // Not a NonRetryableError: the step's retry policy decides (max_attempts 3).
          throw Object.assign(new Error('inventory service busy, try again'), {
            code: 'inventory_busy',
          });
        }
        return { reservation: `R-${input.order_id}`, attempt: ctx.attemptNumber };
      }
      if (input.action === 'approve') {
        return { approved: true, by: 'auto', rule: 'amount <= 1000' };
      }
      throw new NonRetryableError(`unknown action ${String(input.action)}`, {
        code: 'unknown_action',
      });
    },
    payments: async (input) => {
      if (input.fail_payment === true) {
        throw new NonRetryableError('card declined (the input says fail_payment: true)', {
          code: 'card_declined',
        });
      }
      // The amount is passed on as it came, a JsonNumber with its exact text: no float maths.
      return { payment_id: `PAY-${input.order_id}`, charged: input.amount, currency: 'EUR' };
    },
    shipping: async (input) => {
      if (input.action === 'pack') {
        return { parcel: `P-${input.order_id}`, reservation: input.reservation };
      }
      if (input.action === 'track') {
        const round = (trackingRounds.get(input.parcel) ?? 0) + 1;
        trackingRounds.set(input.parcel, round);
        const delivered = input.confirm_by_signal !== true && round >= 2;
        return { status: delivered ? 'DELIVERED' : 'IN_TRANSIT', parcel: input.parcel, round };
      }
      throw new NonRetryableError(`unknown action ${String(input.action)}`, {
        code: 'unknown_action',
      });
    },
  };
}
