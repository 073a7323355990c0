/**
 * `client.results`: Orbit result streams (API.md "Orbit", docs/results.md). Read a stream after
 * a cursor, or let the server keep the cursor in a subscription and iterate it:
 *
 * @example
 * for await (const event of client.results.subscribe(subscriptionId)) {
 *   await record(event); // acked once this returns and the iterator asks for more
 * }
 */
import type { Plain } from './plain.js';
import type { RequestOptions } from './transport.js';

/** One outcome on a stream, frozen when it was appended (payload numbers stay exact). */
export interface ResultEvent {
  /** Position in the stream: decimal string, 1, 2, 3 … with no gaps. */
  readonly seq: string;
  /** `task.succeeded`, `task.failed`, `task.cancelled`, `task.needs_review` (later `instance.*`). */
  readonly type: string;
  readonly at: string;
  readonly task_id?: string;
  readonly instance_id?: string;
  readonly attempt_id?: string;
  readonly revision: string;
  readonly status: string;
  readonly trace_key?: string;
  readonly result?: Plain;
  readonly error?: { readonly code: string; readonly message: string };
}

export interface EventPage {
  readonly events: readonly ResultEvent[];
  /** The cursor for the next read. */
  readonly next_after: string;
}

export interface Stream {
  readonly name: string;
  readonly id: string;
  readonly application: string;
  readonly default: boolean;
  readonly head_seq: string;
  readonly earliest_seq: string;
  readonly retention: { readonly max_age: string | null; readonly max_events: string | null };
  readonly revision: string;
  readonly created_at: string;
  readonly updated_at: string;
}

export interface Subscription {
  readonly id: string;
  readonly name: string;
  readonly stream: string;
  readonly acked_seq: string;
  readonly state: 'ACTIVE' | 'FAILING';
  readonly webhook?: {
    readonly url: string;
    readonly state: 'ACTIVE' | 'FAILING';
    readonly consecutive_failures: number;
    readonly next_attempt_at: string;
    readonly failing_since: string | null;
    readonly last_error: string | null;
    readonly previous_secret_valid_until: string | null;
  };
  readonly revision: string;
  readonly created_at: string;
  readonly updated_at: string;
}

export interface CreateStreamInput {
  readonly name: string;
  readonly application: string;
  /** Default `{max_age: "P7D"}`; `{}` keeps events forever. */
  readonly retention?: { readonly max_age?: string; readonly max_events?: number };
}

export interface CreateSubscriptionInput {
  readonly name: string;
  /** Where reading starts: the earliest retained event (default) or after the current head. */
  readonly start?: 'earliest' | 'latest';
  /** Push the events to this URL instead of being read (needs an admin key). */
  readonly webhook?: { readonly url: string };
}

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

type Requester = <T>(method: string, path: string, options?: RequestOptions) => Promise<T>;

export class ResultsClient {
  readonly #request: Requester;

  constructor(request: Requester) {
    this.#request = request;
  }

  createStream(input: CreateStreamInput, idempotencyKey?: string) {
    return this.#request<{ stream: Stream }>('POST', '/streams', {
      body: input as never,
      ...(idempotencyKey === undefined ? {} : { idempotencyKey }),
    });
  }

  listStreams(page: { page_size?: number; page_token?: string } = {}) {
    return this.#request<{ items: Stream[]; next_page_token?: string }>('GET', '/streams', {
      query: page,
    });
  }

  getStream(name: string) {
    return this.#request<{ stream: Stream }>('GET', `/streams/${encodeURIComponent(name)}`);
  }

  /** Events after `after` (default: from the earliest retained). 410 `cursor_expired` if gone. */
  readStream(name: string, options: ReadOptions & { readonly after?: string } = {}) {
    return this.#request<EventPage>('GET', `/streams/${encodeURIComponent(name)}/events`, {
      query: { after: options.after, limit: options.limit, wait_ms: options.waitMs },
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
  }

  /** The secret of a webhook subscription is in this answer only (and after rotate-secret). */
  createSubscription(stream: string, input: CreateSubscriptionInput, idempotencyKey?: string) {
    return this.#request<{ subscription: Subscription; secret?: string }>(
      'POST',
      `/streams/${encodeURIComponent(stream)}/subscriptions`,
      { body: input as never, ...(idempotencyKey === undefined ? {} : { idempotencyKey }) },
    );
  }

  getSubscription(id: string) {
    return this.#request<{ subscription: Subscription }>('GET', `/subscriptions/${id}`);
  }

  /** Events after the subscription's cursor; nothing moves until `ack`. */
  readSubscription(id: string, options: ReadOptions = {}) {
    return this.#request<EventPage>('GET', `/subscriptions/${id}/events`, {
      query: { limit: options.limit, wait_ms: options.waitMs },
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
  }

  /** Moves the cursor to `seq`; an older seq changes nothing. */
  ack(id: string, seq: string) {
    return this.#request<{ subscription: Subscription }>('POST', `/subscriptions/${id}/ack`, {
      body: { seq },
    });
  }

  deleteSubscription(id: string) {
    return this.#request<{ subscription: Subscription }>('DELETE', `/subscriptions/${id}`);
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
