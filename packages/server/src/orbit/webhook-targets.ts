/**
 * Where a webhook may point (docs/webhooks.md "Allow-list"). A URL is http(s) without user
 * info; at delivery its host is resolved and only addresses that are public, or matched by
 * an allow-list entry (a CIDR such as `10.0.0.0/8`, an address, or a host name). Loopback,
 * private, link-local, unique-local, multicast, unspecified and other special-purpose ranges are
 * refused otherwise, IPv4 and IPv6 alike, and an IPv6 address that embeds an IPv4 one
 * (`::ffff:127.0.0.1`, NAT64, 6to4) is judged by the IPv4 address it carries.
 *
 * DNS rebinding: the check runs inside the connection's own `lookup` (`checkedLookup`), so the
 * socket connects only to addresses that were checked; nothing resolves the name twice.
 */
import { lookup as dnsLookup } from 'node:dns';
import type { LookupAddress, LookupOptions } from 'node:dns';
import { isIP } from 'node:net';

interface Address {
  readonly family: 4 | 6;
  readonly bytes: Uint8Array;
}

interface Cidr {
  readonly family: 4 | 6;
  readonly bytes: Uint8Array;
  readonly prefix: number;
}

export interface TargetPolicy {
  readonly cidrs: readonly Cidr[];
  /** Lower-case host names without a trailing dot. */
  readonly hosts: ReadonlySet<string>;
}

/** Refuse every special-purpose address: the default when nothing is configured. */
export const DEFAULT_TARGET_POLICY: TargetPolicy = { cidrs: [], hosts: new Set() };

// Special-purpose ranges (IANA registries), with the word the error message uses.
const RESTRICTED_V4: readonly (readonly [string, string])[] = [
  ['0.0.0.0/8', 'unspecified'],
  ['10.0.0.0/8', 'private'],
  ['100.64.0.0/10', 'shared (carrier-grade NAT)'],
  ['127.0.0.0/8', 'loopback'],
  ['169.254.0.0/16', 'link-local'],
  ['172.16.0.0/12', 'private'],
  ['192.0.0.0/24', 'reserved'],
  ['192.0.2.0/24', 'documentation'],
  ['192.168.0.0/16', 'private'],
  ['198.18.0.0/15', 'benchmarking'],
  ['198.51.100.0/24', 'documentation'],
  ['203.0.113.0/24', 'documentation'],
  ['224.0.0.0/4', 'multicast'],
  ['240.0.0.0/4', 'reserved'],
];
const RESTRICTED_V6: readonly (readonly [string, string])[] = [
  ['::/128', 'unspecified'],
  ['::1/128', 'loopback'],
  // IPv4-compatible (deprecated); `::` and `::1` are caught above.
  ['::/96', 'reserved'],
  ['64:ff9b:1::/48', 'reserved (local NAT64)'],
  ['100::/64', 'discard-only'],
  ['2001::/32', 'reserved (Teredo)'],
  ['2001:db8::/32', 'documentation'],
  ['fc00::/7', 'unique-local'],
  ['fe80::/10', 'link-local'],
  ['fec0::/10', 'site-local'],
  ['ff00::/8', 'multicast'],
];

const RESTRICTED = [...RESTRICTED_V4, ...RESTRICTED_V6].map(
  ([text, label]) => [parseCidr(text) as Cidr, label] as const,
);

function parseV4(text: string): Uint8Array | undefined {
  const parts = text.split('.');
  if (parts.length !== 4 || !parts.every((p) => /^(0|[1-9][0-9]{0,2})$/.test(p))) {
    return undefined;
  }
  const bytes = parts.map(Number);
  return bytes.every((b) => b <= 255) ? Uint8Array.from(bytes) : undefined;
}

function parseV6(text: string): Uint8Array | undefined {
  if (isIP(text) !== 6) {
    return undefined;
  }
  let head = text;
  let tail4: Uint8Array | undefined;
  const lastColon = text.lastIndexOf(':');
  if (text.slice(lastColon + 1).includes('.')) {
    tail4 = parseV4(text.slice(lastColon + 1));
    head = `${text.slice(0, lastColon + 1)}0:0`;
  }
  const [left = '', right] = head.split('::');
  const leftGroups = left === '' ? [] : left.split(':');
  const rightGroups = right === undefined || right === '' ? [] : right.split(':');
  const missing = 8 - leftGroups.length - rightGroups.length;
  const groups = [
    ...leftGroups,
    ...Array<string>(right === undefined ? 0 : missing).fill('0'),
    ...rightGroups,
  ];
  const bytes = new Uint8Array(16);
  groups.forEach((g, i) => {
    const n = parseInt(g, 16);
    bytes[i * 2] = n >> 8;
    bytes[i * 2 + 1] = n & 0xff;
  });
  if (tail4 !== undefined) {
    bytes.set(tail4, 12);
  }
  return bytes;
}

/** An IP address in its plain form; an IPv6 address that carries an IPv4 one becomes that one. */
function parseAddress(text: string): Address | undefined {
  const bare = text.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const v4 = parseV4(bare);
  if (v4 !== undefined) {
    return { family: 4, bytes: v4 };
  }
  const v6 = parseV6(bare);
  return v6 === undefined ? undefined : unwrapEmbeddedV4(v6);
}

function hasPrefix(bytes: Uint8Array, prefix: readonly number[]): boolean {
  return prefix.every((b, i) => bytes[i] === b);
}

function unwrapEmbeddedV4(bytes: Uint8Array): Address {
  // ::ffff:0:0/96 (mapped) and 64:ff9b::/96 (NAT64): the last four bytes.
  if (
    hasPrefix(bytes, [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff]) ||
    hasPrefix(bytes, [0, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0])
  ) {
    return { family: 4, bytes: bytes.slice(12) };
  }
  // 2002::/16 (6to4): bytes 2 to 5.
  if (hasPrefix(bytes, [0x20, 0x02])) {
    return { family: 4, bytes: bytes.slice(2, 6) };
  }
  return { family: 6, bytes };
}

function parseCidr(text: string): Cidr | undefined {
  const [ip = '', prefixText, extra] = text.split('/');
  if (extra !== undefined) {
    return undefined;
  }
  const bare = ip.replace(/^\[|\]$/g, '');
  const v4 = parseV4(bare);
  const bytes = v4 ?? parseV6(bare);
  if (bytes === undefined) {
    return undefined;
  }
  const family = v4 === undefined ? 6 : 4;
  const max = family === 4 ? 32 : 128;
  const prefix = prefixText === undefined ? max : Number(prefixText);
  if (prefixText !== undefined && (!/^[0-9]{1,3}$/.test(prefixText) || prefix > max)) {
    return undefined;
  }
  return { family, bytes, prefix };
}

function inCidr(address: Address, cidr: Cidr): boolean {
  if (address.family !== cidr.family) {
    return false;
  }
  for (let bit = 0; bit < cidr.prefix; bit += 8) {
    const take = Math.min(8, cidr.prefix - bit);
    const mask = (0xff << (8 - take)) & 0xff;
    const i = bit / 8;
    if (((address.bytes[i] ?? 0) & mask) !== ((cidr.bytes[i] ?? 0) & mask)) {
      return false;
    }
  }
  return true;
}

const HOST_NAME_PATTERN =
  /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;

function normaliseHost(host: string): string {
  return host.toLowerCase().replace(/\.$/, '');
}

/**
 * The allow-list from configuration (`--webhook-allow`, `WEAVE_WEBHOOK_ALLOW`): CIDRs,
 * addresses (IPv6 with or without brackets) and host names. An entry that is none of these is
 * an error that names it, so a typo never silently allows nothing.
 */
export function parseAllowList(entries: readonly string[]): TargetPolicy {
  const cidrs: Cidr[] = [];
  const hosts = new Set<string>();
  for (const raw of entries) {
    const entry = raw.trim();
    if (entry === '') {
      continue;
    }
    const cidr = parseCidr(entry);
    if (cidr !== undefined) {
      // A mapped IPv6 entry allows the IPv4 address it carries, the form addresses are judged in.
      const unwrapped =
        cidr.family === 6 && cidr.prefix >= 96 ? unwrapEmbeddedV4(cidr.bytes) : undefined;
      cidrs.push(
        unwrapped?.family === 4
          ? { family: 4, bytes: unwrapped.bytes, prefix: cidr.prefix - 96 }
          : cidr,
      );
    } else if (
      HOST_NAME_PATTERN.test(normaliseHost(entry)) &&
      // An all-digit last label is a malformed address (`300.1.1.1`), not a name.
      !/(^|\.)[0-9]+$/.test(normaliseHost(entry))
    ) {
      hosts.add(normaliseHost(entry));
    } else {
      throw new Error(
        `webhook allow-list entry "${entry}" is not a CIDR (10.0.0.0/8), an IP address or a host name`,
      );
    }
  }
  return { cidrs, hosts };
}

/**
 * Why `address` (reached for `host`) is refused, or `undefined` when it may be used: public, or
 * restricted but allowed by a CIDR or by the host name.
 */
export function refusalOf(policy: TargetPolicy, host: string, address: string): string | undefined {
  const parsed = parseAddress(address);
  if (parsed === undefined) {
    return `${address} is not an IP address`;
  }
  const restricted = RESTRICTED.find(([cidr]) => inCidr(parsed, cidr));
  if (restricted === undefined) {
    return undefined;
  }
  if (policy.hosts.has(normaliseHost(host)) || policy.cidrs.some((c) => inCidr(parsed, c))) {
    return undefined;
  }
  return `${address} is a ${restricted[1]} address and is not in the webhook allow-list`;
}

/** A URL host as an IP literal (IPv6 without brackets), or `undefined` for a name. */
export function ipLiteral(hostname: string): string | undefined {
  const bare = hostname.replace(/^\[|\]$/g, '');
  return isIP(bare) === 0 ? undefined : bare;
}

type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

export type Resolver = (hostname: string) => Promise<LookupAddress[]>;

const systemResolver: Resolver = (hostname) =>
  new Promise((resolve, reject) =>
    dnsLookup(hostname, { all: true, verbatim: true }, (err, addresses) =>
      err === null ? resolve(addresses) : reject(err),
    ),
  );

/** An error thrown for a refused target: its message is what `last_error` shows. */
export class TargetRefusedError extends Error {
  readonly code = 'ETARGETREFUSED';
}

/**
 * A `lookup` for `http.request`: resolves the name and hands the socket only the addresses that
 * pass the check, so it can never connect to a refused one, whatever the name answers next time
 * (`localhost` → `::1`, `127.0.0.1` with only `127.0.0.1` allowed connects to `127.0.0.1`). When
 * none passes, the error gives the first refusal.
 */
export function checkedLookup(policy: TargetPolicy, resolver: Resolver = systemResolver) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    resolver(hostname).then(
      (addresses) => {
        const wanted = addresses.filter(
          (a) =>
            options.family === undefined || options.family === 0 || a.family === options.family,
        );
        const checked = wanted.map((a) => ({ a, refusal: refusalOf(policy, hostname, a.address) }));
        const usable = checked.filter((c) => c.refusal === undefined).map((c) => c.a);
        const first = usable[0];
        if (first === undefined) {
          const refusal = checked[0]?.refusal ?? 'it has no address';
          callback(new TargetRefusedError(`${hostname}: ${refusal}`), '');
        } else if (options.all === true) {
          callback(null, usable);
        } else {
          callback(null, first.address, first.family);
        }
      },
      (e: unknown) => callback(e as NodeJS.ErrnoException, ''),
    );
  };
}
