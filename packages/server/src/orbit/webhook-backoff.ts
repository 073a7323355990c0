/**
 * Webhook retry timing (docs/webhooks.md "Retries"): capped exponential backoff with jitter, and
 * when a subscription that keeps failing is marked FAILING. Pure: the caller passes the random
 * draw and the instants.
 */
import type { Micros } from '../store/values.js';

export interface WebhookRetrySettings {
  /** Delay after the first failure (default 1 s); doubled per further failure. */
  readonly backoffBaseMs: number;
  /** Longest delay between two attempts (default 5 min). */
  readonly backoffMaxMs: number;
  /**
   * Consecutive failures after which the subscription is FAILING (default 30: with the default
   * waits at least 54 minutes of them, so the hour below is what usually decides).
   */
  readonly failAfterAttempts: number;
  /** Or: failing for at least this long, whatever the count (default 1 h). */
  readonly failAfterMs: number;
}

export const DEFAULT_RETRY_SETTINGS: WebhookRetrySettings = {
  backoffBaseMs: 1_000,
  backoffMaxMs: 300_000,
  failAfterAttempts: 30,
  failAfterMs: 3_600_000,
};

/**
 * The wait before the next attempt after `failures` consecutive failures (≥ 1): base·2^(n−1),
 * capped, then "equal jitter" (between half and all of it), so receivers coming back up are not
 * hit by every subscription at the same instant, and the wait never collapses towards zero.
 */
export function retryDelayMs(
  failures: number,
  settings: Pick<WebhookRetrySettings, 'backoffBaseMs' | 'backoffMaxMs'>,
  random: number,
): number {
  const exponent = Math.min(Math.max(failures - 1, 0), 40);
  const capped = Math.min(settings.backoffMaxMs, settings.backoffBaseMs * 2 ** exponent);
  return Math.round(capped / 2 + (capped / 2) * random);
}

/** Whether a subscription failing since `failingSince` with `failures` failures turns FAILING. */
export function shouldMarkFailing(
  failures: number,
  failingSince: Micros,
  now: Micros,
  settings: Pick<WebhookRetrySettings, 'failAfterAttempts' | 'failAfterMs'>,
): boolean {
  return (
    failures >= settings.failAfterAttempts ||
    now - failingSince >= BigInt(settings.failAfterMs) * 1000n
  );
}
