/**
 * One HTTP call of the Weave API below `/v1/namespaces/{ns}` (API.md): the bearer key, an
 * optional idempotency key, bodies written and read with @weave/json so numbers stay exact, and
 * an error answer turned into a `WeaveApiError`. Over the platform's exchange (http-exchange.ts:
 * `node:http` on Node, the global `fetch` elsewhere) unless given a `fetch`.
 */
import { parse, stringify, utf8ByteLength } from '@weave/json';
import type { JsonInput } from '@weave/json';
import { bodyTooLarge, toApiError } from './api-error.js';
import type { HttpExchange } from './http-exchange.js';
import { toPlain } from './plain.js';
import type { Plain } from './plain.js';

export interface ClientOptions {
  /** Base URL of the server, e.g. `http://127.0.0.1:8420`. */
  readonly url: string;
  readonly namespace: string;
  readonly apiKey: string;
  /**
   * The `fetch` to send with (tests, proxies). Without it: on Node a keep-alive `node:http`
   * client (the package's `node` entry), elsewhere the global `fetch`.
   */
  readonly fetch?: typeof fetch;
  /**
   * Largest request body sent, in UTF-8 bytes (default 2 MiB, the server's default limit). A
   * larger one is refused before sending with `payload_too_large` (413, `details.limit`), as the
   * server would answer. Set it to the server's own limit if that was changed.
   */
  readonly maxBodyBytes?: number;
}

/** The server's default body limit (docs/http-api.md). */
export const DEFAULT_MAX_BODY_BYTES = 2 * 1024 * 1024;

export interface RequestOptions {
  readonly body?: JsonInput;
  readonly query?: Readonly<Record<string, string | number | undefined>>;
  readonly idempotencyKey?: string;
  readonly signal?: AbortSignal;
}

/** One call below `/v1/namespaces/{ns}`, as the client and its parts make it. */
export type Requester = <T>(method: string, path: string, options?: RequestOptions) => Promise<T>;

export interface RawResponse {
  readonly status: number;
  readonly headers: Headers;
  readonly body: Plain;
}

export async function send(
  client: ClientOptions,
  exchange: HttpExchange,
  method: string,
  path: string,
  options: RequestOptions,
): Promise<RawResponse> {
  const url = new URL(`${client.url}/v1/namespaces/${encodeURIComponent(client.namespace)}${path}`);
  for (const [k, v] of Object.entries(options.query ?? {})) {
    if (v !== undefined) {
      url.searchParams.set(k, String(v));
    }
  }
  const payload = options.body === undefined ? undefined : stringify(options.body);
  if (payload !== undefined) {
    // Refused here rather than by the server, which would have to read it (docs/http-api.md).
    const bytes = utf8ByteLength(payload);
    const limit = client.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
    if (bytes > limit) {
      throw bodyTooLarge(bytes, limit);
    }
  }
  const headers: Record<string, string> = { authorization: `Bearer ${client.apiKey}` };
  if (payload !== undefined) {
    headers['content-type'] = 'application/json';
  }
  if (options.idempotencyKey !== undefined) {
    headers['idempotency-key'] = options.idempotencyKey;
  }
  const response = await exchange(url, {
    method,
    headers,
    ...(payload === undefined ? {} : { body: payload }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  });
  // The status first: an error answer may come from a proxy, in HTML (api-error.ts).
  if (response.status < 200 || response.status > 299) {
    throw toApiError(response, response.text);
  }
  return {
    status: response.status,
    // Read through: the Node exchange makes its `Headers` only when asked (node/http.ts).
    get headers() {
      return response.headers;
    },
    body: response.text === '' ? null : toPlain(parse(response.text)),
  };
}
