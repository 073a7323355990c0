/**
 * `WeaveClient`: the typed HTTP client of the Weave API (API.md). Uses the global `fetch`, writes
 * and reads bodies with @weave/json so numbers stay exact.
 *
 * @example
 * const client = new WeaveClient({ url: 'http://127.0.0.1:8420', namespace: 'dev', apiKey });
 * const { queue } = await client.createQueue({ name: 'emails', application: 'dev' });
 */
import { parse, stringify } from '@weave/json';
import type { JsonInput } from '@weave/json';
import { WeaveApiError } from './api-error.js';
import { toPlain } from './plain.js';
import type { Plain } from './plain.js';
import type { Application, Credential, CreatedCredential, Page, Queue } from './types.js';

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

export interface RawResponse {
  readonly status: number;
  readonly headers: Headers;
  readonly body: Plain;
}

export class WeaveClient {
  readonly #options: ClientOptions;
  readonly #fetch: typeof fetch;

  constructor(options: ClientOptions) {
    this.#options = { ...options, url: options.url.replace(/\/+$/, '') };
    this.#fetch = options.fetch ?? globalThis.fetch;
  }

  /** One call below `/v1/namespaces/{ns}`; throws `WeaveApiError` on an error answer. */
  async request<T = Plain>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    return (await this.requestRaw(method, path, options)).body as T;
  }

  async requestRaw(
    method: string,
    path: string,
    options: RequestOptions = {},
  ): Promise<RawResponse> {
    const url = new URL(
      `${this.#options.url}/v1/namespaces/${encodeURIComponent(this.#options.namespace)}${path}`,
    );
    for (const [k, v] of Object.entries(options.query ?? {})) {
      if (v !== undefined) {
        url.searchParams.set(k, String(v));
      }
    }
    const headers: Record<string, string> = { authorization: `Bearer ${this.#options.apiKey}` };
    if (options.body !== undefined) {
      headers['content-type'] = 'application/json';
    }
    if (options.idempotencyKey !== undefined) {
      headers['idempotency-key'] = options.idempotencyKey;
    }
    const response = await this.#fetch(url, {
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

  createApplication(
    input: { name: string; quota?: { max_active_tasks: number } },
    idempotencyKey?: string,
  ) {
    return this.request<{ application: Application }>(
      'POST',
      '/applications',
      withKey({ body: input }, idempotencyKey),
    );
  }

  getApplication(name: string) {
    return this.request<{ application: Application }>(
      'GET',
      `/applications/${encodeURIComponent(name)}`,
    );
  }

  updateApplication(
    name: string,
    patch: { quota?: { max_active_tasks: number }; disabled?: boolean },
  ) {
    return this.request<{ application: Application }>(
      'PATCH',
      `/applications/${encodeURIComponent(name)}`,
      { body: patch },
    );
  }

  createQueue(
    input: { name: string; application: string; capacity?: number },
    idempotencyKey?: string,
  ) {
    return this.request<{ queue: Queue }>(
      'POST',
      '/queues',
      withKey({ body: input }, idempotencyKey),
    );
  }

  getQueue(name: string) {
    return this.request<{ queue: Queue }>('GET', `/queues/${encodeURIComponent(name)}`);
  }

  listQueues(page: { page_size?: number; page_token?: string } = {}) {
    return this.request<Page<Queue>>('GET', '/queues', { query: page });
  }

  updateQueue(name: string, patch: { capacity?: number; paused?: boolean }) {
    return this.request<{ queue: Queue }>('PATCH', `/queues/${encodeURIComponent(name)}`, {
      body: patch,
    });
  }

  pauseQueue(name: string) {
    return this.request<{ queue: Queue }>('POST', `/queues/${encodeURIComponent(name)}/pause`);
  }

  resumeQueue(name: string) {
    return this.request<{ queue: Queue }>('POST', `/queues/${encodeURIComponent(name)}/resume`);
  }

  createCredential(
    input: { name: string; scopes: string[]; queues?: string[]; expires_at?: string },
    idempotencyKey?: string,
  ) {
    return this.request<CreatedCredential>(
      'POST',
      '/credentials',
      withKey({ body: input }, idempotencyKey),
    );
  }

  listCredentials() {
    return this.request<{ items: Credential[] }>('GET', '/credentials');
  }

  revokeCredential(id: string) {
    return this.request<{ credential: Credential }>(
      'DELETE',
      `/credentials/${encodeURIComponent(id)}`,
    );
  }
}

function withKey(options: RequestOptions, idempotencyKey: string | undefined): RequestOptions {
  return idempotencyKey === undefined ? options : { ...options, idempotencyKey };
}

function toApiError(response: Response, body: Plain): WeaveApiError {
  const error = asRecord(body)?.error;
  const e = asRecord(error ?? null) ?? {};
  const code = typeof e.code === 'string' ? e.code : 'internal';
  return new WeaveApiError({
    code,
    status: response.status,
    message: typeof e.message === 'string' ? e.message : `HTTP ${response.status}`,
    details:
      typeof e.details === 'object' && e.details !== null
        ? (e.details as Record<string, unknown>)
        : {},
    requestId: response.headers.get('x-request-id') ?? undefined,
  });
}

function asRecord(value: Plain): Record<string, Plain> | undefined {
  return typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    !('kind' in value && 'text' in value)
    ? value
    : undefined;
}
