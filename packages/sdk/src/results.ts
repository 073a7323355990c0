/**
 * `client.results`: Orbit result streams (API.md "Orbit", docs/results.md). Read a stream after
 * a cursor, or let the server keep the cursor in a subscription and iterate it:
 *
 * @example
 * for await (const event of client.results.subscribe(subscriptionId)) {
 *   await record(event); // acked once this returns and the iterator asks for more
 * }
 */
import { callRoute } from './call-route.js';
import type { CallArgs } from './call-route.js';
import type { BodyOf, QueryOf, RouteContract } from './protocol/index.js';
import { orbit } from './protocol/index.js';
import type { Requester } from './transport.js';
import type { EventPage, ResultEvent } from './types.js';

export interface ReadOptions {
  readonly limit?: number;
  /** Wait up to this long (≤ 30 000 ms) for a first event when there is none. */
  readonly waitMs?: number;
  readonly signal?: AbortSignal;
}

export interface SubscribeOptions {
  /** Events fetched per read (default 100). */
  readonly batchSize?: number;
  /** Long-poll wait per read (default 20 000 ms). */
  readonly waitMs?: number;
  /** Stops the iteration (after acking what was handled). */
  readonly signal?: AbortSignal;
}

export class ResultsClient {
  readonly #request: Requester;

  constructor(request: Requester) {
    this.#request = request;
  }

  #call<C extends RouteContract>(contract: C, args: CallArgs<C> = {}) {
    return callRoute(this.#request, contract, args);
  }

  /** Scope admin. @example await client.results.createStream({ name: 'billing', application: 'shop' }); */
  createStream(input: BodyOf<typeof orbit.createStream>, idempotencyKey?: string) {
    return this.#call(orbit.createStream, { body: input, idempotencyKey });
  }

  /** @example const { items } = await client.results.listStreams(); */
  listStreams(page: QueryOf<typeof orbit.listStreams> = {}) {
    return this.#call(orbit.listStreams, { query: page });
  }

  /** Head and earliest retained seq. @example const { stream } = await client.results.getStream('billing'); */
  getStream(name: string) {
    return this.#call(orbit.getStream, { params: { stream: name } });
  }

  /**
   * Events after `after` (default: from the earliest retained). 410 `cursor_expired` if gone.
   *
   * @example
   * const page = await client.results.readStream('billing', { after: '0', waitMs: 20000 });
   */
  readStream(name: string, options: ReadOptions & { readonly after?: string } = {}) {
    return this.#call(orbit.readStream, {
      params: { stream: name },
      query: readQuery(options, options.after),
      signal: options.signal,
    });
  }

  /**
   * The secret of a webhook subscription is in this answer only (and after rotate-secret).
   *
   * @example
   * const { subscription } = await client.results.createSubscription('billing', { name: 'invoicing' });
   */
  createSubscription(
    stream: string,
    input: BodyOf<typeof orbit.createSubscription>,
    idempotencyKey?: string,
  ) {
    const params = { stream };
    return this.#call(orbit.createSubscription, { params, body: input, idempotencyKey });
  }

  /** @example const { items } = await client.results.listSubscriptions('billing'); */
  listSubscriptions(stream: string, page: QueryOf<typeof orbit.listSubscriptions> = {}) {
    return this.#call(orbit.listSubscriptions, { params: { stream }, query: page });
  }

  /** @example const { subscription } = await client.results.getSubscription(id); */
  getSubscription(id: string) {
    return this.#call(orbit.getSubscription, { params: { subscription: id } });
  }

  /** Events after the subscription's cursor; nothing moves until `ack`. @example await client.results.readSubscription(id, { waitMs: 20000 }); */
  readSubscription(id: string, options: ReadOptions = {}) {
    return this.#call(orbit.readSubscription, {
      params: { subscription: id },
      query: readQuery(options, undefined),
      signal: options.signal,
    });
  }

  /** Moves the cursor to `seq`; an older seq changes nothing. @example await client.results.ack(id, event.seq); */
  ack(id: string, seq: string, idempotencyKey?: string) {
    const params = { subscription: id };
    return this.#call(orbit.ackSubscription, { params, body: { seq }, idempotencyKey });
  }

  /** @example await client.results.deleteSubscription(id); */
  deleteSubscription(id: string, idempotencyKey?: string) {
    const params = { subscription: id };
    return this.#call(orbit.deleteSubscription, { params, idempotencyKey });
  }

  /** A FAILING webhook delivers again from its cursor (scope admin). @example await client.results.resumeSubscription(id); */
  resumeSubscription(id: string, idempotencyKey?: string) {
    return this.#call(orbit.resumeSubscription, { params: { subscription: id }, idempotencyKey });
  }

  /**
   * A new webhook signing secret, shown once; the previous one keeps signing for the grace
   * period (default PT24H). Scope admin.
   *
   * @example
   * const { secret } = await client.results.rotateSecret(id, { grace_period: 'PT1H' });
   */
  rotateSecret(id: string, input: BodyOf<typeof orbit.rotateSecret> = {}, idempotencyKey?: string) {
    const params = { subscription: id };
    return this.#call(orbit.rotateSecret, { params, body: input, idempotencyKey });
  }

  /** Webhook delivery attempts, newest first. @example const { items } = await client.results.listDeliveries(id); */
  listDeliveries(id: string, page: QueryOf<typeof orbit.listDeliveries> = {}) {
    return this.#call(orbit.listDeliveries, { params: { subscription: id }, query: page });
  }

  /**
   * Every event of a pull subscription, in order, forever (until `signal` aborts or the loop
   * breaks). An event counts as handled when the loop body returns and asks for the next one;
   * handled events are acked before each new read and when the iteration ends, so after a
   * crash at most the unacked tail is delivered again (at least once: dedupe by `seq`).
   */
  async *subscribe(id: string, options: SubscribeOptions = {}): AsyncGenerator<ResultEvent> {
    let handled: string | undefined;
    const stopped = () => options.signal?.aborted === true;
    const flush = async () => {
      if (handled !== undefined) {
        await this.ack(id, handled);
        handled = undefined;
      }
    };
    try {
      while (!stopped()) {
        await flush();
        let page: EventPage;
        try {
          page = await this.readSubscription(id, {
            limit: options.batchSize ?? 100,
            waitMs: options.waitMs ?? 20_000,
            ...(options.signal === undefined ? {} : { signal: options.signal }),
          });
        } catch (e: unknown) {
          if (stopped()) {
            return;
          }
          throw e;
        }
        for (const event of page.events) {
          yield event;
          handled = event.seq;
          if (stopped()) {
            return;
          }
        }
      }
    } finally {
      await flush();
    }
  }
}

function readQuery(options: ReadOptions, after: string | undefined) {
  return {
    ...(after === undefined ? {} : { after }),
    ...(options.limit === undefined ? {} : { limit: options.limit }),
    ...(options.waitMs === undefined ? {} : { wait_ms: options.waitMs }),
  };
}
