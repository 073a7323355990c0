/** Orbit objects → wire JSON (API.md "Orbit"). Events are embedded as their frozen text. */
import type { EventPage } from '../orbit/read-events.js';
import type { Stream } from '../orbit/streams.js';
import type { Subscription } from '../orbit/subscriptions.js';
import { formatInstant } from '@weave/sdk/protocol';
import type { orbit } from '@weave/sdk/protocol';
import { formatDuration } from './durations.js';

export function streamView(stream: Stream): orbit.Stream {
  return {
    name: stream.name,
    id: stream.id,
    application: stream.applicationName,
    default: stream.isDefault,
    head_seq: (stream.nextSeq - 1n).toString(),
    earliest_seq: stream.earliestSeq.toString(),
    retention: {
      max_age:
        stream.retention.maxAgeUs === null ? null : formatDuration(stream.retention.maxAgeUs),
      max_events:
        stream.retention.maxEvents === null ? null : stream.retention.maxEvents.toString(),
    },
    revision: stream.revision.toString(),
    created_at: formatInstant(stream.createdAt),
    updated_at: formatInstant(stream.updatedAt),
  };
}

export function subscriptionView(sub: Subscription): orbit.Subscription {
  return {
    id: sub.id,
    name: sub.name,
    stream: sub.streamName,
    acked_seq: sub.ackedSeq.toString(),
    ...(sub.webhookUrl === null
      ? {}
      : {
          webhook: {
            url: sub.webhookUrl,
            state: sub.state,
            consecutive_failures: sub.consecutiveFailures,
            next_attempt_at: formatInstant(sub.nextAttemptAt),
            failing_since: sub.failingSince === null ? null : formatInstant(sub.failingSince),
            last_error: sub.lastError,
            previous_secret_valid_until:
              sub.previousSecretUntil === null ? null : formatInstant(sub.previousSecretUntil),
          },
        }),
    state: sub.state,
    revision: sub.revision.toString(),
    created_at: formatInstant(sub.createdAt),
    updated_at: formatInstant(sub.updatedAt),
  };
}

/** Events are embedded as their frozen text (the ResultEvent shape, written at append). */
export function eventPageView(page: EventPage): orbit.EventPage {
  return {
    events: page.events.map((text) => ({ kind: 'raw', text }) as unknown as orbit.ResultEvent),
    next_after: page.nextAfter.toString(),
  };
}
