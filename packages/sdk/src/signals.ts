/**
 * `client.signals`: workflow signals (API.md "Weave", docs/sdk.md). `send` delivers a signal by
 * name and exact correlation key to every waiting SIGNAL or POLL final-signal step of the
 * namespace (scope workflows:signal); with an idempotency key a retry is delivered once.
 *
 * @example
 * const { matched } = await client.signals.send({ name: 'approval', correlation_key: 'order-42', payload: { ok: true } }, 'approve-42');
 */
import { callRoute } from './call-route.js';
import type { BodyOf } from './protocol/index.js';
import { signals } from './protocol/index.js';
import type { Requester } from './transport.js';

/** The body of `POST /signals`: name, correlation_key, payload, payload_version?, ttl?. */
export type SendSignalOptions = BodyOf<typeof signals.sendSignal>;

export class SignalsClient {
  readonly #request: Requester;

  constructor(request: Requester) {
    this.#request = request;
  }

  /**
   * Send a signal: the answer lists the steps it was delivered to (`matched`), the ones whose
   * wait had already ended (`late`, recorded, never applied), and `buffered_until` when it
   * matched nothing and was kept for its `ttl`.
   *
   * @example
   * await client.signals.send({ name: 'delivered', correlation_key: 'parcel-7', payload: { at: 'door' }, ttl: 'PT1H' });
   */
  send(options: SendSignalOptions, idempotencyKey?: string) {
    return callRoute(this.#request, signals.sendSignal, { body: options, idempotencyKey });
  }
}
