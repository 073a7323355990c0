/**
 * Workflow signals (API.md "Weave", docs/design/signals.md): `POST /signals` by name and exact
 * correlation key, `POST /instances/{id}/signals` to one instance. `workflows:signal`; both take
 * `Idempotency-Key` (a replay answers the first answer: one delivery). Audited.
 */
import { stringify, utf8ByteLength } from '@weave/json';
import type { JsonObject, JsonValue } from '@weave/json';
import { ID_PATTERN, NAME_PATTERN, formatInstant, signals } from '@weave/sdk/protocol';
import { WeaveError, invalidArgument } from '../../errors.js';
import { sendSignal } from '../../weave/signals/send-signal.js';
import type { SignalOutcome } from '../../weave/signals/send-signal.js';
import { auditChange } from '../audit-change.js';
import { formatDuration, readDuration } from '../durations.js';
import { expectObject, readInteger, readString, rejectUnknown } from '../fields.js';
import { route } from '../route.js';
import type { RouteContext } from '../route.js';

const LONE_SURROGATE = /\p{Surrogate}/u;

function readName(obj: JsonObject): string {
  const name = readString(obj, 'name', { pattern: NAME_PATTERN });
  if (name === undefined) {
    throw invalidArgument('$.name', 'is required (the signal name)');
  }
  return name;
}

/** The payload as exact JSON text, within its bound (413 naming `$.payload`). */
function readPayload(obj: JsonObject): string {
  const payload = obj.get('payload');
  if (payload === undefined) {
    throw invalidArgument('$.payload', 'is required (any JSON value)');
  }
  const text = stringify(payload);
  const bytes = utf8ByteLength(text);
  if (bytes > signals.MAX_SIGNAL_PAYLOAD_BYTES) {
    throw new WeaveError('payload_too_large', `$.payload is ${bytes} bytes, over the limit`, {
      details: { path: '$.payload', limit: signals.MAX_SIGNAL_PAYLOAD_BYTES },
    });
  }
  return text;
}

function readPayloadVersion(obj: JsonObject): number {
  return readInteger(obj, 'payload_version', { min: 1, max: signals.MAX_PAYLOAD_VERSION }) ?? 1;
}

/** A4.4: 1–512 bytes of UTF-8, kept exactly (no trimming, no case folding). */
function readCorrelation(obj: JsonObject): string {
  const key = readString(obj, 'correlation_key');
  const path = '$.correlation_key';
  if (key === undefined) {
    throw invalidArgument(path, 'is required (the exact correlation key)');
  }
  const bytes = utf8ByteLength(key);
  if (bytes < 1 || bytes > signals.MAX_CORRELATION_BYTES || LONE_SURROGATE.test(key)) {
    throw invalidArgument(
      path,
      `must be 1–${signals.MAX_CORRELATION_BYTES} bytes of well-formed UTF-8 (got ${bytes} bytes)`,
    );
  }
  return key;
}

function parseSend(body: JsonValue | undefined) {
  const obj = expectObject(body);
  rejectUnknown(obj, ['name', 'correlation_key', 'payload', 'payload_version', 'ttl']);
  return {
    name: readName(obj),
    correlationKey: readCorrelation(obj),
    payload: readPayload(obj),
    payloadVersion: readPayloadVersion(obj),
    ttlUs: readDuration(obj, 'ttl', { min: 0n }) ?? 0n,
  };
}

function parseDirect(body: JsonValue | undefined) {
  const obj = expectObject(body);
  rejectUnknown(obj, ['name', 'payload', 'payload_version']);
  return {
    name: readName(obj),
    payload: readPayload(obj),
    payloadVersion: readPayloadVersion(obj),
  };
}

function receipt(outcome: SignalOutcome) {
  const target = (t: { instanceId: string; stepId: string }) => ({
    instance_id: t.instanceId,
    step_id: t.stepId,
  });
  return {
    signal_id: outcome.signalId,
    matched: outcome.matched.map(target),
    late: outcome.late.map(target),
    ...(outcome.bufferedUntil === undefined
      ? {}
      : { buffered_until: formatInstant(outcome.bufferedUntil) }),
  };
}

function principalOf(ctx: RouteContext) {
  return { namespaceId: ctx.principal.namespaceId, credentialId: ctx.principal.credentialId };
}

export const signalRoutes = [
  route(signals.sendSignal, {
    parse: parseSend,
    async handle(ctx, input) {
      const maxUs = BigInt(ctx.settings.maxSignalTtlMs) * 1000n;
      if (input.ttlUs > maxUs) {
        throw invalidArgument(
          '$.ttl',
          `must be at most ${formatDuration(maxUs)} (the server's signal buffer cap)`,
        );
      }
      const outcome = await sendSignal(ctx.tx, { ...principalOf(ctx), ...input });
      await auditChange(ctx, 'signal.send', { type: 'signal', id: outcome.signalId });
      return { body: receipt(outcome) };
    },
  }),
  route(signals.signalInstance, {
    parse: parseDirect,
    async handle(ctx, input) {
      const instanceId = ctx.params.instance ?? '';
      if (!ID_PATTERN.test(instanceId)) {
        throw new WeaveError('not_found', `instance ${instanceId} not found`, {
          details: { path: '$.instance' },
        });
      }
      const outcome = await sendSignal(ctx.tx, {
        ...principalOf(ctx),
        ...input,
        instanceId,
        ttlUs: 0n,
      });
      await auditChange(ctx, 'instance.signal', { type: 'signal', id: outcome.signalId });
      return { body: receipt(outcome) };
    },
  }),
];
