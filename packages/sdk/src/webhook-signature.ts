/**
 * Verifying a Weave webhook (docs/webhooks.md): `Weave-Signature: v1=<hex>` is
 * HMAC-SHA256(secret, `${Weave-Timestamp}.${raw body}`), keyed with the secret exactly as shown
 * (UTF-8, `whsec_` prefix included). During a rotation the header carries two `v1=` values; any
 * one made with a secret you hold is enough.
 *
 * Uses Web Crypto (`globalThis.crypto.subtle`), not `node:crypto`, so the SDK's entry point loads
 * unchanged in Node ≥20, Deno, Bun, edge runtimes and browsers. Web Crypto is asynchronous, hence
 * the function returns a promise. `subtle.verify` compares the MAC in constant time.
 */

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

const encoder = new TextEncoder();

/** The signed bytes: `${timestamp}.` followed by the raw body, in a fresh ArrayBuffer. */
function signedBytes(timestamp: string, body: string | Uint8Array): Uint8Array<ArrayBuffer> {
  const prefix = encoder.encode(`${timestamp}.`);
  const rest = typeof body === 'string' ? encoder.encode(body) : body;
  const bytes = new Uint8Array(prefix.length + rest.length);
  bytes.set(prefix, 0);
  bytes.set(rest, prefix.length);
  return bytes;
}

/** The `v1=` signatures of a `Weave-Signature` header as bytes; other schemes are ignored. */
function givenSignatures(header: string): Uint8Array<ArrayBuffer>[] {
  return header
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part.startsWith('v1='))
    .map((part) => part.slice(3))
    .filter((hex) => /^[0-9a-f]{64}$/.test(hex))
    .map(hexBytes);
}

/** A lowercase 64-digit hex text (checked by the caller) → its 32 bytes. */
function hexBytes(hex: string): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i++) {
    bytes[i] = Number.parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  }
  return bytes;
}

function hmacKey(secret: string): Promise<CryptoKey> {
  return globalThis.crypto.subtle.importKey(
    'raw',
    encoder.encode(secret),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['verify'],
  );
}

/**
 * Checks a webhook request and resolves to its timestamp (Unix seconds); rejects with
 * `WebhookSignatureError` (with `code`) when it is not authentic or too old. Comparisons are
 * constant-time.
 *
 * @example
 * import { verifyWebhookSignature } from '@weave/sdk';
 * // inside a node:http handler, after reading the raw body into `raw`:
 * await verifyWebhookSignature({
 *   secret: process.env.WEAVE_WEBHOOK_SECRET!,
 *   timestamp: req.headers['weave-timestamp'],
 *   signature: req.headers['weave-signature'],
 *   body: raw,
 * });
 */
export async function verifyWebhookSignature(
  options: VerifyWebhookOptions,
): Promise<{ timestamp: number }> {
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
  const given = givenSignatures(header);
  const data = signedBytes(timestampText, options.body);
  const keys = await Promise.all(secrets.map(hmacKey));
  // Every pair is checked (no early exit), so timing says nothing about which one matched.
  const checks = keys.flatMap((key) =>
    given.map((signature) => globalThis.crypto.subtle.verify('HMAC', key, signature, data)),
  );
  if (!(await Promise.all(checks)).includes(true)) {
    throw new WebhookSignatureError(
      'no_matching_signature',
      'no v1 signature in Weave-Signature matches the secret (wrong secret, or a body changed in transit)',
    );
  }
  return { timestamp };
}
