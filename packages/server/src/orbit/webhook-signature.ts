/**
 * Webhook signatures (API.md "Orbit"): `Weave-Signature: v1=<hex hmac-sha256(secret, timestamp +
 * "." + body)>`. The key is the secret exactly as shown at creation (its UTF-8 bytes, `whsec_`
 * prefix included), so a receiver can check it by hand with any HMAC tool. During a rotation's
 * grace period the header carries two signatures, the new secret's first.
 */
import { createHmac } from 'node:crypto';

export const TIMESTAMP_HEADER = 'Weave-Timestamp';
export const SIGNATURE_HEADER = 'Weave-Signature';

export function signPayload(secret: string, timestamp: number, body: string): string {
  return createHmac('sha256', secret).update(`${timestamp}.${body}`, 'utf8').digest('hex');
}

/** The header value for every secret still valid, in the given order. */
export function signatureHeader(
  secrets: readonly string[],
  timestamp: number,
  body: string,
): string {
  return secrets.map((secret) => `v1=${signPayload(secret, timestamp, body)}`).join(',');
}
