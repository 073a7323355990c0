/**
 * The frozen snapshot of a `signal.received` inbox row (docs/design/signals.md §2): written by
 * the signal transaction (or by a wait that takes a buffered signal), read by the consumer. The
 * payload is spliced as the exact text the signal stored, never re-encoded (E3.13); the consumer
 * checks the shape like a task result's (E2.4). Pure.
 */
import { isJsonObject, parse, stringify } from '@weave/json';
import type { JsonValue } from '@weave/json';
import type { Micros } from '../../store/values.js';

/** The inbox event type of a delivered signal. */
export const SIGNAL_RECEIVED = 'signal.received';

export interface SignalDelivery {
  readonly signalId: string;
  readonly waitId: string;
  readonly name: string;
  readonly payloadVersion: number;
  readonly admittedAt: Micros;
  /** The exact payload JSON text. */
  readonly payload: string;
}

/** `signal.<signal id>.<wait id>`: one inbox row per signal and wait (E2.3). */
export function signalEventId(delivery: SignalDelivery): string {
  return `signal.${delivery.signalId}.${delivery.waitId}`;
}

export function signalSnapshot(delivery: SignalDelivery): string {
  return stringify({
    schema_version: 1,
    signal_id: delivery.signalId,
    wait_id: delivery.waitId,
    name: delivery.name,
    payload_version: delivery.payloadVersion,
    admitted_at: delivery.admittedAt.toString(),
    payload: { kind: 'raw', text: delivery.payload },
  });
}

export interface FrozenSignal {
  readonly signalId: string;
  readonly waitId: string;
  readonly payload: JsonValue;
}

/** The snapshot of a signal row, or `undefined` when it is not a schema_version 1 signal. */
export function readSignalSnapshot(text: string | null, eventId: string): FrozenSignal | undefined {
  if (text === null) {
    return undefined;
  }
  let value: JsonValue;
  try {
    value = parse(text);
  } catch {
    return undefined;
  }
  if (!isJsonObject(value)) {
    return undefined;
  }
  const version = value.get('schema_version');
  const signalId = value.get('signal_id');
  const waitId = value.get('wait_id');
  const payload = value.get('payload');
  const one =
    typeof version === 'object' &&
    version !== null &&
    'kind' in version &&
    version.kind === 'number' &&
    version.text === '1';
  if (
    !one ||
    typeof signalId !== 'string' ||
    typeof waitId !== 'string' ||
    payload === undefined ||
    eventId !== `signal.${signalId}.${waitId}`
  ) {
    return undefined;
  }
  return { signalId, waitId, payload };
}
