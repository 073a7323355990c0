/**
 * One HTTP call of the Weave API below `/v1/namespaces/{ns}` (API.md): the bearer key, an
 * optional idempotency key, bodies written and read with @weave/json so numbers stay exact, and
 * an error answer turned into a `WeaveApiError`. Uses the global `fetch` unless given another.
 */
import { parse, stringify } from '@weave/json';
import type { JsonInput } from '@weave/json';
import { toApiError } from './api-error.js';
import { toPlain } from './plain.js';
import type { Plain } from './plain.js';

export interface ClientOptions {
  /** Base URL of the server, e.g. `http://127.0.0.1:8420`. */
  readonly url: string;
  readonly namespace: string;
  readonly apiKey: string;
  /** Replaces the global fetch (tests, proxies). */
  readonly fetch?: typeof fetch;
}

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
  fetchImpl: typeof fetch,
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
  const headers: Record<string, string> = { authorization: `Bearer ${client.apiKey}` };
  if (options.body !== undefined) {
    headers['content-type'] = 'application/json';
  }
  if (options.idempotencyKey !== undefined) {
    headers['idempotency-key'] = options.idempotencyKey;
  }
  const response = await fetchImpl(url, {
    method,
    headers,
    ...(options.body === undefined ? {} : { body: stringify(options.body) }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  });
  const text = await response.text();
  const body = text === '' ? null : toPlain(parse(text));
  if (!response.ok) {
    throw toApiError(response, body);
  }
  return { status: response.status, headers: response.headers, body };
}
