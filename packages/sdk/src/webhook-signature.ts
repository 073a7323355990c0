/**
 * Verifying a Weave webhook (docs/webhooks.md): `Weave-Signature: v1=<hex>` is
 * HMAC-SHA256(secret, `${Weave-Timestamp}.${raw body}`), keyed with the secret exactly as shown
 * (UTF-8, `whsec_` prefix included). During a rotation the header carries two `v1=` values; any
 * one made with a secret you hold is enough. Uses `node:crypto` (Node 20).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** Why a webhook was refused: branch on `code`, never on the message. */
export type WebhookSignatureErrorCode =
  | 'missing_header'
  | 'invalid_timestamp'
  | 'timestamp_out_of_tolerance'
  | 'no_matching_signature'
  | 'no_secret';

export class WebhookSignatureError extends Error {
  readonly code: WebhookSignatureErrorCode;

  constructor(code: WebhookSignatureErrorCode, message: string) {
    super(message);
    this.name = 'WebhookSignatureError';
    this.code = code;
  }
}

type HeaderValue = string | readonly string[] | null | undefined;

export interface VerifyWebhookOptions {
  /** The subscription's secret; or `secrets` to accept any of several (your own rotation). */
  readonly secret?: string;
  readonly secrets?: readonly string[];
  /** The `Weave-Timestamp` header (Unix seconds). */
  readonly timestamp: HeaderValue;
  /** The `Weave-Signature` header. */
  readonly signature: HeaderValue;
  /** The raw request body, exactly as received: never a re-serialised parse. */
  readonly body: string | Uint8Array;
  /** Refuse a timestamp further than this from `now`, either way (default 300 s; replays). */
  readonly toleranceSeconds?: number;
  /** The current time (default: now), as a Date or Unix milliseconds. */
  readonly now?: Date | number;
}

function single(value: HeaderValue): string | undefined {
  if (value === null || value === undefined) {
    return undefined;
  }
  return typeof value === 'string' ? value : value.join(',');
}

function expectedSignature(secret: string, timestamp: string, body: string | Uint8Array): Buffer {
  const hmac = createHmac('sha256', secret).update(`${timestamp}.`, 'utf8');
  if (typeof body === 'string') {
    hmac.update(body, 'utf8');
  } else {
    hmac.update(body);
  }
  return hmac.digest();
}

/**
 * Checks a webhook request and returns its timestamp (Unix seconds); throws
 * `WebhookSignatureError` (with `code`) when it is not authentic or too old. Comparisons are
 * constant-time.
 *
 * @example
 * import { verifyWebhookSignature } from '@weave/sdk';
 * // inside a node:http handler, after reading the raw body into `raw`:
 * verifyWebhookSignature({
 *   secret: process.env.WEAVE_WEBHOOK_SECRET!,
 *   timestamp: req.headers['weave-timestamp'],
 *   signature: req.headers['weave-signature'],
 *   body: raw,
 * });
 */
export function verifyWebhookSignature(options: VerifyWebhookOptions): { timestamp: number } {
  const secrets = [
    ...(options.secret === undefined ? [] : [options.secret]),
    ...(options.secrets ?? []),
  ];
  if (secrets.length === 0 || secrets.some((s) => s === '')) {
    throw new WebhookSignatureError('no_secret', 'verifyWebhookSignature needs a non-empty secret');
  }
  const timestampText = single(options.timestamp);
  const header = single(options.signature);
  if (timestampText === undefined || header === undefined) {
    throw new WebhookSignatureError(
      'missing_header',
      `the request has no ${timestampText === undefined ? 'Weave-Timestamp' : 'Weave-Signature'} header`,
    );
  }
  if (!/^[0-9]{1,12}$/.test(timestampText)) {
    throw new WebhookSignatureError(
      'invalid_timestamp',
      `Weave-Timestamp must be Unix seconds (got ${timestampText.slice(0, 40)})`,
    );
  }
  const timestamp = Number(timestampText);
  const nowMs = options.now === undefined ? Date.now() : Number(options.now);
  const tolerance = options.toleranceSeconds ?? 300;
  if (Math.abs(nowMs / 1000 - timestamp) > tolerance) {
    throw new WebhookSignatureError(
      'timestamp_out_of_tolerance',
      `Weave-Timestamp ${timestamp} is more than ${tolerance} s away from now`,
    );
  }
  const given = header
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part.startsWith('v1='))
    .map((part) => part.slice(3))
    .filter((hex) => /^[0-9a-f]{64}$/.test(hex))
    .map((hex) => Buffer.from(hex, 'hex'));
  const expected = secrets.map((s) => expectedSignature(s, timestampText, options.body));
  // Every pair is compared (no early exit), so timing says nothing about which one matched.
  let matched = false;
  for (const e of expected) {
    for (const g of given) {
      matched = timingSafeEqual(e, g) || matched;
    }
  }
  if (!matched) {
    throw new WebhookSignatureError(
      'no_matching_signature',
      'no v1 signature in Weave-Signature matches the secret (wrong secret, or a body changed in transit)',
    );
  }
  return { timestamp };
}
