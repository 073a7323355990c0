/**
 * Retry policy, frozen on the task row at submit (DESIGN.md §4), and the deterministic backoff:
 * the n-th retry waits `min(max_interval, initial_interval × coefficient^(n-1))`, no jitter, so
 * the same failures always give the same `available_at` (issue 4 §5).
 */
import type { Micros } from '../store/values.js';

export interface RetryPolicy {
  readonly maxAttempts: number;
  readonly initialIntervalUs: Micros;
  /** Number text as the client wrote it (e.g. `"2.0"`); kept exact in storage. */
  readonly backoffCoefficient: string;
  readonly maxIntervalUs: Micros;
  readonly nonRetryableCodes: readonly string[];
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxAttempts: 3,
  initialIntervalUs: 1_000_000n,
  backoffCoefficient: '2',
  maxIntervalUs: 300_000_000n,
  nonRetryableCodes: [],
};

/** Delay before the retry that follows `chargedAttempts` counted attempts (≥ 1). */
export function retryDelayUs(policy: RetryPolicy, chargedAttempts: number): Micros {
  const exponent = Math.max(0, chargedAttempts - 1);
  const factor = Number(policy.backoffCoefficient) ** exponent;
  const delay = Number(policy.initialIntervalUs) * factor;
  if (!Number.isFinite(delay) || delay >= Number(policy.maxIntervalUs)) {
    return policy.maxIntervalUs;
  }
  return BigInt(Math.round(delay));
}

export type RetryDecision =
  | { readonly kind: 'retry'; readonly availableAt: Micros }
  | { readonly kind: 'give_up'; readonly reason: 'non_retryable' | 'exhausted' | 'deadline' };

/** Pure: whether a failed attempt is retried, and when. */
export function decideRetry(input: {
  readonly policy: RetryPolicy;
  readonly chargedAttempts: number;
  readonly retryable: boolean;
  readonly errorCode: string;
  readonly now: Micros;
  readonly deadlineAt: Micros;
}): RetryDecision {
  const { policy } = input;
  if (!input.retryable || policy.nonRetryableCodes.includes(input.errorCode)) {
    return { kind: 'give_up', reason: 'non_retryable' };
  }
  if (input.chargedAttempts >= policy.maxAttempts) {
    return { kind: 'give_up', reason: 'exhausted' };
  }
  const availableAt = input.now + retryDelayUs(policy, input.chargedAttempts);
  // A retry that could only start at or after the deadline would be void anyway.
  if (availableAt >= input.deadlineAt) {
    return { kind: 'give_up', reason: 'deadline' };
  }
  return { kind: 'retry', availableAt };
}
