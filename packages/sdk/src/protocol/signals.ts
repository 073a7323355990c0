/**
 * Workflow signals (API.md "Weave", docs/design/signals.md): send a signal by name and exact
 * correlation key to every matching WAITING SIGNAL or POLL final-signal wait of the namespace, or
 * straight to one instance. Both take `workflows:signal` and `Idempotency-Key`.
 */
import { Duration, Id, Instant, Name, Payload } from './common.js';
import { defineRoute } from './contract.js';
import type { Infer } from './schema.js';
import { array, integer, named, object, optional, string } from './schema.js';

/** New correlation keys: at most 512 bytes of UTF-8 (seed 002 §4, A4.4). */
export const MAX_CORRELATION_BYTES = 512;
/** A signal's payload, as JSON text: at most 256 KiB. */
export const MAX_SIGNAL_PAYLOAD_BYTES = 256 * 1024;
export const MAX_PAYLOAD_VERSION = 2_147_483_647;

const PayloadVersion = integer({
  minimum: 1,
  maximum: MAX_PAYLOAD_VERSION,
  description: 'must equal the wait’s payload version; default 1',
});

export const SignalTarget = named(
  'SignalTarget',
  object({ instance_id: Id, step_id: string({ maxLength: 64, examples: ['approve'] }) }),
);
export type SignalTarget = Infer<typeof SignalTarget>;

export const SignalReceipt = named(
  'SignalReceipt',
  object({
    signal_id: Id,
    matched: array(SignalTarget),
    late: array(SignalTarget),
    buffered_until: optional(Instant),
  }),
);
export type SignalReceipt = Infer<typeof SignalReceipt>;

export const SendSignalRequest = named(
  'SendSignalRequest',
  object({
    name: Name,
    correlation_key: string({
      description: '1–512 bytes of UTF-8, compared as exact bytes',
      examples: ['order-42'],
    }),
    payload: Payload,
    payload_version: optional(PayloadVersion),
    ttl: optional(Duration),
  }),
);
export type SendSignalRequest = Infer<typeof SendSignalRequest>;

export const sendSignal = defineRoute({
  id: 'sendSignal',
  method: 'POST',
  path: '/signals',
  scope: 'workflows:signal',
  tag: 'Signals',
  operation: 'signal.send',
  summary:
    'Send a signal to every waiting SIGNAL or POLL final-signal step with the same name, exact ' +
    'correlation key and payload version',
  description:
    'Admitted with DB time; delivered once per instance. A wait already past its deadline is ' +
    'listed under `late` and recorded in its history, never applied. A signal that matches ' +
    'nothing is kept for `ttl` (default none, capped by the server) and taken by the first ' +
    'matching wait created within it.',
  body: SendSignalRequest,
  status: 200,
  answer: SignalReceipt,
  errors: ['payload_too_large'],
  example: {
    body: { name: 'approval', correlation_key: 'order-42', payload: { approved: true } },
    answer: { signal_id: '7', matched: [{ instance_id: '42', step_id: 'approve' }], late: [] },
  },
});

export const SignalInstanceRequest = named(
  'SignalInstanceRequest',
  object({ name: Name, payload: Payload, payload_version: optional(PayloadVersion) }),
);
export type SignalInstanceRequest = Infer<typeof SignalInstanceRequest>;

export const signalInstance = defineRoute({
  id: 'signalInstance',
  method: 'POST',
  path: '/instances/{instance}/signals',
  scope: 'workflows:signal',
  tag: 'Signals',
  operation: 'instance.signal',
  summary: "Send a signal to one instance's waiting step of that name (no correlation check)",
  description:
    '404 when there is no such instance; 409 `invalid_state` when it has no WAITING wait of ' +
    'that name and payload version.',
  body: SignalInstanceRequest,
  status: 200,
  answer: SignalReceipt,
  errors: ['not_found', 'invalid_state', 'payload_too_large'],
  example: { body: { name: 'approval', payload: { approved: true } } },
});
