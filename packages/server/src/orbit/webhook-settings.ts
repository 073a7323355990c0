/**
 * The knobs of webhook delivery (docs/webhooks.md "Operating notes"), their defaults, and the
 * check that runs when a server starts: a lease shorter than the request timeout would let a
 * second node send the next copy of a batch while the first is still in flight.
 */
import type { WebhookRetrySettings } from './webhook-backoff.js';
import { DEFAULT_RETRY_SETTINGS } from './webhook-backoff.js';
import type { Resolver, TargetPolicy } from './webhook-targets.js';
import { DEFAULT_TARGET_POLICY } from './webhook-targets.js';

export interface WebhookDeliverySettings extends WebhookRetrySettings {
  /** Most events in one POST (default 100). */
  readonly batchSize: number;
  /** Most body bytes in one POST (default 1 MiB); a single larger event still goes alone. */
  readonly maxBatchBytes: number;
  /** Whole-exchange timeout of one POST (default 10 s). */
  readonly timeoutMs: number;
  /** How long a claim holds a subscription (default 60 s): must exceed the timeout. */
  readonly leaseMs: number;
  /** Delivery attempts kept per subscription for `GET …/deliveries` (default 1000). */
  readonly keepDeliveries: number;
  readonly policy: TargetPolicy;
  /** Test seam: name resolution. */
  readonly resolver?: Resolver;
}

export const DEFAULT_DELIVERY_SETTINGS: WebhookDeliverySettings = {
  ...DEFAULT_RETRY_SETTINGS,
  batchSize: 100,
  maxBatchBytes: 1024 * 1024,
  timeoutMs: 10_000,
  leaseMs: 60_000,
  keepDeliveries: 1000,
  policy: DEFAULT_TARGET_POLICY,
};

/** Most events one read returns (read-events.ts MAX_READ_LIMIT). */
const MAX_BATCH_SIZE = 1000;

/** Defaults filled in and every knob checked; an error names the knob and the rule. */
export function toDeliverySettings(
  given: Partial<WebhookDeliverySettings> = {},
): WebhookDeliverySettings {
  const settings = { ...DEFAULT_DELIVERY_SETTINGS, ...given };
  const positive: Exclude<keyof WebhookDeliverySettings, 'policy' | 'resolver'>[] = [
    'batchSize',
    'maxBatchBytes',
    'timeoutMs',
    'leaseMs',
    'keepDeliveries',
    'backoffBaseMs',
    'backoffMaxMs',
    'failAfterAttempts',
    'failAfterMs',
  ];
  for (const key of positive) {
    const value: unknown = settings[key];
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
      throw new Error(
        `webhook setting ${key} must be a positive integer (got ${typeof value === 'number' ? value : typeof value})`,
      );
    }
  }
  if (settings.batchSize > MAX_BATCH_SIZE) {
    throw new Error(`webhook setting batchSize must be at most ${MAX_BATCH_SIZE}`);
  }
  if (settings.leaseMs <= settings.timeoutMs) {
    throw new Error(
      `webhook setting leaseMs (${settings.leaseMs}) must exceed timeoutMs (${settings.timeoutMs})`,
    );
  }
  if (settings.backoffMaxMs < settings.backoffBaseMs) {
    throw new Error('webhook setting backoffMaxMs must be at least backoffBaseMs');
  }
  return settings;
}
