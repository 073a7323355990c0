/**
 * The webhook verifier against signatures made independently here with node:crypto, as the
 * server makes them: v1 = hex HMAC-SHA256(secret, `${timestamp}.${body}`).
 */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { describe, test } from 'node:test';
import { verifyWebhookSignature } from '../src/index.js';

const SECRET = 'whsec_current';
const OLD = 'whsec_previous';
const BODY =
  '{"subscription_id":"7","events":[{"seq":"1","type":"task.succeeded","result":1e400}]}';
const NOW_MS = 1_800_000_000_000;
const TS = String(NOW_MS / 1000);

function sign(secret: string, timestamp: string, body: string): string {
  return createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
}

describe('verifyWebhookSignature', () => {
  test('accepts a request signed with the secret and returns its timestamp', async () => {
    const result = await verifyWebhookSignature({
      secret: SECRET,
      timestamp: TS,
      signature: `v1=${sign(SECRET, TS, BODY)}`,
      body: BODY,
      now: NOW_MS,
    });
    assert.deepEqual(result, { timestamp: NOW_MS / 1000 });
  });

  test('accepts the raw body as bytes, including non-ASCII text', async () => {
    const body = '{"events":[{"name":"café ☕"}]}';
    await verifyWebhookSignature({
      secret: SECRET,
      timestamp: TS,
      signature: `v1=${sign(SECRET, TS, body)}`,
      body: Buffer.from(body, 'utf8'),
      now: new Date(NOW_MS),
    });
  });

  test('during a rotation either secret verifies the two-signature header', async () => {
    const header = `v1=${sign(SECRET, TS, BODY)},v1=${sign(OLD, TS, BODY)}`;
    for (const secret of [SECRET, OLD]) {
      await verifyWebhookSignature({
        secret,
        timestamp: TS,
        signature: header,
        body: BODY,
        now: NOW_MS,
      });
    }
    await verifyWebhookSignature({
      secrets: ['whsec_other', OLD],
      timestamp: TS,
      signature: `v1=${sign(OLD, TS, BODY)}`,
      body: BODY,
      now: NOW_MS,
    });
  });

  test('refuses a wrong secret, a changed body and a changed timestamp', async () => {
    const signature = `v1=${sign(SECRET, TS, BODY)}`;
    const base = { secret: SECRET, timestamp: TS, signature, body: BODY, now: NOW_MS };
    await assert.rejects(verifyWebhookSignature({ ...base, secret: 'whsec_wrong' }), {
      code: 'no_matching_signature',
    });
    await assert.rejects(
      verifyWebhookSignature({ ...base, body: BODY.replace('1e400', '1e401') }),
      {
        code: 'no_matching_signature',
      },
    );
    await assert.rejects(verifyWebhookSignature({ ...base, timestamp: String(Number(TS) + 1) }), {
      code: 'no_matching_signature',
    });
    // An unknown scheme or a truncated signature is no match, not a crash.
    await assert.rejects(
      verifyWebhookSignature({ ...base, signature: `v0=${sign(SECRET, TS, BODY)},v1=abc` }),
      { code: 'no_matching_signature' },
    );
  });

  test('refuses a timestamp outside the tolerance, both ways, and accepts one inside', async () => {
    const at = (offsetS: number) => String(NOW_MS / 1000 + offsetS);
    const check = (ts: string, toleranceSeconds?: number) =>
      verifyWebhookSignature({
        secret: SECRET,
        timestamp: ts,
        signature: `v1=${sign(SECRET, ts, BODY)}`,
        body: BODY,
        now: NOW_MS,
        ...(toleranceSeconds === undefined ? {} : { toleranceSeconds }),
      });
    await check(at(-300));
    await assert.rejects(check(at(-301)), { code: 'timestamp_out_of_tolerance' });
    await assert.rejects(check(at(301)), { code: 'timestamp_out_of_tolerance' });
    await check(at(-3000), 3600);
  });

  test('names what is missing or malformed', async () => {
    const base = { secret: SECRET, timestamp: TS, signature: 'v1=00', body: BODY, now: NOW_MS };
    await assert.rejects(verifyWebhookSignature({ ...base, signature: undefined }), {
      code: 'missing_header',
      message: /Weave-Signature/,
    });
    await assert.rejects(verifyWebhookSignature({ ...base, timestamp: null }), {
      code: 'missing_header',
      message: /Weave-Timestamp/,
    });
    await assert.rejects(verifyWebhookSignature({ ...base, timestamp: '2026-11-30' }), {
      code: 'invalid_timestamp',
    });
    await assert.rejects(verifyWebhookSignature({ ...base, secret: '' }), { code: 'no_secret' });
    const { secret: _secret, ...noSecret } = base;
    await assert.rejects(verifyWebhookSignature(noSecret), { code: 'no_secret' });
  });
});
