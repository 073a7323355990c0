/**
 * Where webhooks may connect (no database): special-purpose IPv4 and IPv6 ranges, addresses
 * that embed IPv4 ones, allow-list entries, the checked lookup a connection uses (DNS rebinding),
 * and the retry timing.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, test } from 'node:test';
import { retryDelayMs, shouldMarkFailing } from '../../src/orbit/webhook-backoff.js';
import { toDeliverySettings } from '../../src/orbit/webhook-settings.js';
import { postWebhook } from '../../src/orbit/webhook-request.js';
import {
  DEFAULT_TARGET_POLICY,
  checkedLookup,
  parseAllowList,
  refusalOf,
} from '../../src/orbit/webhook-targets.js';
import type { Resolver } from '../../src/orbit/webhook-targets.js';

const refused = (address: string, allow: readonly string[] = [], host = 'hooks.example.com') =>
  refusalOf(parseAllowList(allow), host, address);

describe('webhook targets', () => {
  test('refuses loopback, private, link-local, shared, multicast, unspecified IPv4', () => {
    const cases: [string, RegExp][] = [
      ['127.0.0.1', /loopback/],
      ['127.255.0.9', /loopback/],
      ['10.1.2.3', /private/],
      ['172.16.0.1', /private/],
      ['172.31.255.255', /private/],
      ['192.168.1.10', /private/],
      ['169.254.169.254', /link-local/],
      ['100.64.0.1', /shared/],
      ['0.0.0.0', /unspecified/],
      ['224.0.0.1', /multicast/],
      ['255.255.255.255', /reserved/],
    ];
    for (const [address, why] of cases) {
      assert.match(refused(address) ?? 'allowed', why, address);
    }
  });

  test('lets public addresses through, including neighbours of private ranges', () => {
    for (const address of ['8.8.8.8', '172.15.255.255', '172.32.0.0', '100.128.0.1', '1.1.1.1']) {
      assert.equal(refused(address), undefined, address);
    }
    for (const address of ['2606:4700:4700::1111', '2a00:1450:4001:80b::200e']) {
      assert.equal(refused(address), undefined, address);
    }
  });

  test('refuses loopback, unique-local, link-local, multicast, unspecified IPv6', () => {
    const cases: [string, RegExp][] = [
      ['::1', /loopback/],
      ['::', /unspecified/],
      ['fd12:3456::1', /unique-local/],
      ['fc00::1', /unique-local/],
      ['fe80::1', /link-local/],
      ['fe80::1%eth0', /link-local/],
      ['ff02::1', /multicast/],
      ['2001:db8::1', /documentation/],
    ];
    for (const [address, why] of cases) {
      assert.match(refused(address) ?? 'allowed', why, address);
    }
  });

  test('judges IPv6 that carries IPv4 (mapped, NAT64, 6to4) by the IPv4 address', () => {
    assert.match(refused('::ffff:127.0.0.1') ?? 'allowed', /loopback/);
    assert.match(refused('::ffff:7f00:1') ?? 'allowed', /loopback/);
    assert.match(refused('::ffff:10.0.0.1') ?? 'allowed', /private/);
    assert.match(refused('64:ff9b::a9fe:a9fe') ?? 'allowed', /link-local/);
    assert.match(refused('2002:c0a8:0101::1') ?? 'allowed', /private/);
    assert.equal(refused('::ffff:8.8.8.8'), undefined);
    // The allow-list matches the carried address too, in either notation.
    assert.equal(refused('::ffff:127.0.0.1', ['127.0.0.1']), undefined);
    assert.equal(refused('127.0.0.1', ['::ffff:127.0.0.1']), undefined);
  });

  test('allow entries: CIDRs, single addresses and host names, nothing wider', () => {
    assert.equal(refused('10.20.30.40', ['10.20.0.0/16']), undefined);
    assert.match(refused('10.21.0.1', ['10.20.0.0/16']) ?? 'allowed', /private/);
    assert.equal(refused('127.0.0.1', ['127.0.0.1']), undefined);
    assert.match(refused('127.0.0.2', ['127.0.0.1']) ?? 'allowed', /loopback/);
    assert.equal(refused('fd00::5', ['fd00::/8']), undefined);
    assert.equal(refused('::1', ['[::1]']), undefined);
    assert.equal(refused('10.0.0.7', ['Hooks.Internal.'], 'hooks.internal'), undefined);
    assert.match(refused('10.0.0.7', ['hooks.internal'], 'other.internal') ?? 'allowed', /private/);
  });

  test('a bad allow-list entry is an error that names it', () => {
    assert.throws(() => parseAllowList(['10.0.0.0/33']), /"10\.0\.0\.0\/33"/);
    assert.throws(() => parseAllowList(['300.1.1.1']), /300\.1\.1\.1/);
    assert.throws(() => parseAllowList(['http://x']), /http:\/\/x/);
    assert.deepEqual(parseAllowList([' ', '']).cidrs, []);
  });

  test('the checked lookup hands the socket only the addresses that pass', async () => {
    const answers: Record<string, { address: string; family: number }[]> = {
      'rebind.example': [
        { address: '127.0.0.1', family: 4 },
        { address: '93.184.216.34', family: 4 },
        { address: '::1', family: 6 },
      ],
      'inside.example': [{ address: '10.0.0.8', family: 4 }],
    };
    const resolver: Resolver = (name) => Promise.resolve(answers[name] ?? []);
    const lookup = checkedLookup(DEFAULT_TARGET_POLICY, resolver);
    const run = (name: string, all: boolean, family?: number) =>
      new Promise<unknown>((resolve) =>
        lookup(name, { all, ...(family === undefined ? {} : { family }) }, (err, address) =>
          resolve(err ?? address),
        ),
      );
    assert.equal(await run('rebind.example', false), '93.184.216.34');
    assert.deepEqual(await run('rebind.example', true), [{ address: '93.184.216.34', family: 4 }]);
    const onlyV6 = (await run('rebind.example', false, 6)) as Error;
    assert.match(onlyV6.message, /::1 is a loopback address/);
    const error = (await run('inside.example', true)) as Error;
    assert.match(error.message, /inside\.example: 10\.0\.0\.8 is a private address/);
    assert.equal((error as NodeJS.ErrnoException).code, 'ETARGETREFUSED');
    assert.match(((await run('nothing.example', false)) as Error).message, /no address/);
  });

  test('a POST connects to the address that was checked, and only when allowed', async () => {
    const seen: string[] = [];
    const server = createServer((req, res) => {
      seen.push(req.headers.host ?? '');
      req.resume();
      req.on('end', () => res.end());
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    // A name no DNS knows: the only way to reach the receiver is the checked resolver's answer.
    const resolver: Resolver = (name) =>
      Promise.resolve([
        ...(name.startsWith('mixed') ? [{ address: '::1', family: 6 }] : []),
        { address: '127.0.0.1', family: 4 },
      ]);
    const post = (allow: readonly string[], host: string) =>
      postWebhook({
        url: `http://${host}:${port}/hook`,
        body: '{}',
        headers: {},
        timeoutMs: 2000,
        policy: parseAllowList(allow),
        resolver,
      });
    try {
      const refusedByName = await post([], 'hooks.weave.invalid');
      assert.equal(refusedByName.kind, 'failed');
      assert.match(
        refusedByName.kind === 'failed' ? refusedByName.error : '',
        /target refused: .*loopback/,
      );
      const refusedLiteral = await post([], '127.0.0.1');
      assert.match(refusedLiteral.kind === 'failed' ? refusedLiteral.error : '', /loopback/);
      assert.deepEqual(seen, []);
      assert.deepEqual(await post(['hooks.weave.invalid'], 'hooks.weave.invalid'), {
        kind: 'answered',
        status: 200,
      });
      assert.deepEqual(await post(['127.0.0.0/8'], '127.0.0.1'), { kind: 'answered', status: 200 });
      // Like `localhost`: ::1 is not allowed, so only 127.0.0.1 is tried.
      assert.deepEqual(await post(['127.0.0.1'], 'mixed.weave.invalid'), {
        kind: 'answered',
        status: 200,
      });
      assert.deepEqual(seen, [
        `hooks.weave.invalid:${port}`,
        `127.0.0.1:${port}`,
        `mixed.weave.invalid:${port}`,
      ]);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('webhook retry timing', () => {
  const settings = { backoffBaseMs: 1000, backoffMaxMs: 300_000 };

  test('doubles per failure from the base, between half and all of the step', () => {
    assert.equal(retryDelayMs(1, settings, 0), 500);
    assert.equal(retryDelayMs(1, settings, 1), 1000);
    assert.equal(retryDelayMs(2, settings, 1), 2000);
    assert.equal(retryDelayMs(4, settings, 0.5), 6000);
  });

  test('is capped, even after very many failures', () => {
    assert.equal(retryDelayMs(10, settings, 1), 300_000);
    assert.equal(retryDelayMs(10_000, settings, 1), 300_000);
    assert.equal(retryDelayMs(10_000, settings, 0), 150_000);
  });

  test('turns FAILING by count or by age, whichever comes first', () => {
    const limits = { failAfterAttempts: 10, failAfterMs: 60_000 };
    const since = 1_000_000_000n;
    assert.equal(shouldMarkFailing(9, since, since + 59_999_000n, limits), false);
    assert.equal(shouldMarkFailing(10, since, since, limits), true);
    assert.equal(shouldMarkFailing(2, since, since + 60_000_000n, limits), true);
  });

  test('with the defaults a receiver down for ten minutes is still retried, and after about an hour it is FAILING, whatever the jitter', () => {
    const defaults = toDeliverySettings();
    // When (ms after the first failure) the failure that marks the subscription FAILING comes,
    // each attempt failing at once and every wait drawn at `random`.
    const failingAfter = (random: number) => {
      let at = 0;
      for (let failures = 1; ; failures++) {
        if (shouldMarkFailing(failures, 0n, BigInt(at) * 1000n, defaults)) {
          return at;
        }
        at += retryDelayMs(failures, defaults, random);
      }
    };
    for (const random of [0, 0.5, 1]) {
      const at = failingAfter(random);
      assert.ok(at > 50 * 60_000 && at <= 65 * 60_000, `FAILING after ${at} ms at ${random}`);
    }
  });
});

describe('webhook settings', () => {
  test('fills in the defaults and refuses what would break the guarantees, naming the knob', () => {
    assert.equal(toDeliverySettings().batchSize, 100);
    assert.equal(toDeliverySettings({ batchSize: 5 }).batchSize, 5);
    assert.throws(() => toDeliverySettings({ leaseMs: 5_000, timeoutMs: 5_000 }), /leaseMs/);
    assert.throws(() => toDeliverySettings({ batchSize: 0 }), /batchSize must be a positive/);
    assert.throws(() => toDeliverySettings({ batchSize: 1001 }), /batchSize must be at most/);
    assert.throws(() => toDeliverySettings({ backoffBaseMs: 1.5 }), /backoffBaseMs/);
    assert.throws(
      () => toDeliverySettings({ backoffMaxMs: 10, backoffBaseMs: 20 }),
      /backoffMaxMs/,
    );
  });
});
